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

/** What the client passes to fetch (the fallback type, where no lib declares fetch). */
export interface FetchInitLike {
  method: string;
  headers: Record<string, string>;
  body?: unknown;
  signal?: AbortSignalLike;
}

/** What the client reads of a fetch response (the fallback type, where no lib declares fetch). */
export interface FetchResponseLike {
  readonly ok: boolean;
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/**
 * The environment's own `fetch` type (DOM lib or @types/node), or what the client needs of one where neither declares
 * it.
 */
export type Fetch = typeof globalThis extends { fetch: infer F }
  ? F
  : (input: string, init: FetchInitLike) => Promise<FetchResponseLike>;

/** Request headers as Node gives them (`req.headers`) or as a Headers object. */
export type HeadersInput = Record<string, string | string[] | undefined> | { get(name: string): string | null };
