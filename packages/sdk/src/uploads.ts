// A check's body with bytes in it goes as multipart/form-data: each image a file part under its
// field name (a list of images, the field repeated), every other field as text. The service
// reads both encodings under the same names (README: Standalone checks) and never recompresses.
import type { Binary, BlobLike, Upload } from './runtime-types.js';

function isBlobLike(value: unknown): value is BlobLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as BlobLike).arrayBuffer === 'function' &&
    typeof (value as BlobLike).size === 'number'
  );
}

function isBytes(value: unknown): value is Uint8Array | ArrayBuffer | BlobLike {
  return value instanceof ArrayBuffer || ArrayBuffer.isView(value) || isBlobLike(value);
}

function isUpload(value: unknown): value is Upload {
  return typeof value === 'object' && value !== null && !isBytes(value) && isBytes((value as Upload).data);
}

export function isBinary(value: unknown): value is Binary {
  return isBytes(value) || isUpload(value);
}

/** True when some field (or element of a list field) of the body is bytes. */
export function carriesFiles(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  return Object.values(body).some((value) => (Array.isArray(value) ? value.some(isBinary) : isBinary(value)));
}

async function filePart(value: Binary, fallbackName: string): Promise<{ blob: Blob; filename: string }> {
  const upload: Upload = isUpload(value) ? value : { data: value };
  const { data } = upload;
  const named = (data as { name?: unknown }).name;
  const filename = upload.filename ?? (typeof named === 'string' && named !== '' ? named : fallbackName);
  if (data instanceof Blob && upload.contentType === undefined) return { blob: data, filename };
  const bytes = data instanceof ArrayBuffer || ArrayBuffer.isView(data) ? data : await data.arrayBuffer();
  const type = upload.contentType ?? (isBlobLike(data) && data.type !== '' ? data.type : 'application/octet-stream');
  return { blob: new Blob([bytes as Uint8Array<ArrayBuffer>], { type }), filename };
}

/** @internal The body as multipart/form-data: files for bytes, text (JSON for objects) for the rest. */
export async function multipartBody(body: Record<string, unknown>): Promise<FormData> {
  const form = new FormData();
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    const list = Array.isArray(value);
    for (const [index, item] of (list ? value : [value]).entries()) {
      if (isBinary(item)) {
        const { blob, filename } = await filePart(item, list ? `${name}-${index + 1}` : name);
        form.append(name, blob, filename);
      } else {
        form.append(name, typeof item === 'object' ? JSON.stringify(item) : String(item));
      }
    }
  }
  return form;
}
