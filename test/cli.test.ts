import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedFetch, servedDocument } from './helpers/contract.js';
import { root, verityCommand } from './helpers/compiled.js';
import { freePort, stopProcess, waitReady } from './helpers/processes.js';

// The `verity` command as a person runs it, on an embedded store in a fresh data dir.

const cli = verityCommand;
let dataDir: string;
let port: number;
let env: NodeJS.ProcessEnv;

async function verity(...args: string[]): Promise<{ code: number; out: any; err: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('node', [...cli, ...args], {
      cwd: root,
      env,
      timeout: 60_000,
    });
    return { code: 0, out: JSON.parse(stdout), err: stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, out: failure.stdout, err: failure.stderr };
  }
}

/** The command's answer as a person reads it (`--table`), and its widest line. */
async function forPeople(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)('node', [...cli, ...args, '--table'], {
    cwd: root,
    env,
    timeout: 60_000,
  });
  return stdout.trimEnd();
}
const widest = (text: string) => Math.max(...text.split('\n').map((line) => line.length));

/**
 * Runs the CLI with a module hook that writes every module it loads to a file: what a command
 * loads, as a list of paths under the repository (`node_modules/...`, `src/...`).
 */
async function modulesLoadedBy(
  args: string[],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string; modules: string[]; ms: number }> {
  const log = path.join(dataDir, `modules-${Date.now()}.log`);
  const hooks = `import { appendFileSync } from 'node:fs'; export async function resolve(specifier, context, next) { const resolved = await next(specifier, context); appendFileSync(${JSON.stringify(log)}, resolved.url + '\\n'); return resolved; }`;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
  const started = Date.now();
  const result = await promisify(execFile)(
    'node',
    ['--import', `data:text/javascript,${encodeURIComponent(register)}`, ...cli, ...args],
    { cwd: root, env: { ...env, ...extraEnv }, timeout: 60_000 },
  ).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      stdout: error.stdout,
      stderr: error.stderr,
    }),
  );
  const ms = Date.now() - started;
  const modules = (await readFile(log, 'utf8'))
    .split('\n')
    .filter((url) => url.startsWith('file:'))
    .map((url) => url.replace(/^.*?\/(node_modules|src)\//, '$1/'));
  await rm(log, { force: true });
  return { ...result, modules, ms };
}

async function serve(): Promise<ChildProcess> {
  const child = spawn('node', [...cli, 'serve'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  try {
    await waitReady(`http://127.0.0.1:${port}`, child, Date.now(), 60_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`verity serve did not become ready (${(error as Error).message}): ${output}`);
  }
  return child;
}

/**
 * fetch whose JSON answers are checked against the OpenAPI document (helpers/contract.ts); set once the service runs.
 */
let checked: typeof fetch;
const get = (url: string, headers: Record<string, string> = {}) =>
  checked(`http://127.0.0.1:${port}${url}`, { headers });

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'verity-cli-'));
  port = await freePort();
  // Models are not what this file tests: they load on first use instead of at start.
  env = {
    ...process.env,
    VERITY_DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    DATABASE_URL: '',
    VERITY_WARM_MODELS: '0',
  };
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('verity serve and verity admin on the embedded store', () => {
  // About 30 commands, each a fresh Node process compiling the CLI: generous on a busy 2-core machine.
  it('seeds once, administers a running service, keeps data across restarts', { timeout: 420_000 }, async () => {
    const first = await serve();
    checked = checkedFetch(await servedDocument(`http://127.0.0.1:${port}`));
    let demo: any;
    let createdKey: string;
    let workflowId: string;
    try {
      demo = JSON.parse(await readFile(path.join(dataDir, 'demo.json'), 'utf8'));
      expect(Object.keys(demo)).toEqual(
        expect.arrayContaining([
          'base_url',
          'org_api_url',
          'api_key',
          'webhook_signing_secret',
          'workflows',
          'oidc',
          'org',
          'account',
          'admin_token',
        ]),
      );
      expect(Object.keys(demo.workflows).sort()).toEqual(['age', 'credential', 'full', 'kyc', 'location']);
      expect(demo.base_url).toBe(`http://localhost:${port}`);
      expect(existsSync(path.join(dataDir, 'postgres.url'))).toBe(true);
      expect((await get('/api/v2/nothing', { 'X-API-Key': demo.api_key })).status).toBe(404);

      // verity admin reaches the running service's database through postgres.url.
      const workflow = await verity('admin', 'workflow', 'create', '--features', 'age,location', '--name', 'cli');
      expect(workflow.code).toBe(0);
      expect(workflow.out.features).toEqual(['age', 'location']);
      expect(workflow.out.projectId).toBe(demo.project_id);
      workflowId = workflow.out.id;

      const key = await verity('admin', 'apikey', 'create', '--name', 'cli');
      expect(key.code).toBe(0);
      createdKey = key.out.key;
      expect((await get('/api/v2/nothing', { 'X-API-Key': createdKey })).status).toBe(404);

      const bad = await verity('admin', 'workflow', 'create', '--features', 'telepathy');
      expect(bad.code).toBe(1);
      expect(JSON.parse(bad.err).error.code).toBe('validation_error');

      const callback = await verity('admin', 'callback', 'approve', 'https://hooks.example.com/verity');
      expect(callback.out).toMatchObject({ url: 'https://hooks.example.com/verity', active: true });
      const insecure = await verity('admin', 'callback', 'default', 'http://hooks.example.com/verity');
      expect(JSON.parse(insecure.err).error.code).toBe('callback_not_allowed');
      expect(
        (await verity('admin', 'callback', 'default', 'https://hooks.example.com/app')).out.defaultCallbackUrl,
      ).toBe('https://hooks.example.com/app');
      // Test mode's own destination and secret, set where the live ones are.
      const testDefault = (
        await verity('admin', 'callback', 'default', 'https://hooks.example.com/sandbox', '--mode', 'test')
      ).out;
      expect(testDefault).toMatchObject({
        defaultCallbackUrl: 'https://hooks.example.com/app',
        testDefaultCallbackUrl: 'https://hooks.example.com/sandbox',
      });
      expect(
        (await verity('admin', 'callback', 'approve', 'https://hooks.example.com/sandbox', '--mode', 'test')).out,
      ).toMatchObject({ mode: 'test', active: true });
      const rotatedTest = (await verity('admin', 'callback', 'rotate-secret', '--mode', 'test', '--overlap-hours', '0'))
        .out;
      expect(rotatedTest).toMatchObject({ mode: 'test', webhookSigningSecret: expect.stringMatching(/^whsec_test_/) });
      expect(
        await verity('admin', 'callback', 'default', 'https://hooks.example.com/x', '--mode', 'staging'),
      ).toMatchObject({ code: 1 });

      const client = await verity(
        'admin',
        'oidc-client',
        'create',
        '--name',
        'RP',
        '--redirect-uri',
        'https://rp.example.com/cb',
        '--redirect-uri',
        'https://rp.example.com/cb2',
        '--scopes',
        'openid,profile',
      );
      expect(client.out.client.redirectUris).toEqual(['https://rp.example.com/cb', 'https://rp.example.com/cb2']);
      expect(client.out.clientSecret).toMatch(/^vcs_/);
      expect(client.out.client.requirePkce).toBe(true);
      // a confidential legacy client that cannot send PKCE: registered without it, and required again later
      const legacy = await verity(
        'admin',
        'oidc-client',
        'create',
        '--name',
        'Legacy RP',
        '--redirect-uri',
        'https://legacy.example.com/cb',
        '--no-require-pkce',
      );
      expect(legacy.out.client.requirePkce).toBe(false);
      expect(
        (await verity('admin', 'oidc-client', 'require-pkce', legacy.out.client.clientId, 'yes')).out.requirePkce,
      ).toBe(true);
      expect(
        JSON.parse((await verity('admin', 'oidc-client', 'require-pkce', legacy.out.client.clientId, 'maybe')).err)
          .error.code,
      ).toBe('validation_error');

      // rotate-keys publishes the next key at once and says when it starts signing (after the JWKS max-age)
      const rotated = await verity('admin', 'rotate-keys');
      expect(rotated.code).toBe(0);
      expect(Date.parse(rotated.out.activates_at) - Date.now()).toBeGreaterThan(240_000);
      expect(rotated.out.keys.map((key: { state: string }) => key.state)).toEqual(['next', 'current']);
      expect(rotated.out.keys[0]).toMatchObject({ kid: rotated.out.kid, retires_at: null, published_until: null });
      expect(rotated.out.keys[1].retires_at).toBe(rotated.out.activates_at);
      const jwks = (await (await get('/api/auth/oidc/jwks.json')).json()) as { keys: { kid: string }[] };
      expect(jwks.keys.map((key) => key.kid)).toEqual(rotated.out.keys.map((key: { kid: string }) => key.kid));
      expect((await verity('admin', 'keys')).out).toEqual(rotated.out.keys);
      // for people: the same answer as a table (the default on a terminal), after the subcommand too
      const { stdout: table } = await promisify(execFile)('node', [...cli, 'admin', 'keys', '--table'], {
        cwd: root,
        env,
        timeout: 60_000,
      });
      expect(table.split('\n')[0]).toMatch(/^kid +state +/);
      expect(table).toContain(rotated.out.kid);

      // an import that refuses a row reports every row, then says so on stderr and exits 1
      const roster = path.join(dataDir, 'roster.csv');
      await writeFile(
        roster,
        [
          'state_code,state_name,provider_code,provider_display_name,credential_name,license_number,first_name,middle_name,last_name,status,issued_at,expires_at,specialty,npi',
          'WA,Washington,RN,Washington Nursing Commission,Registered Nurse,RN-CLI-1,Ada,,Lovelace,active,2020-01-01,2030-01-01,,',
          'WA,Washington,RN,Washington Nursing Commission,Registered Nurse,RN-CLI-2,Alan,,Turing,sleeping,2020-01-01,2030-01-01,,',
        ].join('\n'),
      );
      const imported = await verity('admin', 'import-licenses', roster);
      expect(imported.code).toBe(1);
      expect(JSON.parse(imported.out as unknown as string)).toMatchObject({
        licenses: 1,
        rejectedCount: 1,
        rejected: [{ line: 3 }],
      });
      expect(imported.err).toMatch(/^verity: 1 row refused \(1 imported\): line 3: /);

      const org = await verity('admin', 'org-app', 'create', '--org-name', 'Acme');
      expect(
        (await get('/api/sdk/x', { 'X-Client-Id': org.out.app.clientId, 'X-Client-Secret': org.out.clientSecret }))
          .status,
      ).toBe(404);

      expect(
        (await verity('admin', 'account', 'create', '--email', 'Nurse@Example.com', '--password', 'correct horse')).out
          .email,
      ).toBe('nurse@example.com');
      const token = await verity('admin', 'admin-token', 'create', '--role', 'viewer');
      expect(token.out).toMatchObject({ role: 'viewer', projectId: null });
      // Roster operations: plans, the development outbox, the audit trail.
      const invited = await checked(`http://127.0.0.1:${port}/api/sdk/members`, {
        method: 'POST',
        headers: {
          'X-Client-Id': demo.org.client_id,
          'X-Client-Secret': demo.org.client_secret,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ members: [{ email: 'Cli.Invite@Example.com' }], invite: 'email', notify: true }),
      });
      expect(invited.status).toBe(201);
      const outbox = await verity('admin', 'outbox', 'list', '--to', 'cli.invite@example.com');
      expect(outbox.out).toHaveLength(1);
      expect(outbox.out[0].text).toContain('/activate/');
      const audit = await verity('admin', 'roster', 'audit', '--org-id', String(demo.org.id));
      expect(audit.out.map((entry: { action: string }) => entry.action)).toContain('add');
      const plan = await verity(
        'admin',
        'plan',
        'set',
        '--org-id',
        String(demo.org.id),
        '--plan',
        'pro',
        '--price-per-seat',
        '7.5',
      );
      expect(plan.out).toMatchObject({ plan: 'pro', pricePerSeat: 7.5 });
      expect(
        (await verity('admin', 'plan', 'set', '--org-id', '999999', '--plan', 'pro', '--price-per-seat', '1')).code,
      ).toBe(1);

      // Sessions and webhooks, as ops read them.
      const session = await checked(`http://127.0.0.1:${port}/api/v2/session`, {
        method: 'POST',
        headers: { 'X-API-Key': demo.api_key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ workflow_id: demo.workflows.location, vendor_data: 'cli' }),
      });
      const sessionId = ((await session.json()) as { data: { session_id: string } }).data.session_id;
      const listed = await verity('admin', 'session', 'list', '--vendor-data', 'cli');
      expect(listed.out.sessions.map((entry: { session_id: string }) => entry.session_id)).toEqual([sessionId]);
      const shown = await verity('admin', 'session', 'show', sessionId);
      expect(shown.out.timeline[0]).toMatchObject({ to: 'NOT_STARTED' });

      // For people: tables fit 100 columns and say test or live; --wide prints every column whole;
      // `session show` never cuts the decision. (Test events are kept, not sent: no destination.)
      await verity('admin', 'callback', 'default', 'none', '--mode', 'test');
      const testKey = (await verity('admin', 'apikey', 'create', '--mode', 'test', '--name', 'sandbox')).out.key;
      const longVendorData = 'a-correlation-string-long-enough-to-be-cut-in-a-table-0123456789@example.com';
      const declined = await checked(`http://127.0.0.1:${port}/api/v2/session`, {
        method: 'POST',
        headers: { 'X-API-Key': testKey, 'Content-Type': 'application/json', 'Verity-Test-Outcome': 'decline' },
        body: JSON.stringify({ workflow_id: demo.workflows.location, vendor_data: longVendorData }),
      });
      const declinedId = ((await declined.json()) as { data: { session_id: string } }).data.session_id;
      const sessionsTable = await forPeople('admin', 'session', 'list');
      expect(widest(sessionsTable)).toBeLessThanOrEqual(100);
      expect(sessionsTable).toMatch(/^session_id +mode +status +vendor_data +created_at$/m);
      expect(sessionsTable).toMatch(new RegExp(`^${declinedId} +test +DECLINED +a-correlation`, 'm'));
      expect(sessionsTable).toMatch(new RegExp(`^${sessionId} +live +NOT_STARTED +cli `, 'm'));
      expect(sessionsTable).not.toContain(longVendorData);
      const wideSessions = await forPeople('admin', 'session', 'list', '--wide');
      expect(wideSessions).toContain(longVendorData);
      expect(wideSessions).toMatch(/^session_id +mode +status +workflow_id +features /m);
      expect(widest(wideSessions)).toBeGreaterThan(100);
      const showTable = await forPeople('admin', 'session', 'show', declinedId);
      expect(widest(showTable)).toBeLessThanOrEqual(100);
      expect(showTable).toMatch(/^ {2}decision +DECLINED$/m);
      expect(showTable).toMatch(/^ {2}mode +test$/m);
      expect(showTable).toContain(`vendor_data  ${longVendorData}`);
      expect(showTable).toMatch(/^timeline:\nfrom +to +actor +reason +at$/m);
      expect(showTable).toMatch(
        /^webhooks:\nevent_id +mode +type +state +created_at\nevt_\w+ +test +verification\.declined +no_destination /m,
      );
      const keysTable = await forPeople('admin', 'apikey', 'list');
      expect(widest(keysTable)).toBeLessThanOrEqual(100);
      expect(keysTable).toMatch(/^id +mode +name +prefix +createdAt/);
      expect(keysTable).toMatch(/^key_\w+ +test +sandbox +vk_test_/m);
      expect(keysTable).toMatch(/^key_\w+ +live +default +vk_live_/m);
      // the one event so far: the test session's, kept (no test destination)
      expect((await verity('admin', 'webhook', 'list')).out).toMatchObject([
        { session_id: declinedId, type: 'verification.declined', livemode: false, state: 'no_destination' },
      ]);
      expect((await verity('admin', 'webhook', 'health')).out).toEqual([]);
      expect(
        (
          await verity(
            'admin',
            'webhook',
            'resend-failed',
            '--from',
            '2026-01-01T00:00:00Z',
            '--to',
            '2026-02-01T00:00:00Z',
          )
        ).out,
      ).toEqual({
        from: '2026-01-01T00:00:00Z',
        to: '2026-02-01T00:00:00Z',
        queued: 0,
        limitReached: false,
      });

      const project = await verity('admin', 'project', 'create', '--name', 'Second', '--balance', '50');
      expect(project.out.project.balance).toBe(50);
      expect(project.out.key).toMatch(/^vk_live_/);
    } finally {
      expect(await stopProcess(first)).toBe(0);
    }
    expect(existsSync(path.join(dataDir, 'postgres.url'))).toBe(false);

    // With no service running, verity admin opens the data dir itself.
    const offline = await verity('admin', 'workflow', 'list');
    expect(offline.code).toBe(0);
    expect(offline.out.map((w: { id: string }) => w.id)).toContain(workflowId);
    expect((await verity('migrate')).out).toEqual({ applied: [] });

    const second = await serve();
    try {
      const again = JSON.parse(await readFile(path.join(dataDir, 'demo.json'), 'utf8'));
      expect(again.api_key).toBe(demo.api_key);
      expect((await get('/api/v2/nothing', { 'X-API-Key': createdKey })).status).toBe(404);
      expect((await get('/api/v2/nothing', { 'X-API-Key': demo.api_key })).status).toBe(404);
      const projects = await verity('admin', 'project', 'list');
      expect(projects.out.filter((p: { isDemo: boolean }) => p.isDemo)).toHaveLength(1);
    } finally {
      expect(await stopProcess(second)).toBe(0);
    }
  });

  it('fails a start it cannot make with one line and exit 1', async () => {
    const start = (extra: NodeJS.ProcessEnv) =>
      promisify(execFile)('node', [...cli, 'serve'], {
        cwd: root,
        env: { ...env, PORT: '0', ...extra },
        timeout: 60_000,
      }).catch((e) => e);
    const unreachable = await start({ DATABASE_URL: 'postgresql://verity@127.0.0.1:1/verity' });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr.trim()).toMatch(
      /^verity: cannot reach the database at 127\.0\.0\.1:1 \(DATABASE_URL\): .*ECONNREFUSED/,
    );
    const typo = await start({ DATABASE_URL: 'postgres//localhost/verity' });
    expect(typo.code).toBe(1);
    expect(typo.stderr.trim()).toBe(
      'verity: DATABASE_URL is not a URL: expected postgresql://user:password@host:5432/database',
    );
    const keyless = await start({ NODE_ENV: 'production', VERITY_ENCRYPTION_KEY: '' });
    expect(keyless.code).toBe(1);
    expect(keyless.stderr.trim()).toMatch(/^verity: VERITY_ENCRYPTION_KEY is not set: in production /);
    const collector = await start({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4317' });
    expect(collector.code).toBe(1);
    expect(collector.stderr.trim()).toBe(
      'verity: OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL (OTLP over HTTP)',
    );
  });

  it('prints its version and its help without loading any server part', async () => {
    const { version } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version: string };
    const printed = await modulesLoadedBy(['--version']);
    expect(printed.stdout.trim()).toBe(version);
    // commander, the error catalog and the printing helpers: no configuration, database, core, HTTP or model code.
    expect(
      printed.modules.filter(
        (module) => !/^(src\/cli(\.js|\/)|src\/core\/errors\.js|node_modules\/commander\/)/.test(module),
      ),
    ).toEqual([]);
    const help = await modulesLoadedBy(['--help']);
    expect(help.stdout).toContain('Usage: verity');
    expect(widest(help.stdout)).toBeLessThanOrEqual(100);
    expect(help.modules).toEqual(printed.modules);
    console.info(
      `verity --version took ${printed.ms} ms, --help ${help.ms} ms (whole process, under the test runner's load)`,
    );
  });

  it('fails a start on a busy port at once, before it opens the store, migrates, loads models or starts jobs', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    const busy = (blocker.address() as net.AddressInfo).port;
    const fresh = await mkdtemp(path.join(os.tmpdir(), 'verity-cli-busy-'));
    try {
      const start = await modulesLoadedBy(['serve'], {
        PORT: String(busy),
        VERITY_DATA_DIR: fresh,
        VERITY_WARM_MODELS: '1',
      });
      expect(start.code).toBe(1);
      expect(start.stderr).toBe(`verity: port ${busy} on 127.0.0.1 is in use: stop what listens there or set PORT\n`);
      expect(start.stdout).toBe('');
      // nothing opened: no store, lock or key in the data dir; no database, core, HTTP or model code loaded
      expect(await readdir(fresh)).toEqual([]);
      const heavy =
        /^src\/(main\.js|core\/db\/|core\/index\.js|rest\/|graph\/|ml\/(tf\.js|document\/|liveness\/|faces\/(nets|runtime|pool|worker)))|^node_modules\/(@mikro-orm|@electric-sql|pg|pg-boss|express|onnxruntime-node|@tensorflow|@vladmandic|sharp)\//;
      expect(start.modules.filter((module) => heavy.test(module))).toEqual([]);
      console.info(
        `verity serve on a busy port failed after ${start.ms} ms (whole process, under the test runner's load)`,
      );
    } finally {
      blocker.close();
      await rm(fresh, { recursive: true, force: true });
    }
  });

  it('refuses a second service on the same data dir or the same port', { timeout: 240_000 }, async () => {
    const first = await serve();
    try {
      const clash = await promisify(execFile)('node', [...cli, 'serve'], {
        cwd: root,
        env: { ...env, PORT: String(await freePort()) },
        timeout: 60_000,
      }).catch((e) => e);
      expect(clash.code).toBe(1);
      expect(clash.stderr).toContain('is in use by process');
      // another data dir, the same port: one clear line and exit 1, not a service left running unbound
      const otherDir = await mkdtemp(path.join(os.tmpdir(), 'verity-cli-port-'));
      try {
        const taken = await promisify(execFile)('node', [...cli, 'serve'], {
          cwd: root,
          env: { ...env, VERITY_DATA_DIR: otherDir },
          timeout: 90_000,
        }).catch((e) => e);
        expect(taken.code).toBe(1);
        expect(taken.stderr).toContain(`verity: port ${port} on`);
        expect(taken.stderr).toContain('is in use');
        expect(taken.stdout).not.toContain('verity is listening');
      } finally {
        await rm(otherDir, { recursive: true, force: true });
      }
    } finally {
      await stopProcess(first);
    }
  });

  it('draws a progress bar on a terminal while it imports, and nothing with --json or when piped', {
    timeout: 240_000,
  }, async () => {
    const roster = path.join(dataDir, 'progress.csv');
    const rows = Array.from(
      { length: 3000 },
      (_, i) =>
        `OR,Oregon,RN,Oregon Nursing Board,Registered Nurse,RN-BAR-${i},Ada,,Lovelace,${i === 7 ? 'sleeping' : 'active'},2020-01-01,2030-01-01,,`,
    );
    await writeFile(
      roster,
      [
        'state_code,state_name,provider_code,provider_display_name,credential_name,license_number,first_name,middle_name,last_name,status,issued_at,expires_at,specialty,npi',
        ...rows,
      ].join('\n'),
    );
    // `script` (util-linux) runs the command on a pseudo-terminal: stdout and stderr are a TTY, as for a person.
    const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;
    const onTerminal = (...args: string[]) =>
      promisify(execFile)('script', ['-qefc', ['node', ...cli, ...args].map(quote).join(' '), '/dev/null'], {
        cwd: root,
        env,
        timeout: 120_000,
      }).then(
        ({ stdout }) => ({ code: 0, screen: stdout }),
        (error: { code: number; stdout: string }) => ({ code: error.code, screen: error.stdout }),
      );

    const person = await onTerminal('admin', 'import-licenses', roster);
    expect(person.code).toBe(1);
    expect(person.screen).toContain('importing licences [');
    expect(person.screen).toContain('100% 3,000/3,000');
    // The bar's line is cleared before the answer: a table, then the refusal summary.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the bar's line is cleared by ESC [ K
    expect(person.screen).toMatch(/\r\x1b\[K[\s\S]*licenses +2999/);
    expect(person.screen).toContain('verity: 1 row refused (2999 imported): line 9: ');

    const script = await onTerminal('--json', 'admin', 'import-licenses', roster);
    expect(script.code).toBe(1);
    expect(script.screen).not.toContain('importing licences');
    expect(script.screen).not.toContain('\x1b');
    expect(JSON.parse(script.screen.slice(0, script.screen.indexOf('verity: ')))).toMatchObject({
      licenses: 2999,
      rejectedCount: 1,
    });

    const piped = await verity('admin', 'import-licenses', roster);
    expect(piped.code).toBe(1);
    expect(piped.err).toBe(
      'verity: 1 row refused (2999 imported): line 9: status must be one of active, expired, suspended, revoked\n',
    );
  });
});
