import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer } from './helpers/processes.js';
import { type ListeningService, startListeningService } from './helpers/service.js';

// The SDK as an integrator gets it: `npm pack` builds the tarball, a throwaway TypeScript project
// installs it, `tsc` (strict, library checks on) compiles a program against its declarations with
// the DOM lib and without it, with @types/node and without, and plain `node` runs the compiled
// program, as an ES module and as CommonJS, against the real service on a loopback port.

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');

/**
 * What the ES module program does; it prints one JSON line. Only what every lib has (ES2022) is used outside the SDK.
 */
const ESM_PROGRAM = `
import { type Fetch, type Session, VerityClient, VerityError, verifyWebhook } from '@verity/sdk';
import { verifyWebhook as verifyFromSubpath } from '@verity/sdk/webhooks';

const host = globalThis as unknown as { process: { env: Record<string, string | undefined> }; console: { log(text: string): void } };
const env = host.process.env;
const verity = new VerityClient({ baseUrl: env.VERITY_URL!, apiKey: env.VERITY_TEST_KEY!, autoIdempotencyKey: true });

const vendorData = 'package-' + env.VERITY_RUN;
const made: string[] = [];
for (const testOutcome of ['approve', 'decline', 'review'] as const) {
  made.push((await verity.createSession({ workflow_id: env.VERITY_WORKFLOW!, vendor_data: vendorData }, { testOutcome })).session_id);
}
const read: Session = await verity.getSession(made[0]!);
const listed: string[] = [];
for await (const session of verity.iterateSessions({ vendor_data: vendorData, limit: 1 })) listed.push(session.session_id);

const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16]);
const check = await verity.faceMatch({ image1: jpeg, image2: { data: jpeg, filename: 'selfie.jpg' } }, { testOutcome: 'approve' });

let notFound: Record<string, unknown> = {};
try {
  await verity.getSession('00000000-0000-0000-0000-000000000000');
} catch (error) {
  if (error instanceof VerityError) notFound = { name: error.name, status: error.status, code: error.code, message: error.message, requestId: error.requestId };
}

// A forced 429 comes with Retry-After: 1; one retry waits for it.
const realFetch = (globalThis as unknown as { fetch: Fetch }).fetch;
let attempts = 0;
const counting: Fetch = (input, init) => {
  attempts++;
  return realFetch(input, init);
};
const limited = new VerityClient({ baseUrl: env.VERITY_URL!, apiKey: env.VERITY_TEST_KEY!, fetch: counting, maxRetries: 1 });
const started = Date.now();
const rateLimited = (await limited.location({ latitude: 1, longitude: 2 }, { testOutcome: 'rate_limited' }).catch((error: unknown) => error)) as VerityError;

const delivery = JSON.parse(env.VERITY_DELIVERY!) as { rawBody: string; headers: Record<string, string> };
const webhook = verifyWebhook({ rawBody: delivery.rawBody, headers: delivery.headers, secret: env.VERITY_SECRET! });
const tampered = verifyFromSubpath({ rawBody: delivery.rawBody.replace('APPROVED', 'DECLINED'), headers: delivery.headers, secret: env.VERITY_SECRET! });

host.console.log(JSON.stringify({
  made, read: { session_id: read.session_id, status: read.status, livemode: read.livemode }, listed,
  check: { status: check.status, type: check.check.type },
  notFound,
  rateLimited: { code: rateLimited.code, retryAfterMs: rateLimited.retryAfterMs, attempts, waitedMs: Date.now() - started },
  webhook: webhook.ok ? { ok: true, eventId: webhook.eventId, livemode: webhook.livemode } : webhook,
  tampered,
}));

// The types are the document's, not any: each call below must fail to compile (it never runs).
export function refusedByTheTypes(): void {
  // @ts-expect-error an unknown field of POST /api/v2/session
  verity.createSession({ workflow_idd: 'wf' });
  // @ts-expect-error the session id is a path parameter, required
  verity.request('getSessionById', {});
  // @ts-expect-error not a list operation
  verity.paginate('getSessionById', { path: { id: 'x' } });
  // @ts-expect-error no such operation
  verity.request('getNothing');
  // @ts-expect-error a session body takes no files
  verity.createSession({ workflow_id: new Uint8Array() });
}
`;

