import { receivedImage, type DecodedImage } from '../image.js';
import { serveRequests } from '../worker-pool.js';
import { createDocumentReader } from './index.js';

// The document-reading worker thread (see index.ts): loads PaddleOCR, says `ready`, then reads
// one document at a time in arrival order.

export type DocumentRequest = { id: number; front?: DecodedImage | undefined; back?: DecodedImage | undefined };

await serveRequests<DocumentRequest>(async () => {
  const reader = await createDocumentReader();
  return {
    info: null,
    handle: (request) =>
      reader.read(request.front && receivedImage(request.front), request.back && receivedImage(request.back)),
  };
});
