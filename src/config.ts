import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GESTURES, type Gesture } from './core/faces/burst.js';
import { DEFAULT_SANDBOX_DAILY_CHECKS } from './core/checks/sandbox.js';
import { Sealer } from './core/secrets.js';
import type { TraceSampling } from './core/tracing.js';

// Every environment variable the service reads, in one place (the configuration table of docs/operations.md
// mirrors this file).
export interface Config {
  port: number;
  host: string;
  /** Public address of verification, login and account endpoints. */
  baseUrl: string;
  /** Public address of the organization roster API (`/api/sdk`). */
  orgApiUrl: string;
  /** External Postgres; when absent the embedded PGlite store in `dataDir` is used. */
  databaseUrl?: string;
  dataDir: string;
  /** Loopback port of the embedded store's Postgres socket (0 picks a free one). */
  embeddedDbPort: number;
  /** base64 of 32 bytes; when absent, read from or generated into `<dataDir>/encryption.key`. */
  encryptionKey?: string;
  /** NODE_ENV=production: no generated secrets, no demo tenant unless asked for. */
  production: boolean;
  allowInsecureCallbacks: boolean;
  seedDemo: boolean;
  /** Load the sample licence roster with the demo tenant. */
  seedLicenses: boolean;
  logLevel: string;
  jsonBodyLimit: string;
  /** Price per billable item in minor units, overriding defaults (`VERITY_PRICES`, JSON). */
  pricesJson?: string;
  /** Requests per minute per API key on `/api/v2`. */
  rateLimitPerMinute: number;
  /** Requests per minute per verification session on `/api/hosted` (ten times that per client address). */
  hostedRateLimitPerMinute: number;
  /** Test calls with real models per project and UTC day (`VERITY_SANDBOX_DAILY_CHECKS`, default 50). */
  sandboxDailyChecks: number;
  /** Load the models at start (serve) instead of on the first request that needs them. */
  warmModels: boolean;
  /** Run background jobs (webhook delivery, session expiry) in this process (`VERITY_JOBS`). */
  runJobs: boolean;
  /** HTTP worker processes of `verity serve` (`VERITY_WORKERS`; `--workers` wins); unset: src/cluster.ts decides. */
  workers?: number;
  /** First webhook retry delay in seconds, doubling per attempt (`VERITY_WEBHOOK_RETRY_BASE_SECONDS`). */
  webhookRetryBaseSeconds: number;
  /** Gestures the liveness challenge may ask for (`VERITY_CHALLENGE_GESTURES`, comma-separated; empty: all). */
  challengeGestures: Gesture[];
  /** SMTP server for invitation mail (`VERITY_SMTP_URL`); unset: the development outbox. */
  smtpUrl?: string;
  /** From header of outgoing mail (`VERITY_MAIL_FROM`). */
  mailFrom?: string;
  /**
   * Seconds between `rotate-keys` and the new key's first signature (`VERITY_KEY_ACTIVATION_SECONDS`,
   * default 300); the JWKS max-age is never longer, so relying parties hold a key before it signs.
   */
  keyActivationSeconds: number;
  /** `/metrics` answers only `Authorization: Bearer <this>` (`VERITY_METRICS_TOKEN`). */
  metricsToken?: string;
  /**
   * Without a token, `/metrics` is closed unless this is set (`VERITY_METRICS_PUBLIC`): it holds balances and traffic.
   */
  metricsPublic: boolean;
  /**
   * Project ids as label values of the per-project gauges (`VERITY_METRICS_PROJECT_LABELS`); else one series for all
   * projects.
   */
  metricsProjectLabels: boolean;
  /**
   * Where spans go (OTLP/HTTP): `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT`
   * + `/v1/traces`. Unset (or `OTEL_SDK_DISABLED=true`): no tracing SDK is loaded.
   */
  otlpTracesUrl?: string;
  /** `service.name` of the spans (`OTEL_SERVICE_NAME`, default verity). */
  otelServiceName: string;
  /** Which requests are traced: our own ratio; a caller's `traceparent` flag only when trusted. */
  traceSampling: TraceSampling;
}

