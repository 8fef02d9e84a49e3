import type { CamelName } from '../core/camel.js';

// type-graphql classes follow the zod wire declarations at compile time. A class that describes a
// wire object is declared `implements Mirror<ThatClass, ThatWire>`: a field the wire renames or
// drops, or whose nullability it changes, fails `npm run typecheck` at the class, not a test.
// test/fast/graphql-wire.test.ts also compares the built schema with the wires, and lists the
// object types that mirror no wire and why.

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
  [K in keyof Wire & string as CamelName<K>]-?: GraphQLValue<Wire[K]>;
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
