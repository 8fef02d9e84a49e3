// OCR per document: POST /api/v2/id-verification through HTTP against a started service (OCR,
// MRZ, portrait, authenticity, record, wallet), beside the service's document reader alone on the same
// images (decode + OCR + MRZ): the baseline is the model work itself. Then
// what a cheap request of the same instance waits while documents are read (GET /healthz).
//   node --import @swc-node/register/esm-register bench/documents.ts      (BENCH_DOCUMENTS=12, BENCH_PER_DOCUMENT=1)
//   BENCH_HARD=1: the generated hard photos instead (test/helpers/document-photos.ts: 1-12 MP, tilted, clutter, glare).
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { Sealer } from '../src/core/secrets.js';
import { buildService } from '../src/main.js';
import { decodeImage } from '../src/ml/image.js';
import { photographDocument, photoSpecs } from '../test/helpers/document-photos.js';
import { renderDocument, renderSpecs } from '../test/helpers/documents.js';
import { freePort, percentile } from '../test/helpers/processes.js';
import { summary } from './summary.js';

const count = Number(process.env.BENCH_DOCUMENTS ?? 12);
const hard = process.env.BENCH_HARD === '1';
const specs = hard ? photoSpecs(count) : renderSpecs(count);
/** The hard photos one at a time (a 12 MP scene is large), as front bytes and an optional back. */
async function hardDocuments(): Promise<Array<{ bytes: Buffer; back?: Buffer | undefined }>> {
  const out: Array<{ bytes: Buffer; back?: Buffer | undefined }> = [];
  for (const spec of photoSpecs(count)) {
    const photo = await photographDocument(spec);
    out.push({ bytes: photo.front, back: photo.back });
  }
  return out;
}
const documents = hard
  ? await hardDocuments()
  : await Promise.all(renderSpecs(count).map((spec) => renderDocument(spec)));

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'verity-bench-documents-'));
const config = loadConfig(
  {},
  {
    dataDir,
    encryptionKey: Sealer.generateKey(),
    logLevel: 'silent',
    warmModels: false,
    seedLicenses: false,
    runJobs: false,
    rateLimitPerMinute: 100_000_000,
  },
);
const service = await buildService(config, { logger: pino({ level: 'silent' }) });
await service.core.billing.topUp(service.demo!.project_id, 100_000);
const port = await freePort();
const server = await new Promise<Server>((resolve) => {
  const s = service.app.listen(port, '127.0.0.1', () => resolve(s));
});
const headers = { 'X-API-Key': service.demo!.api_key, 'Content-Type': 'application/json' };

try {
  const reader = await service.core.models.documents();
  await reader.read(await decodeImage(documents[0]!.bytes)); // warm-up
  const http: number[] = [];
  const raw: number[] = [];
  // BENCH_PER_DOCUMENT=1: each document's two times, to see what makes the tail.
  const perDocument = process.env.BENCH_PER_DOCUMENT === '1';
  for (const [i, document] of documents.entries()) {
    let started = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}/api/v2/id-verification`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        front_image: document.bytes.toString('base64'),
        ...(document.back ? { back_image: document.back.toString('base64') } : {}),
      }),
    });
    await res.json();
    http.push(performance.now() - started);
    started = performance.now();
    await reader.read(await decodeImage(document.bytes), document.back ? await decodeImage(document.back) : undefined);
    raw.push(performance.now() - started);
    if (perDocument)
      console.log(
        `  ${specs[i]!.name}${'wrongCheckDigit' in specs[i]! && specs[i]!.wrongCheckDigit ? ' (wrong check digit)' : ''}: route ${Math.round(http.at(-1)!)} ms, reader ${Math.round(raw.at(-1)!)} ms`,
      );
  }
  // What the other requests of the instance wait meanwhile: GET /healthz every 20 ms while documents go through the
  // route.
  const stalls: number[] = [];
  let reading = true;
  const pinger = (async () => {
    while (reading) {
      const started = performance.now();
      await (await fetch(`http://127.0.0.1:${port}/healthz`)).arrayBuffer();
      stalls.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  for (const document of documents.slice(0, 10)) {
    const res = await fetch(`http://127.0.0.1:${port}/api/v2/id-verification`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        front_image: document.bytes.toString('base64'),
        ...(document.back ? { back_image: document.back.toString('base64') } : {}),
      }),
    });
    await res.json();
  }
  reading = false;
  await pinger;
  stalls.sort((a, b) => a - b);
  http.sort((a, b) => a - b);
  raw.sort((a, b) => a - b);
  const round = Math.round;
  console.log(
    hard
      ? `${count} generated hard photos (every ICAO 9303 format, 1-12 MP; see docs/document-reader.md):`
      : `${count} rendered documents (TD3, TD1 front+back, TD2; rotations, skew, blur, JPEG):`,
  );
  console.log(
    `  POST /api/v2/id-verification: p50 ${round(percentile(http, 50))} ms, p95 ${round(percentile(http, 95))} ms`,
  );
  console.log(
    `  document reader alone:        p50 ${round(percentile(raw, 50))} ms, p95 ${round(percentile(raw, 95))} ms`,
  );
  console.log(
    `  GET /healthz while documents are read: p50 ${round(percentile(stalls, 50))} ms, p99 ${round(percentile(stalls, 99))} ms, max ${round(stalls.at(-1)!)} ms (${stalls.length} requests)`,
  );
  summary({
    area: 'documents',
    what: `POST /api/v2/id-verification per document, p50 (p95 ${round(percentile(http, 95))} ms)`,
    verity: round(percentile(http, 50)),
    unit: 'ms',
    baseline: { name: 'OCR + MRZ alone, p50', value: round(percentile(raw, 50)) },
  });
} finally {
  await new Promise((resolve) => server.close(resolve));
  await service.close();
  await rm(dataDir, { recursive: true, force: true });
}