function flag(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  return ['1', 'true', 'yes', 'on'].includes(value.toLowerCase());
}

/**
 * DATABASE_URL, when set, must name a PostgreSQL database: a typo is a one-line error at start, not a driver's riddle.
 */
function databaseUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error('DATABASE_URL is not a URL: expected postgresql://user:password@host:5432/database');
  }
  if (!['postgres:', 'postgresql:'].includes(url.protocol))
    throw new Error(`DATABASE_URL must start with postgresql:// (got ${url.protocol}//)`);
  if (url.pathname.replace(/^\//, '') === '')
    throw new Error('DATABASE_URL names no database: expected postgresql://user:password@host:5432/database');
  return value;
}

/** The OTLP/HTTP traces URL from the standard variables; a malformed one is a one-line error at start. */
function otlpTracesUrl(env: NodeJS.ProcessEnv): string | undefined {
  if (flag(env.OTEL_SDK_DISABLED, false)) return undefined;
  const [name, url] = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
    ? ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT]
    : env.OTEL_EXPORTER_OTLP_ENDPOINT
      ? ['OTEL_EXPORTER_OTLP_ENDPOINT', `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`]
      : [];
  if (!name || !url) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${name} is not a URL: expected e.g. http://collector:4318`);
  }
  if (!['http:', 'https:'].includes(parsed.protocol))
    throw new Error(`${name} must be an http:// or https:// URL (OTLP over HTTP)`);
  return parsed.href;
}

/**
 * The samplers of OTEL_TRACES_SAMPLER we take, and the ratio each means (the `traceidratio` ones read
 * OTEL_TRACES_SAMPLER_ARG).
 */
const SAMPLERS: Record<string, number | 'arg'> = {
  always_on: 1,
  always_off: 0,
  traceidratio: 'arg',
  parentbased_always_on: 1,
  parentbased_always_off: 0,
  parentbased_traceidratio: 'arg',
};

/**
 * Our sampling from the standard variables plus VERITY_TRACE_TRUST_PARENT. A `parentbased_` sampler
 * means the same as its root: spans under our own spans always follow them, and a caller's
 * `traceparent` flag is followed only when VERITY_TRACE_TRUST_PARENT is set.
 */
