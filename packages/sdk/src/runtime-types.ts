// The few platform types the public API names, written structurally so that the package's
// declarations type-check in any project: with the DOM lib, with @types/node, or with neither.

/** What the client reads of an AbortSignal (any AbortSignal is one). */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** What the client reads of a Blob or File (any Blob is one). */
export interface BlobLike {
  readonly size: number;
  readonly type: string;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** A file with the name and media type the service is told (both optional). */
export interface Upload {
  data: Uint8Array | ArrayBuffer | BlobLike;
  filename?: string;
  contentType?: string;
}

/** Image bytes for a check: a Node Buffer or any Uint8Array, an ArrayBuffer, a Blob or File, or an Upload. */
export type Binary = Uint8Array | ArrayBuffer | BlobLike | Upload;

/** The environment's own `fetch` type (DOM lib or @types/node); `never` where neither declares one. */
export type Fetch = typeof globalThis extends { fetch: infer F } ? F : never;

/** Request headers as Node gives them (`req.headers`) or as a Headers object. */
export type HeadersInput = Record<string, string | string[] | undefined> | { get(name: string): string | null };
