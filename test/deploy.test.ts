import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Copy, DockerfileParser, type Instruction } from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PgBossJobs } from '../src/core/jobs.js';
import { root, verityCommand } from './helpers/compiled.js';
import { freePort, freshDatabase, stopProcess } from './helpers/processes.js';

// The deployment files: the Dockerfile, compose.yaml and ops/nginx.conf. No container engine runs
// on the machines this project is built on, so the image is not built here (.ci/run builds it
// where `docker info` answers). Instead: the Dockerfile is linted and checked for what the image
// must hold, the compose file and the proxy config are checked against it, and the compose
// arrangement runs on loopback with the same files: the migrations once, two instances on one
// fresh database, nginx with ops/nginx.conf in front (needs TEST_DATABASE_URL and nginx).

const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const dockerfileText = read('Dockerfile');
const dockerfile = DockerfileParser.parse(dockerfileText);
const compose = parse(read('compose.yaml'), { merge: true }) as {
  services: Record<string, Service>;
  'x-verity': Service;
};
const nginxConf = read('ops/nginx.conf');

interface Service {
  build?: string;
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
}

/** The instructions of the last stage: what the image runs. */
function runtimeStage(): Instruction[] {
  const instructions = dockerfile.getInstructions();
  const lastFrom = instructions.map((instruction) => instruction.getKeyword()).lastIndexOf('FROM');
  return instructions.slice(lastFrom + 1);
}
const stageInstructions = (keyword: string) =>
  runtimeStage().filter((instruction) => instruction.getKeyword() === keyword);
/** `ENV` of the runtime stage as a map. */
function runtimeEnv(): Record<string, string> {
  return Object.fromEntries(
    stageInstructions('ENV').flatMap((instruction) =>
      instruction
        .getArgumentsContent()!
        .trim()
        .split(/\s+/)
        .map((pair) => pair.split('=') as [string, string]),
    ),
  );
}
/** The exec form of an instruction (`["node", "-e", "..."]`) as its argument list. */
const execForm = (instruction: Instruction, skip = 0): string[] =>
  JSON.parse(instruction.getArgumentsContent()!.slice(skip).trim()) as string[];
const healthcheckCommand = () => execForm(stageInstructions('HEALTHCHECK')[0]!, 'CMD'.length);

/** What `.dockerignore` lets into the build context: it excludes everything and lists what it allows. */
function inBuildContext(file: string): boolean {
  const rules = read('.dockerignore')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  expect(rules[0]).toBe('*');
  return rules
    .slice(1)
    .some(
      (rule) =>
        rule.startsWith('!') &&
        (file === rule.slice(1).replace(/\/$/, '') || file.startsWith(rule.slice(1).replace(/\/?$/, '/'))),
    );
}

/** The servers of an nginx `upstream NAME { ... }` block. */
function upstreamServers(conf: string, name: string): string[] {
  const block = new RegExp(`upstream\\s+${name}\\s*\\{([^}]*)\\}`).exec(conf)?.[1] ?? '';
  return [...block.matchAll(/^\s*server\s+(\S+?)(?:\s[^;]*)?;/gm)].map((match) => match[1]!);
}