/** The CommonJS program: `import` compiles to `require` in a .cts file. */
const CJS_PROGRAM = `
import { VerityClient, VerityError } from '@verity/sdk';
import { verifyWebhook } from '@verity/sdk/webhooks';

const host = globalThis as unknown as { process: { env: Record<string, string | undefined> }; console: { log(text: string): void } };
const env = host.process.env;

async function main(): Promise<void> {
  const verity = new VerityClient({ baseUrl: env.VERITY_URL!, apiKey: env.VERITY_TEST_KEY! });
  const created = await verity.createSession({ workflow_id: env.VERITY_WORKFLOW!, vendor_data: 'cjs-' + env.VERITY_RUN }, { testOutcome: 'decline', idempotencyKey: 'cjs-' + env.VERITY_RUN });
  const replayed = await verity.createSession({ workflow_id: env.VERITY_WORKFLOW!, vendor_data: 'cjs-' + env.VERITY_RUN }, { testOutcome: 'decline', idempotencyKey: 'cjs-' + env.VERITY_RUN });
  const decision = await verity.getSessionDecision(created.session_id);
  const error = await verity.request('getSessionById', { path: { id: 'missing' } }).catch((e: unknown) => e);
  const delivery = JSON.parse(env.VERITY_DELIVERY!) as { rawBody: string; headers: Record<string, string> };
  const webhook = verifyWebhook({ rawBody: delivery.rawBody, headers: delivery.headers, secret: env.VERITY_SECRET! });
  host.console.log(JSON.stringify({
    created: created.session_id, replayed: replayed.session_id, decision: decision.status,
    error: error instanceof VerityError ? { code: error.code, requestId: error.requestId } : String(error),
    webhook: webhook.ok,
  }));
}
main().catch((error: unknown) => {
  host.console.log(JSON.stringify({ failed: String(error) }));
});
`;

const tsconfig = (compilerOptions: Record<string, unknown>) =>
  JSON.stringify({
    compilerOptions: {
      strict: true,
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      skipLibCheck: false,
      ...compilerOptions,
    },
    files: ['esm.ts', 'cjs.cts'],
  });

let project: string;
let service: ListeningService;
let receiver: http.Server;
let programEnv: NodeJS.ProcessEnv;

