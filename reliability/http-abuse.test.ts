import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoTenant } from '../src/core/seed.js';
import { freshDatabase } from '../test/helpers/processes.js';
import { type Part, uploadUntilAnswered } from '../test/helpers/uploads.js';
import { VerityProcess, verityEnv } from '../test/helpers/verity-process.js';

// Two attacks on the HTTP surface of one real `verity serve` (its own process, so its memory can
// be read), quick and without timed assertions:
// - an upload flood: 20 frames of 19 MB of random bytes on a hosted selfie step, with nothing but
//   a session token and a valid challenge, alone and three at once on one session; the body is cut
//   at 64 MB and a second upload of the session is refused unread. The process's peak RSS
//   (VmHWM) before and after is printed (it grew by 360 MB for one and 1.07 GB for three before).
// - mixed-case paths: `/API/v2/...` is a 404 with no-store and adds no metrics route series.
// PostgreSQL from TEST_DATABASE_URL when set, else the embedded store.

const METRICS_TOKEN = 'reliability-metrics-token';
const MB = 1024 * 1024;

let database: { url: string; drop: () => Promise<void> } | undefined;
let verity: VerityProcess;
let demo: DemoTenant;
let workflowId: string;

/** The process's resident memory now (VmRSS), in MB; undefined where /proc is not there. */
async function rssMb(): Promise<number | undefined> {
  const status = `/proc/${verity.pid}/status`;
  if (!existsSync(status)) return undefined;
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(await readFile(status, 'utf8'))?.[1];
  return kb ? Number(kb) / 1024 : undefined;
}

/**
 * How far the process's resident memory rose above where it was, while `attack` ran (sampled
 * every 10 ms: the process's own high-water mark is its start-up, higher than a refused upload).
 */
async function rssRise<T>(attack: () => Promise<T>): Promise<{ result: T; riseMb: number | undefined }> {
  const base = await rssMb();
  let highest = base;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const now = await rssMb();
      if (now !== undefined && highest !== undefined) highest = Math.max(highest, now);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  try {
    const result = await attack();
    // Buffers freed after the answer still count: a few more samples.
    await new Promise((resolve) => setTimeout(resolve, 200));
    return { result, riseMb: base === undefined || highest === undefined ? undefined : highest - base };
  } finally {
    sampling = false;
    await sampler;
  }
}

const json = async (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) => {
  const response = await fetch(`${verity.url}${path}`, {
    ...init,
    headers: { 'content-type': 'application/json', ...init.headers },
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as { data: Record<string, string> },
  };
};

async function openSession(): Promise<string> {
  const created = await json('/api/v2/session', {
    method: 'POST',
    headers: { 'X-API-Key': demo.api_key },
    body: JSON.stringify({ workflow_id: workflowId }),
  });
  expect(created.status).toBe(201);
  return created.body.data.session_token;
}

/** The flood's body: a valid challenge, then 20 frames of the same 19 MB of random bytes (380 MB), chunked. */
async function flood(token: string, frame: Buffer) {
  const challenge = await json('/api/hosted/session/challenge', {
    method: 'POST',
    headers: { 'X-Session-Token': token },
  });
  const parts: Part[] = [
    { field: 'challenge_id', value: challenge.body.data.challenge_id },
    { file: 'frames', bytes: frame, times: 20 },
  ];
  return uploadUntilAnswered(verity.url, '/api/hosted/session/steps/selfie', { 'X-Session-Token': token }, parts);
}

beforeAll(async () => {
  if (process.env.TEST_DATABASE_URL) database = await freshDatabase(process.env.TEST_DATABASE_URL, 'verity_abuse');
  verity = await VerityProcess.start(verityEnv(database?.url ?? '', { VERITY_METRICS_TOKEN: METRICS_TOKEN }));
  demo = await verity.demo();
  workflowId = demo.workflows.kyc; // document, then the selfie burst with its challenge
}, 240_000);

afterAll(async () => {
  await verity?.destroy();
  await database?.drop();
});

describe('an upload flood on a hosted step', () => {
  it('is cut at 64 MB, a second upload of the session is refused unread, and memory stays bounded', async () => {
    const frame = randomBytes(19 * MB);
    const token = await openSession();
    const { result: alone, riseMb: one } = await rssRise(() => flood(token, frame));
    expect([alone.status, alone.body.error?.code, alone.complete]).toEqual([413, 'payload_too_large', false]);

    const { result: together, riseMb: three } = await rssRise(() =>
      Promise.all([1, 2, 3].map(() => flood(token, frame))),
    );
    const outcomes = together.map((answer) => `${answer.status} ${answer.body.error?.code}`).sort();
    // One of them is read up to the cap; the others find the session busy and are refused unread
    // (or, arriving after it was refused, are cut at the cap themselves).
    expect(
      outcomes.every((outcome) => ['409 conflict', '413 payload_too_large'].includes(outcome)),
      outcomes.join(', '),
    ).toBe(true);
    expect(together.every((answer) => !answer.complete && answer.sent < 100 * MB)).toBe(true);

    if (one !== undefined && three !== undefined) {
      console.info(
        `\nupload flood (20 x 19 MB frames, chunked) on POST /api/hosted/session/steps/selfie: RSS rose by ${one.toFixed(0)} MB for one, ${three.toFixed(0)} MB for three at once on one session; bytes sent before each answer: ${[alone, ...together].map((answer) => `${(answer.sent / MB).toFixed(0)} MB`).join(', ')}\n`,
      );
      // Before the caps one flood added 360 MB and three 1.07 GB; a body is now at most 64 MB.
      expect(three).toBeLessThan(300);
    }
  });
});

describe('mixed-case paths', () => {
  it('answer 404 with no-store and add no metrics route series', async () => {
    const scrape = async () => {
      const text = await (
        await fetch(`${verity.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })
      ).text();
      return new Set(
        [...text.matchAll(/^verity_http_requests_total\{[^}]*route="([^"]*)"/gm)].map((match) => match[1]!),
      );
    };
    await scrape();
    const before = await scrape();
    const key = { 'X-API-Key': demo.api_key };
    for (const path of [
      '/API/v2/session',
      '/Api/V2/Session',
      '/api/v2/SESSION',
      '/API/v2/age-verification',
      '/API/hosted/session',
      '/Metrics',
      '/HEALTHZ',
      '/GraphQL',
      '/VERIFY/ses_x',
    ]) {
      for (let i = 0; i < 3; i++) {
        const answer = await fetch(`${verity.url}${path}`, { headers: key });
        expect(answer.status, path).toBe(404);
        if (/^\/api\//i.test(path)) expect(answer.headers.get('cache-control'), path).toBe('no-store');
      }
    }
    const added = [...(await scrape())].filter((route) => !before.has(route) && route !== 'unmatched');
    expect(added).toEqual([]);
  });
});
