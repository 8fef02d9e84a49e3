import type { z } from 'zod';

// The admin API (GraphQL, tRPC) spells fields in camelCase where the REST wire uses snake_case.
// Its objects that are a REST wire object renamed are derived from that object's zod declaration
// here, so the field list is written once.

/** `price_per_seat` -> `pricePerSeat`. */
export type CamelName<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelName<Tail>>}`
  : S;

/** An object type with its keys in camelCase. */
export type Camelized<T> = { [K in keyof T as K extends string ? CamelName<K> : K]: T[K] };

/** `price_per_seat` -> `pricePerSeat` (the runtime side of CamelName). */
export const camelName = (field: string): string =>
  field.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

/** A wire object in camelCase: the fields its schema declares, renamed; nothing else is carried over. */
export function camelView<S extends z.ZodObject>(schema: S, value: z.output<S>): Camelized<z.output<S>> {
  const fields = value as Record<string, unknown>;
  return Object.fromEntries(Object.keys(schema.shape).map((field) => [camelName(field), fields[field]])) as Camelized<
    z.output<S>
  >;
}