/** Runs a compiled program with plain node; its last stdout line is its JSON report. */
async function runProgram(file: string): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [file], { cwd: project, env: programEnv, timeout: 60_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

beforeAll(async () => {
  project = await mkdtemp(path.join(os.tmpdir(), 'verity-sdk-consumer-'));
  // `npm pack` runs the package's prepack: the ESM and CJS builds.
  await run('npm', ['pack', '--pack-destination', project, '--silent'], {
    cwd: path.join(root, 'packages/sdk'),
    timeout: 240_000,
  });
  const tarball = (await readdir(project)).find((file) => file.endsWith('.tgz'))!;
  await writeFile(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }),
  );
  await run('npm', ['install', `./${tarball}`, '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: project,
    timeout: 120_000,
  });
  await writeFile(path.join(project, 'esm.ts'), ESM_PROGRAM);
  await writeFile(path.join(project, 'cjs.cts'), CJS_PROGRAM);
  await writeFile(path.join(project, 'tsconfig.json'), tsconfig({ lib: ['ES2022', 'DOM'], types: [] }));
  await writeFile(
    path.join(project, 'tsconfig.node.json'),
    tsconfig({ lib: ['ES2022'], typeRoots: [path.join(root, 'node_modules/@types')], types: ['node'], noEmit: true }),
  );
  await writeFile(path.join(project, 'tsconfig.bare.json'), tsconfig({ lib: ['ES2022'], types: [], noEmit: true }));

  service = await startListeningService({ runJobs: true, allowInsecureCallbacks: true });
  const projectId = service.demo.project_id;
  const { key: testKey } = await service.core.tenancy.createApiKey({ projectId, mode: 'test' });
  const { webhookSigningSecret } = await service.core.tenancy.rotateWebhookSecret({
    projectId,
    mode: 'test',
    overlapHours: 0,
  });
  const workflowId = (await service.core.tenancy.createWorkflow({ projectId, name: 'package', features: ['location'] }))
    .id;
  // A real delivery for the programs' verifyWebhook: a forced approval sent to a test receiver.
  const deliveries: { rawBody: string; headers: http.IncomingHttpHeaders }[] = [];
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      deliveries.push({ rawBody: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const callback = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  await service.core.tenancy.approveCallback({ projectId, url: callback, mode: 'test' });
  const created = await fetch(`${service.url}/api/v2/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': testKey, 'verity-test-outcome': 'approve' },
    body: JSON.stringify({ workflow_id: workflowId, callback }),
  });
  expect(created.status).toBe(201);
  const started = Date.now();
  while (deliveries.length === 0 && Date.now() - started < 40_000)
    await new Promise((resolve) => setTimeout(resolve, 200));
  const delivery = deliveries[0]!;
  programEnv = {
    PATH: process.env.PATH,
    VERITY_URL: service.url,
    VERITY_TEST_KEY: testKey,
    VERITY_WORKFLOW: workflowId,
    VERITY_SECRET: webhookSigningSecret,
    VERITY_RUN: String(Date.now()),
    VERITY_DELIVERY: JSON.stringify({ rawBody: delivery.rawBody, headers: delivery.headers }),
  };
}, 400_000);

afterAll(async () => {
  await closeServer(receiver);
  await service?.close();
  if (project) await rm(project, { recursive: true, force: true });
});

describe('the packed SDK in a throwaway TypeScript project', () => {
  it('type-checks strictly with the DOM lib, with @types/node, and with neither', { timeout: 240_000 }, async () => {
    for (const config of ['tsconfig.json', 'tsconfig.node.json', 'tsconfig.bare.json']) {
      const compiled = await run(process.execPath, [tsc, '-p', config], { cwd: project, timeout: 120_000 }).catch(
        (error: { stdout: string }) => ({ stdout: error.stdout, failed: true }),
      );
      expect({ config, ...compiled }).toMatchObject({ config, stdout: '' });
    }
    // The ES module program loads the ESM build, the CommonJS one the CJS build.
    const resolve =
      "import { createRequire } from 'node:module'; const require = createRequire(process.cwd() + '/'); console.log(import.meta.resolve('@verity/sdk'), require.resolve('@verity/sdk'), require.resolve('@verity/sdk/webhooks'))";
    const { stdout: resolved } = await run(process.execPath, ['--input-type=module', '-e', resolve], { cwd: project });
    const [esm, cjs, webhooks] = resolved.trim().split(' ');
    expect(esm).toMatch(/node_modules\/@verity\/sdk\/dist\/esm\/index\.js$/);
    expect(cjs).toMatch(/node_modules\/@verity\/sdk\/dist\/cjs\/index\.js$/);
    expect(webhooks).toMatch(/node_modules\/@verity\/sdk\/dist\/cjs\/webhooks\.js$/);
  });

  it('runs with plain node as an ES module: sessions, list iteration, a forced check, errors, retries, webhooks', {
    timeout: 120_000,
  }, async () => {
    const report = await runProgram('esm.js');
    const made = report.made as string[];
    expect(made).toHaveLength(3);
    expect(report.read).toEqual({ session_id: made[0], status: 'APPROVED', livemode: false });
    expect([...(report.listed as string[])].sort()).toEqual([...made].sort());
    expect(report.check).toEqual({ status: 'passed', type: 'face_match' });
    expect(report.notFound).toMatchObject({
      name: 'VerityError',
      status: 404,
      code: 'not_found',
      message: expect.stringMatching(/\w/),
      requestId: expect.stringMatching(/\S/),
    });
    expect(report.rateLimited).toMatchObject({ code: 'rate_limited', retryAfterMs: 1000, attempts: 2 });
    expect((report.rateLimited as { waitedMs: number }).waitedMs).toBeGreaterThanOrEqual(1000);
    expect(report.webhook).toEqual({
      ok: true,
      eventId: JSON.parse(JSON.parse(programEnv.VERITY_DELIVERY!).rawBody).event_id,
      livemode: false,
    });
    expect(report.tampered).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('runs with plain node as CommonJS: an idempotent create replayed, a decision, an error, a webhook', {
    timeout: 120_000,
  }, async () => {
    const report = await runProgram('cjs.cjs');
    expect(report).toMatchObject({
      created: expect.any(String),
      decision: 'DECLINED',
      error: { code: 'not_found', requestId: expect.any(String) },
      webhook: true,
    });
    expect(report.replayed).toBe(report.created);
  });
});
