import type { CamelName } from '../core/camel.js';

// type-graphql classes follow the zod declarations at compile time. An object type is declared
// `implements Mirror<ThatClass, ThatWire>`, an input type `implements MirrorInput<ThatClass,
// z.input<typeof theOperationsInput>>`: a field the declaration renames or drops, or whose
// nullability it changes, fails `npm run typecheck` at the class, not a test.
// test/fast/graphql-wire.test.ts also compares the built schema with the wires, and lists the
// classes that mirror nothing and why.

/**
 * A wire value as its type-graphql field holds it: an enum is the String the schema declares, a
 * nested object is its own class (checked by its own Mirror), null stays null.
 */
type GraphQLValue<T> = T extends string
  ? string
  : T extends number
    ? number
    : T extends boolean
      ? boolean
      : T extends null | undefined
        ? T
        : T extends readonly (infer Element)[]
          ? GraphQLValue<Element>[]
          : T extends object
            ? GraphQLOf<T>
            : T;

/** A wire object as GraphQL spells it: camelCase names (the REST wire's are snake_case), widened values. */
export type GraphQLOf<Wire> = {
  [K in keyof Wire as K extends string ? CamelName<K> : K]: GraphQLValue<Wire[K]>;
};

/** Each of the class's fields is the wire's, both ways (a nullable wire field is nullable in the class too). */
type Same<ClassField, WireField> = [ClassField] extends [WireField]
  ? [WireField] extends [ClassField]
    ? WireField
    : never
  : never;

/**
 * What a type-graphql class that mirrors a wire object must be: every field of the wire, of the
 * same type and nullability, and no field the wire lacks (`never` makes a stray class field fail).
 * Fields resolved by a `@FieldResolver` are not class fields, so they need no mention here.
 */
export type Mirror<Class, Wire> = {
  [K in keyof GraphQLOf<Wire>]: K extends keyof Class ? Same<Class[K], GraphQLOf<Wire>[K]> : GraphQLOf<Wire>[K];
} & { [K in Exclude<keyof Class, keyof GraphQLOf<Wire>>]: never };

type Bare<T> = Exclude<T, null | undefined>;
/** Whether a key of an object type may be left out. */
type MayOmit<T, K extends keyof T> = Partial<Pick<T, K>> extends Pick<T, K> ? true : false;
/**
 * An input class's field against the operation's zod input: the same type (an enum is a String), and
 * required (neither optional nor nullable) where the zod input requires it. GraphQL's null for an
 * optional field is dropped before the zod schema parses it (`run` in ./resolvers.ts).
 */
type InputField<ClassField, WireField, Omissible> = [Bare<ClassField>] extends [Bare<GraphQLValue<WireField>>]
  ? [Bare<GraphQLValue<WireField>>] extends [Bare<ClassField>]
    ? Omissible extends true
      ? ClassField
      : null extends WireField
        ? ClassField
        : Bare<ClassField>
    : never
  : never;

/**
 * What a type-graphql input class must be: the fields of the operation's zod input (`z.input`), each
 * of the same type, required where the input requires it, and no field the input lacks.
 */
export type MirrorInput<Class, Input> = {
  [K in keyof Input]: K extends keyof Class ? InputField<Class[K], Input[K], MayOmit<Input, K>> : Bare<Input[K]>;
} & { [K in Exclude<keyof Class, keyof Input>]: never };
