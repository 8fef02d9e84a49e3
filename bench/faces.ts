// Latency of POST /api/v2/face-match (two 640x480 JPEG selfies), /api/v2/liveness (one) and
// /api/v2/antispoof with a 6-frame burst (consecutive frames of the shared video, 480x360),
// through HTTP against a started service, with the share of each request spent in the face
// engine (model calls: pixels to tensors and inference), timed inside the service; and the
// process's memory (RSS, JS heap, live TF.js tensors) after loading the models and after BENCH_REQUESTS requests.
//   node --import @swc-node/register/esm-register bench/faces.ts
//   BENCH_LATENCY=40 BENCH_REQUESTS=1000
// Needs ../shared/data (the selfies are made from its photos in memory).
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import sharp from 'sharp';
import { loadConfig } from '../src/config.js';
import { modelFaceEngine, type FaceEngine } from '../src/core/face-engine.js';
import { lazyModels } from '../src/core/models.js';
import { Sealer } from '../src/core/secrets.js';
import { buildService } from '../src/main.js';
import { faceWorkerCount } from '../src/ml/inference/pool.js';
import { loadTf } from '../src/ml/tf.js';
import { freePort, percentile } from '../test/helpers/processes.js';
import { SHARED_DATA } from '../test/helpers/faces.js';
import { videoAvailable, videoFrames } from '../test/helpers/video.js';
import { summary } from './summary.js';

const latencyRuns = Number(process.env.BENCH_LATENCY ?? 40);
const totalRequests = Number(process.env.BENCH_REQUESTS ?? 1000);
if (!existsSync(`${SHARED_DATA}liveness-samples`)) {
  console.log(`no evaluation photos at ${SHARED_DATA}; nothing to measure`);
  process.exit(0);
}

/**
 * Milliseconds during which the engine was working (calls overlap on the worker threads: their union, not their sum).
 */
const spent = { ms: 0 };
let inFlight = 0;
let busySince = 0;
function timed(engine: FaceEngine): FaceEngine {
  const wrap =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (inFlight++ === 0) busySince = performance.now();
      try {
        return await call(...args);
      } finally {
        if (--inFlight === 0) spent.ms += performance.now() - busySince;
      }
    };
  return {
    detectFaces: wrap(engine.detectFaces),
    describeLargestFace: wrap(engine.describeLargestFace),
    cropFace: wrap(engine.cropFace),
    assessLiveness: wrap(engine.assessLiveness),
    headPose: wrap(engine.headPose),
  };
}

/**
 * A 640x480 selfie made from a portrait photo: the 4:3 area holding the whole head. A plain
 * centre crop cuts the obama photos' faces at the top edge, and a face cut by the frame fails
 * the upright check, so detection also tries it turned three ways (three more detector runs).
 */
const selfie = async (file: string, area?: { left: number; top: number; width: number; height: number }) => {
  const photo = sharp(readFileSync(`${SHARED_DATA}${file}`)).autoOrient();
  return (area ? photo.extract(area).resize(640, 480) : photo.resize(640, 480, { fit: 'cover', position: 'top' }))
    .jpeg({ quality: 90 })
    .toBuffer();
};
const reference = await selfie('face_recognition-obama-biden/obama.jpg');
const probe = await selfie('face_recognition-obama-biden/obama2.jpg', { left: 0, top: 200, width: 626, height: 470 });
const live = await selfie('liveness-samples/live_image_T1.jpg');

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'verity-bench-faces-'));
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
const models = lazyModels();
const service = await buildService(config, {
  logger: pino({ level: 'silent' }),
  faceEngine: timed(modelFaceEngine(models)),
});
await service.core.billing.topUp(service.demo!.project_id, 100_000);
const port = await freePort();
const server = await new Promise<Server>((resolve) => {
  const s = service.app.listen(port, '127.0.0.1', () => resolve(s));
});
const url = `http://127.0.0.1:${port}/api/v2`;
const headers = { 'X-API-Key': service.demo!.api_key, 'Content-Type': 'application/json' };
const burst = videoAvailable ? await videoFrames(7.0, 6, 100, { x: 60, y: 0, width: 480, height: 360 }) : null;
const bodies: Record<string, string> = {
  'face-match': JSON.stringify({ image1: reference.toString('base64'), image2: probe.toString('base64') }),
  liveness: JSON.stringify({ image: live.toString('base64') }),
  ...(burst ? { antispoof: JSON.stringify({ frames: burst.map((frame) => frame.toString('base64')) }) } : {}),
};
const mb = (bytes: number) => `${Math.round(bytes / 1048576)} MB`;
const tf = await loadTf();
/** RSS and JS heap of the process, and the tensors TF.js holds (a leak shows as growth here). */
const memory = () => {
  const { rss, heapUsed } = process.memoryUsage();
  const { numTensors, numBytes } = tf.memory();
  return `RSS ${mb(rss)}, JS heap ${mb(heapUsed)}, ${numTensors} tensors (${mb(numBytes)})`;
};

async function call(route: string): Promise<{ ms: number; modelMs: number }> {
  const before = spent.ms;
  const started = performance.now();
  const res = await fetch(`${url}/${route}`, { method: 'POST', headers, body: bodies[route] });
  const body = (await res.json()) as { success: boolean; error?: unknown };
  if (!body.success) throw new Error(`${route}: ${res.status} ${JSON.stringify(body.error)}`);
  return { ms: performance.now() - started, modelMs: spent.ms - before };
}

try {
  const loadStarted = performance.now();
  await Promise.all([models.faces(), models.liveness()]);
  console.log(
    `models loaded and warmed in ${Math.round(performance.now() - loadStarted)} ms on ${models.status().tf_backend} (${process.env.VERITY_FACE_WORKERS === '0' ? 'in-process' : `${faceWorkerCount()} worker threads`}); ${memory()}`,
  );
  await call('face-match');
  await call('liveness');
  console.log(`after one request of each: ${memory()}`);
  let done = 2;
  for (const route of Object.keys(bodies)) {
    const runs: { ms: number; modelMs: number }[] = [];
    for (let i = 0; i < latencyRuns; i++) runs.push(await call(route));
    done += latencyRuns;
    const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
    const share = runs.reduce((sum, r) => sum + r.modelMs, 0) / runs.reduce((sum, r) => sum + r.ms, 0);
    console.log(
      `${route}: p50 ${Math.round(percentile(ms, 50))} ms, p95 ${Math.round(percentile(ms, 95))} ms over ${latencyRuns} requests; ${(100 * share).toFixed(1)}% in the face engine`,
    );
    const modelMs = runs.map((r) => r.modelMs).sort((a, b) => a - b);
    summary({
      area: 'faces',
      what: `POST /api/v2/${route} p50 (p95 ${Math.round(percentile(ms, 95))} ms)`,
      verity: Math.round(percentile(ms, 50)),
      unit: 'ms',
      baseline: { name: 'model inference alone, p50', value: Math.round(percentile(modelMs, 50)) },
    });
  }
  while (done < totalRequests) {
    await call(done % 2 ? 'face-match' : 'liveness');
    done++;
    if (done % 250 === 0) console.log(`  after ${done} requests: ${memory()}`);
  }
  console.log(`after ${done} requests: ${memory()}`);
  summary({
    area: 'faces',
    what: `RSS after ${done} requests (models loaded)`,
    verity: Math.round(process.memoryUsage().rss / 1048576),
    unit: 'MB',
  });
} finally {
  await new Promise((resolve) => server.close(resolve));
  await service.close();
  await models.close();
  await rm(dataDir, { recursive: true, force: true });
}