function traceSampling(env: NodeJS.ProcessEnv): TraceSampling {
  const name = (env.OTEL_TRACES_SAMPLER || 'parentbased_always_on').trim().toLowerCase();
  const ratio = Object.hasOwn(SAMPLERS, name) ? SAMPLERS[name] : undefined;
  if (ratio === undefined)
    throw new Error(`OTEL_TRACES_SAMPLER: "${name}" is not supported (supported: ${Object.keys(SAMPLERS).join(', ')})`);
  const trustParent = flag(env.VERITY_TRACE_TRUST_PARENT, false);
  if (ratio !== 'arg') return { ratio, trustParent };
  const arg = env.OTEL_TRACES_SAMPLER_ARG;
  const parsed = arg === undefined || arg.trim() === '' ? 1 : Number(arg);
  if (!Number.isFinite(parsed) || parsed < 0 || parsed > 1)
    throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got "${arg}"`);
  return { ratio: parsed, trustParent };
}

function integer(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0)
    throw new Error(`${name} must be a non-negative integer, got "${value}"`);
  return parsed;
}

function gestures(value: string | undefined): Gesture[] {
  const names = (value ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names)
    if (!(GESTURES as readonly string[]).includes(name))
      throw new Error(`VERITY_CHALLENGE_GESTURES: unknown gesture "${name}" (known: ${GESTURES.join(', ')})`);
  return names as Gesture[];
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const port = integer('PORT', env.PORT, 8080);
  const host = env.HOST || '127.0.0.1';
  const baseUrl = (env.VERITY_BASE_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  const config: Config = {
    port,
    host,
    baseUrl,
    orgApiUrl: (env.VERITY_ORG_API_URL || baseUrl).replace(/\/+$/, ''),
    databaseUrl: databaseUrl(env.DATABASE_URL),
    production: env.NODE_ENV === 'production',
    dataDir: path.resolve(env.VERITY_DATA_DIR || '.verity'),
    embeddedDbPort: integer('VERITY_DB_PORT', env.VERITY_DB_PORT, 0),
    encryptionKey: env.VERITY_ENCRYPTION_KEY || undefined,
    allowInsecureCallbacks: flag(env.VERITY_ALLOW_INSECURE_CALLBACKS, false),
    // A demo tenant with published credentials has no place in production: off there unless asked for.
    seedDemo: flag(env.VERITY_SEED_DEMO, env.NODE_ENV !== 'production'),
    seedLicenses: flag(env.VERITY_SEED_LICENSES, true),
    logLevel: env.LOG_LEVEL || 'info',
    jsonBodyLimit: env.VERITY_JSON_LIMIT || '1mb',
    pricesJson: env.VERITY_PRICES || undefined,
    warmModels: flag(env.VERITY_WARM_MODELS, true),
    runJobs: flag(env.VERITY_JOBS, true),
    workers: env.VERITY_WORKERS ? integer('VERITY_WORKERS', env.VERITY_WORKERS, 0) : undefined,
    webhookRetryBaseSeconds: integer('VERITY_WEBHOOK_RETRY_BASE_SECONDS', env.VERITY_WEBHOOK_RETRY_BASE_SECONDS, 30),
    challengeGestures: gestures(env.VERITY_CHALLENGE_GESTURES),
    rateLimitPerMinute: integer('VERITY_RATE_LIMIT_PER_MINUTE', env.VERITY_RATE_LIMIT_PER_MINUTE, 600),
    hostedRateLimitPerMinute: integer(
      'VERITY_HOSTED_RATE_LIMIT_PER_MINUTE',
      env.VERITY_HOSTED_RATE_LIMIT_PER_MINUTE,
      120,
    ),
    sandboxDailyChecks: integer(
      'VERITY_SANDBOX_DAILY_CHECKS',
      env.VERITY_SANDBOX_DAILY_CHECKS,
      DEFAULT_SANDBOX_DAILY_CHECKS,
    ),
    smtpUrl: env.VERITY_SMTP_URL || undefined,
    mailFrom: env.VERITY_MAIL_FROM || undefined,
    metricsToken: env.VERITY_METRICS_TOKEN || undefined,
    metricsPublic: flag(env.VERITY_METRICS_PUBLIC, false),
    metricsProjectLabels: flag(env.VERITY_METRICS_PROJECT_LABELS, false),
    keyActivationSeconds: integer('VERITY_KEY_ACTIVATION_SECONDS', env.VERITY_KEY_ACTIVATION_SECONDS, 300),
    otlpTracesUrl: otlpTracesUrl(env),
    otelServiceName: env.OTEL_SERVICE_NAME || 'verity',
    traceSampling: traceSampling(env),
  };
  return { ...config, ...overrides };
}

/** `VERITY_ENCRYPTION_KEY`, else the key in `<data dir>/encryption.key` (generated on first use). */
export async function resolveEncryptionKey(config: Config): Promise<string> {
  if (config.encryptionKey) return config.encryptionKey;
  // A generated key lies beside the data it protects, and each instance would make its own.
  if (config.production)
    throw new Error(
      'VERITY_ENCRYPTION_KEY is not set: in production supply it from your secret store (base64 of 32 bytes, e.g. openssl rand -base64 32), the same on every instance',
    );
  const file = path.join(config.dataDir, 'encryption.key');
  const existing = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (existing) return existing;
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const key = Sealer.generateKey();
  await writeFile(file, `${key}\n`, { mode: 0o600, flag: 'wx' }).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  return (await readFile(file, 'utf8')).trim();
}