describe('Dockerfile', () => {
  it('passes the linter with nothing to say', () => {
    expect(
      validate(dockerfileText).map((diagnostic) => `line ${diagnostic.range.start.line + 1}: ${diagnostic.message}`),
    ).toEqual([]);
  });

  it('builds in stages and runs as a non-root user, on the port it exposes, checked on /readyz', () => {
    expect(dockerfile.getFROMs().map((from) => from.getBuildStage())).toEqual(['build', 'deps', 'runtime']);
    const user = stageInstructions('USER').at(-1)!.getArgumentsContent()!.trim();
    expect(user.split(':')[0]).not.toMatch(/^(0|root)$/);
    expect(Number(user.split(':')[0])).toBeGreaterThan(0);
    const env = runtimeEnv();
    expect(env).toMatchObject({ NODE_ENV: 'production', HOST: '0.0.0.0' });
    expect(stageInstructions('EXPOSE').map((expose) => expose.getArgumentsContent())).toEqual([env.PORT]);
    expect(healthcheckCommand().join(' ')).toContain('/readyz');
    expect(stageInstructions('HEALTHCHECK')[0]!.getArgumentsContent()).toMatch(/^CMD /);
    expect(execForm(stageInstructions('ENTRYPOINT')[0]!)).toEqual(['node', '/app/dist/src/cli.js']);
    expect(execForm(stageInstructions('CMD')[0]!)).toEqual(['serve']);
  });

  it('puts into the image what the service reads at run time, from a build context that lets it in', () => {
    const copies = stageInstructions('COPY') as Copy[];
    const fromStages = copies
      .filter((copy) => copy.getFromFlag())
      .map((copy) => `${copy.getFromFlag()!.getValue()}:${copy.getArgumentsContent()}`);
    expect(fromStages).toEqual(['deps:/app/node_modules ./node_modules', 'build:/app/dist ./dist']);
    const fromContext = copies
      .filter((copy) => !copy.getFromFlag())
      .flatMap((copy) => copy.getArgumentsContent()!.trim().split(/\s+/).slice(0, -1));
    // package.json (the version, the root src/web/assets.ts looks for), page templates, the weights of models/, the
    // sample roster, the guides /docs renders
    expect(fromContext.sort()).toEqual(['data', 'docs/guides', 'models', 'package.json', 'web/templates']);
    for (const file of fromContext) {
      expect(existsSync(path.join(root, file)), file).toBe(true);
      expect(inBuildContext(file), `${file} in .dockerignore's allow-list`).toBe(true);
    }
    const buildCopies = dockerfile
      .getInstructions()
      .filter((instruction) => instruction.getKeyword() === 'COPY' && !(instruction as Copy).getFromFlag())
      .flatMap((copy) => copy.getArgumentsContent()!.trim().split(/\s+/).slice(0, -1));
    for (const file of buildCopies) expect(inBuildContext(file), `${file} in .dockerignore's allow-list`).toBe(true);
    expect(inBuildContext('node_modules')).toBe(false);
    expect(inBuildContext('.verity/demo.json')).toBe(false);
    // onnxruntime-node's install script (a GPU download) never runs: no install script does.
    expect(
      dockerfile
        .getInstructions()
        .filter((instruction) => /npm ci/.test(instruction.getArgumentsContent() ?? ''))
        .every((run) => run.getArgumentsContent()!.includes('--ignore-scripts')),
    ).toBe(true);
  });
});

