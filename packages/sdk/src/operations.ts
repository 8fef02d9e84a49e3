// Types of every operation, derived from the generated `operations` interface (openapi.ts) and
// the generated table (operations.ts): a route or schema change in the service changes them at
// the next `npm run sdk:generate`, so the client cannot drift from the document.
import type { operations } from './generated/openapi.js';
import type { OPERATIONS } from './generated/operations.js';
import type { Binary } from './runtime-types.js';

type Table = typeof OPERATIONS;
export type OperationId = keyof Table & keyof operations;
type Operation<K extends OperationId> = operations[K];
type Defined<T> = Exclude<T, undefined>;
type Simplify<T> = { [P in keyof T]: T[P] };
/** True when nothing in T is required. */
type AllOptional<T> = Partial<T> extends T ? true : false;

type ParametersIn<K extends OperationId, Where extends 'path' | 'query'> = Operation<K>['parameters'] extends {
  [W in Where]?: infer P;
}
  ? Defined<P>
  : never;
/** The path parameters of an operation (`never` when it has none). */
export type PathParams<K extends OperationId> = ParametersIn<K, 'path'>;
/** The query parameters of an operation (`never` when it has none). */
export type QueryParams<K extends OperationId> = ParametersIn<K, 'query'>;

type BodyContent<K extends OperationId> =
  Operation<K> extends { requestBody?: infer B }
    ? [Defined<B>] extends [never]
      ? never
      : Defined<B> extends { content: infer C }
        ? C
        : never
    : never;
type DocumentedBody<C> = C extends { 'application/json': infer J }
  ? J
  : C extends { 'application/x-www-form-urlencoded': infer F }
    ? F
    : C extends { 'multipart/form-data': infer M }
      ? M
      : never;

/** A string field that may be an image also takes bytes; a list of strings, a list of bytes. */
type FileField<V> = [V] extends [string | undefined]
  ? V | Binary
  : [V] extends [readonly string[] | undefined]
    ? V | readonly (string | Binary)[]
    : V;
/** A check's body, where the image fields also take bytes (sent as multipart/form-data files). */
export type WithFiles<B> = B extends object ? { [P in keyof B]: FileField<B[P]> } : B;

/** The body an operation takes (`never` when it takes none). */
export type RequestBody<K extends OperationId> = Table[K]['uploads'] extends true
  ? WithFiles<DocumentedBody<BodyContent<K>>>
  : DocumentedBody<BodyContent<K>>;
type BodyRequired<K extends OperationId> = Operation<K> extends { requestBody: object } ? true : false;

type Slot<Name extends string, T, Required extends boolean> = [T] extends [never]
  ? { [P in Name]?: never }
  : Required extends true
    ? { [P in Name]: T }
    : { [P in Name]?: T };

/** `{ path, query, body }` of an operation: each present exactly when the operation has it. */
export type RequestParams<K extends OperationId> = Simplify<
  Slot<'path', PathParams<K>, true> &
    Slot<'query', QueryParams<K>, AllOptional<QueryParams<K>> extends true ? false : true> &
    Slot<'body', RequestBody<K>, BodyRequired<K>>
>;

/** The arguments after the operation id: params may be left out when nothing in them is required. */
export type ParamsArgs<K extends OperationId, Options> =
  AllOptional<RequestParams<K>> extends true
    ? [params?: RequestParams<K>, options?: Options]
    : [params: RequestParams<K>, options?: Options];

type Responses<K extends OperationId> = Operation<K>['responses'];
type SuccessResponse<K extends OperationId> = Responses<K>[Extract<keyof Responses<K>, 200 | 201 | 202 | 204>];
type Payload<R> = R extends { content: infer C }
  ? 'application/json' extends keyof C
    ? C['application/json']
    : [keyof C] extends [`text/${string}`]
      ? string
      : Uint8Array
  : undefined;
type Unwrapped<J> = J extends { success: true; data: infer D } ? D : J;

/**
 * What an operation's success answers: the envelope's `data`, or the bare JSON of an unenveloped route (OIDC), text, or
 * bytes.
 */
export type ResponseData<K extends OperationId> = Unwrapped<Payload<SuccessResponse<K>>>;

/** The list operations: they take a `cursor` and answer the next page's in `X-Next-Cursor`. */
export type ListOperationId = { [K in OperationId]: Table[K]['pagination'] extends null ? never : K }[OperationId];
type ElementOf<T> = T extends readonly (infer E)[] ? E : never;

/** One item of a list operation's page. */
export type PageItem<K extends ListOperationId> = Table[K]['pagination'] extends {
  items: infer P extends keyof ResponseData<K>;
}
  ? ElementOf<ResponseData<K>[P]>
  : ElementOf<ResponseData<K>>;

/** One page of a list: its items and the cursor of the next page (null on the last). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