describe('compose.yaml and ops/nginx.conf', () => {
  const services = compose.services;
  const instances = Object.keys(services).filter((name) => services[name]!.build === '.' && !services[name]!.command);

  it('runs PostgreSQL, the migrations once, two instances of the image and a proxy', () => {
    expect(Object.keys(services).sort()).toEqual(['migrate', 'postgres', 'proxy', 'verity-1', 'verity-2']);
    expect(instances).toEqual(['verity-1', 'verity-2']);
    expect(services.migrate).toMatchObject({
      build: '.',
      command: ['migrate'],
      depends_on: { postgres: { condition: 'service_healthy' } },
    });
    expect(services.postgres!.healthcheck!.test).toContain('pg_isready');
    for (const name of instances)
      expect(services[name]!.depends_on).toEqual({ migrate: { condition: 'service_completed_successfully' } });
  });

  it('wires every instance to the compose PostgreSQL and requires the secrets', () => {
    const postgres = services.postgres!.environment!;
    for (const name of [...instances, 'migrate']) {
      const env = services[name]!.environment!;
      const database = new URL(env.DATABASE_URL!.replace(/\$\{[^}]+\}/, 'secret'));
      expect(database.host).toBe('postgres:5432');
      expect(database.pathname).toBe(`/${postgres.POSTGRES_DB}`);
      expect(database.username).toBe(postgres.POSTGRES_USER);
      // compose refuses to start without them (${VAR:?message}): no default key, no default password
      expect(env.DATABASE_URL).toMatch(/\$\{POSTGRES_PASSWORD:\?/);
      expect(env.VERITY_ENCRYPTION_KEY).toMatch(/^\$\{VERITY_ENCRYPTION_KEY:\?/);
    }
    expect(postgres.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
  });

  it('puts the proxy in front of both instances, on the port the image exposes', () => {
    expect(services.proxy!.volumes).toContain('./ops/nginx.conf:/etc/nginx/nginx.conf:ro');
    expect(services.proxy!.depends_on).toEqual(
      Object.fromEntries(instances.map((name) => [name, { condition: 'service_healthy' }])),
    );
    expect(upstreamServers(nginxConf, 'verity')).toEqual(instances.map((name) => `${name}:${runtimeEnv().PORT}`));
    expect(nginxConf).toMatch(/location \/ \{[^}]*proxy_pass http:\/\/verity;/);
    // the check routes' largest body (64 MB of base64 images) gets through
    expect(nginxConf).toMatch(/client_max_body_size 64m;/);
    expect(compose['x-verity'].environment!.VERITY_BASE_URL).toContain(services.proxy!.ports![0]!.split(':')[0]);
  });
});

const server = process.env.TEST_DATABASE_URL;
if (!server) console.info('skipping instances starting together: they need TEST_DATABASE_URL (a PostgreSQL server)');

describe.runIf(server)('instances starting together on one database', () => {
  it('apply the migrations once: two `verity migrate` at the same time both succeed', {
    timeout: 180_000,
  }, async () => {
    const database = await freshDatabase(server!, 'verity_deploy');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'verity-deploy-'));
    const env = {
      ...process.env,
      DATABASE_URL: database.url,
      VERITY_DATA_DIR: dir,
      NODE_ENV: 'production',
      VERITY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    };
    const migrate = () =>
      promisify(execFile)('node', [...verityCommand, '--json', 'migrate'], { cwd: root, env, timeout: 120_000 }).then(
        ({ stdout }) => ({ code: 0, out: stdout }),
        (error: { code: number; stdout: string; stderr: string }) => ({
          code: error.code,
          out: `${error.stdout}${error.stderr}`,
        }),
      );
    try {
      const [first, second] = await Promise.all([migrate(), migrate()]);
      expect([first.code, second.code], `${first.out}\n${second.out}`).toEqual([0, 0]);
      const applied = [JSON.parse(first.out).applied as string[], JSON.parse(second.out).applied as string[]]
        .map((names) => names.length)
        .sort((a, b) => a - b);
      // one applied every migration, the other waited for it and found nothing to do
      expect(applied[0]).toBe(0);
      expect(applied[1]).toBeGreaterThan(20);
    } finally {
      await database.drop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('create the job queues without a deadlock: four at once, three times', { timeout: 180_000 }, async () => {
    for (let round = 0; round < 3; round++) {
      const database = await freshDatabase(server!, 'verity_deploy');
      try {
        const started = await Promise.allSettled(Array.from({ length: 4 }, () => PgBossJobs.start(database.url)));
        const failures = started
          .filter((result) => result.status === 'rejected')
          .map((result) => String((result as PromiseRejectedResult).reason));
        await Promise.all(started.map((result) => (result.status === 'fulfilled' ? result.value.stop() : undefined)));
        expect(failures).toEqual([]);
      } finally {
        await database.drop();
      }
    }
  });
});

const nginx = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((file) => existsSync(file));
if (!server || !nginx)
  console.info(
    `skipping the compose arrangement on loopback: it needs ${server ? '' : 'TEST_DATABASE_URL '}${nginx ? '' : 'nginx (apt-get install nginx)'}`,
  );

describe.runIf(server && nginx)("compose.yaml's arrangement on loopback, with the same files", () => {
  let dir: string;
  let database: { url: string; drop: () => Promise<void> };
  let env: NodeJS.ProcessEnv;
  let proxyUrl: string;
  const instances: { child: ChildProcess; port: number; log: () => string }[] = [];
  let proxy: ChildProcess | undefined;
  let proxyLog = '';
  const metricsToken = randomBytes(16).toString('hex');

  const verity = (args: string[]) =>
    promisify(execFile)('node', [...verityCommand, ...args], { cwd: root, env, timeout: 120_000 }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        stdout: `${error.stdout}${error.stderr}`,
      }),
    );

  /** The Dockerfile's HEALTHCHECK command, run as Docker runs it, against the instance on `port`. */
  const healthcheck = (port: number) =>
    promisify(execFile)(healthcheckCommand()[0]!, healthcheckCommand().slice(1), {
      env: { ...env, PORT: String(port) },
      timeout: 10_000,
    }).then(
      () => true,
      () => false,
    );

  function startInstance(port: number) {
    let output = '';
    const child = spawn('node', [...verityCommand, 'serve'], {
      cwd: root,
      env: { ...env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr!.on('data', (chunk) => {
      output += chunk;
    });
    return { child, port, log: () => output };
  }

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'verity-deploy-'));
    database = await freshDatabase(server!, 'verity_deploy');
    // compose's environment for the instances, with this machine's database and a fresh key
    const proxyPort = await freePort();
    proxyUrl = `http://127.0.0.1:${proxyPort}`;
    env = {
      ...process.env,
      DATABASE_URL: database.url,
      VERITY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      VERITY_BASE_URL: proxyUrl,
      VERITY_METRICS_TOKEN: metricsToken,
      LOG_LEVEL: 'info',
      // the image's settings (Dockerfile ENV), but on loopback, and the models left for first use: not what this tests
      ...runtimeEnv(),
      HOST: '127.0.0.1',
      VERITY_DATA_DIR: path.join(dir, 'data'),
      VERITY_WARM_MODELS: '0',
    };
    expect(
      Object.keys(compose['x-verity'].environment!).every((name) => name in env || name === 'VERITY_SMTP_URL'),
    ).toBe(true);
  }, 60_000);

  afterAll(async () => {
    if (proxy) await stopProcess(proxy);
    for (const instance of instances) await stopProcess(instance.child);
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  }, 120_000);

  it('serves through nginx with ops/nginx.conf: both instances answer, request ids pass through, /metrics stays per instance', {
    timeout: 300_000,
  }, async () => {
    // compose's `migrate` service, then both instances at once
    expect((await verity(['--json', 'migrate'])).code).toBe(0);
    instances.push(startInstance(await freePort()), startInstance(await freePort()));
    // Docker's view: each instance turns healthy once its HEALTHCHECK passes.
    for (const instance of instances) {
      const started = Date.now();
      while (!(await healthcheck(instance.port))) {
        if (instance.child.exitCode !== null || Date.now() - started > 120_000)
          throw new Error(`instance on ${instance.port} not healthy: ${instance.log()}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    // ops/nginx.conf with the compose service names pointed at the loopback instances
    const [one, two] = instances;
    const conf = nginxConf
      .replace(/server verity-1:8080 /, `server 127.0.0.1:${one!.port} `)
      .replace(/server verity-2:8080 /, `server 127.0.0.1:${two!.port} `)
      .replace(/listen 8080;/, `listen 127.0.0.1:${new URL(proxyUrl).port};`)
      // a socket is no /dev/stdout nginx can open (in a container it is a pipe): the access log goes to a file here
      .replace('access_log /dev/stdout verity;', `access_log ${dir}/access.log verity;`)
      .replace(/http \{/, `http {\n  client_body_temp_path ${dir}/body;\n  proxy_temp_path ${dir}/proxy;`);
    expect(conf).not.toContain('verity-1:');
    await writeFile(path.join(dir, 'nginx.conf'), conf);
    proxy = spawn(
      nginx!,
      [
        '-p',
        dir,
        '-c',
        path.join(dir, 'nginx.conf'),
        '-e',
        path.join(dir, 'nginx-error.log'),
        '-g',
        `daemon off; pid ${dir}/nginx.pid;`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    proxy.stdout!.on('data', (chunk) => {
      proxyLog += chunk;
    });
    proxy.stderr!.on('data', (chunk) => {
      proxyLog += chunk;
    });
    const started = Date.now();
    while (
      (await fetch(`${proxyUrl}/readyz`).then(
        (res) => res.status,
        () => 0,
      )) !== 200
    ) {
      if (proxy.exitCode !== null || Date.now() - started > 30_000) throw new Error(`nginx did not serve: ${proxyLog}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // An operator's first steps (docs/deploy.md): a project and a workflow, by the CLI on the same database.
    const project = JSON.parse(
      (await verity(['--json', 'admin', 'project', 'create', '--name', 'Deploy', '--balance', '100'])).stdout,
    ) as { project: { id: string }; key: string };
    const workflow = JSON.parse(
      (await verity(['--json', 'admin', 'workflow', 'create', '--project', project.project.id, '--features', 'age']))
        .stdout,
    ) as { id: string };
    const created = await fetch(`${proxyUrl}/api/v2/session`, {
      method: 'POST',
      headers: { 'X-API-Key': project.key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ workflow_id: workflow.id, vendor_data: 'deploy' }),
    });
    expect(created.status).toBe(201);
    const sessionId = ((await created.json()) as { data: { session_id: string } }).data.session_id;

    const ids = Array.from({ length: 16 }, (_, i) => `deploy-${i}-${randomBytes(4).toString('hex')}`);
    for (const id of ids) {
      const res = await fetch(`${proxyUrl}/api/v2/session/${sessionId}`, {
        headers: { 'X-API-Key': project.key, 'X-Request-Id': id },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toBe(id);
    }
    // least_conn shares the requests: each instance logged some of them, under the caller's id
    const servedBy = () =>
      instances.map((instance) => ids.filter((id) => instance.log().includes(`"req_id":"${id}"`)).length);
    for (let wait = 0; wait < 40 && servedBy()[0]! + servedBy()[1]! < ids.length; wait++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const served = servedBy();
    expect(
      served.every((count) => count > 0),
      `requests per instance: ${served}`,
    ).toBe(true);
    expect(served[0]! + served[1]!).toBe(ids.length);
    // without a caller's id, nginx makes one: the instance's answer and nginx's access log name it
    const anonymous = await fetch(`${proxyUrl}/healthz`);
    expect(anonymous.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(readFileSync(path.join(dir, 'access.log'), 'utf8')).toContain(anonymous.headers.get('x-request-id')!);

    expect((await fetch(`${proxyUrl}/metrics`, { headers: { Authorization: `Bearer ${metricsToken}` } })).status).toBe(
      404,
    );
    expect(
      (await fetch(`http://127.0.0.1:${one!.port}/metrics`, { headers: { Authorization: `Bearer ${metricsToken}` } }))
        .status,
    ).toBe(200);

    // One instance stops (SIGTERM, as `docker compose stop verity-1` sends): the proxy keeps answering.
    expect(await stopProcess(one!.child)).toBe(0);
    for (let i = 0; i < 6; i++)
      expect(
        (await fetch(`${proxyUrl}/api/v2/session/${sessionId}`, { headers: { 'X-API-Key': project.key } })).status,
      ).toBe(200);
    expect(await healthcheck(one!.port)).toBe(false);
  });
});
