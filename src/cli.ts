#!/usr/bin/env node
// The `verity` command. At start only commander, the error catalog and the printing helpers
// load: every server part (configuration, database, core, HTTP, models) is imported by the
// command that needs it, so `--version` and `--help` answer at once, and `serve` checks its port
// before it loads anything heavy.
import { existsSync, readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { DomainError } from './core/errors.js';
import type { Core } from './core/index.js';
import type { KeyStatus } from './core/oidc/keys.js';
import type { ImportReport } from './core/credentials/registry.js';
import { asTable, outputFormat, TABLE_WIDTH } from './cli/format.js';
import { progressBar } from './cli/progress.js';
import { views, type TableView } from './cli/views.js';

/** The version in package.json, the one npm and the changelog speak of (from src/ or the built dist/src/). */
function packageVersion(): string {
  for (const up of ['../package.json', '../../package.json']) {
    const file = new URL(up, import.meta.url);
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  }
  return 'unknown';
}

const program = new Command();
program
  .name('verity')
  .description('Identity verification, OpenID Connect login and workforce roster service')
  .version(packageVersion(), '-V, --version', 'print the version')
  .option('--json', 'print answers as JSON (the default when stdout is not a terminal)')
  .option('--table', 'print answers as a table (the default on a terminal), at most 100 columns wide')
  .option('--wide', 'print tables with every column, every value whole (implies --table)')
  .addHelpText(
    'after',
    `
Examples:
  $ verity serve                               run the service (embedded store unless DATABASE_URL)
  $ verity admin project create --name Acme    a project, its API key and webhook secrets
  $ verity admin webhook list --state failed   webhook events that gave up
  $ verity admin session list --wide           every column of the table, every value whole
  $ verity admin import-licenses roster.csv    load a licence roster; exits 1 if a row is refused
  $ verity admin rotate-keys --json | jq .kid  any answer as JSON, for scripts`,
  );

program
  .command('serve')
  .description('run the service (embedded store in VERITY_DATA_DIR unless DATABASE_URL is set)')
  .option(
    '--workers <n>',
    'HTTP worker processes on the one port (default: VERITY_WORKERS, else one per core on PostgreSQL, one on the embedded store); SIGHUP replaces them one at a time',
  )
  .action(async (opts: { workers?: string }) => {
    const [{ loadConfig }, { isClusterWorker, runWorker, runPrimary, workerCount }] = await Promise.all([
      import('./config.js'),
      import('./cluster.js'),
    ]);
    const config = loadConfig();
    // A forked worker shares the port its primary already checked (and may hold through a reload).
    if (isClusterWorker()) return runWorker(config);
    const workers = workerCount(opts.workers, config);
    // A busy port fails the start here, in one line: before the store opens, migrations run, models load or jobs start.
    const { ensurePortFree } = await import('./listen.js');
    await ensurePortFree(config.port, config.host);
    if (workers > 1) return runPrimary(config, workers);
    // The server's parts (HTTP, GraphQL, jobs) load only here: `verity admin` and `--version` start without them.
    const { startService, tolerateDatabaseOutages } = await import('./main.js');
    const service = await startService(config);
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      service.logger.info({ signal }, 'shutting down');
      await service.close();
      process.exit(0);
    };
    process.on('SIGINT', () => void stop('SIGINT'));
    process.on('SIGTERM', () => void stop('SIGTERM'));
    tolerateDatabaseOutages(service.logger);
  });

/** Runs `work` against the store: the running service's, else the data dir opened directly. */
async function withCore<T>(work: (core: Core) => Promise<T>): Promise<T> {
  const [
    { loadConfig, resolveEncryptionKey },
    { openStoreForCommand },
    { createOrm, migrate },
    { entities },
    { Core },
  ] = await Promise.all([
    import('./config.js'),
    import('./core/db/store.js'),
    import('./core/db/orm.js'),
    import('./core/entities.js'),
    import('./core/index.js'),
  ]);
  const config = loadConfig();
  const store = await openStoreForCommand(config.databaseUrl, config.dataDir);
  try {
    const orm = await createOrm(store.url, { entities, poolMax: 1 });
    try {
      await migrate(orm);
      const core = new Core({
        orm,
        encryptionKey: await resolveEncryptionKey(config),
        allowInsecureCallbacks: config.allowInsecureCallbacks,
        keyActivationSeconds: config.keyActivationSeconds,
      });
      return await work(core);
    } finally {
      await orm.close();
    }
  } finally {
    await store.close();
  }
}

program
  .command('migrate')
  .description('apply committed migrations')
  .action(async () => {
    const [{ loadConfig }, { openStoreForCommand }, { createOrm, migrate }, { entities }] = await Promise.all([
      import('./config.js'),
      import('./core/db/store.js'),
      import('./core/db/orm.js'),
      import('./core/entities.js'),
    ]);
    const config = loadConfig();
    const store = await openStoreForCommand(config.databaseUrl, config.dataDir);
    const orm = await createOrm(store.url, { entities, poolMax: 1 });
    try {
      print({ applied: await migrate(orm) });
    } finally {
      await orm.close();
      await store.close();
    }
  });

/**
 * An answer: JSON for scripts (or with --json); for people (a terminal, --table, --wide) text at
 * most TABLE_WIDTH wide, shaped by the command's `view` (its columns first, a mode column), or
 * every column whole with --wide.
 */
function print(value: unknown, view?: TableView, text: { wrapCells?: boolean } = {}): void {
  const options = program.opts<{ json?: boolean; table?: boolean; wide?: boolean }>();
  if (outputFormat(options, process.stdout.isTTY === true) === 'json') {
    process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    return;
  }
  const wide = options.wide === true;
  process.stdout.write(
    `${asTable(view ? view(value, wide) : value, { width: wide ? Infinity : TABLE_WIDTH, ...text })}\n`,
  );
}

/** Runs long work with a progress bar on stderr for people (a terminal, no --json); scripts see nothing of it. */
async function withProgress<T>(
  label: string,
  work: (update: (done: number, total: number) => void) => Promise<T>,
): Promise<T> {
  const progress = progressBar(label, process.stderr, { quiet: program.opts<{ json?: boolean }>().json === true });
  try {
    return await work((done, total) => progress.update(done, total));
  } finally {
    progress.finish();
  }
}

const admin = program
  .command('admin')
  .description('operate tenants and credentials (a table on a terminal, JSON otherwise)');
const projectOption = () => new Option('--project <id>', 'project id (default: the demo project)');

async function projectIdOf(core: Core, given: string | undefined): Promise<string> {
  if (given) return given;
  const demo = await core.tenancy.demoProjectId();
  if (!demo) throw new DomainError('not_found', 'no demo project here: pass --project <id>');
  return demo;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];
const list = (value: string) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
/** A yes/no argument (also true/false); anything else is a validation_error. */
function yesOrNo(value: string): boolean {
  if (['yes', 'true'].includes(value.toLowerCase())) return true;
  if (['no', 'false'].includes(value.toLowerCase())) return false;
  throw new DomainError('validation_error', `say yes or no, not ${JSON.stringify(value)}`);
}

const project = admin.command('project').description('verification apps');
project
  .command('create')
  .requiredOption('--name <name>')
  .option('--balance <amount>', 'opening wallet balance', Number)
  .action((opts) =>
    withCore(async (core) => print(await core.tenancy.createProject({ name: opts.name, balance: opts.balance }))),
  );
project
  .command('topup')
  .description('add money to a project wallet')
  .addOption(projectOption())
  .requiredOption('--amount <amount>', 'currency units', Number)
  .action((opts) =>
    withCore(async (core) => {
      const projectId = await projectIdOf(core, opts.project);
      await core.billing.topUp(projectId, opts.amount);
      print(await core.tenancy.getProject(projectId));
    }),
  );
project
  .command('list')
  .action(() => withCore(async (core) => print(await core.tenancy.listProjects(), views.projects)));

const apikey = admin.command('apikey').description('API keys (the key is printed once)');
apikey
  .command('create')
  .addOption(projectOption())
  .option('--name <name>')
  .option('--mode <mode>', 'live, or test for a sandbox key (vk_test_...)', 'live')
  .action((opts) =>
    withCore(async (core) =>
      print(
        await core.tenancy.createApiKey({
          projectId: await projectIdOf(core, opts.project),
          name: opts.name,
          mode: opts.mode,
        }),
      ),
    ),
  );
apikey
  .command('revoke <apiKeyId>')
  .addOption(projectOption())
  .action((apiKeyId, opts) =>
    withCore(async (core) =>
      print(await core.tenancy.revokeApiKey({ projectId: await projectIdOf(core, opts.project), apiKeyId })),
    ),
  );
apikey
  .command('list')
  .addOption(projectOption())
  .action((opts) =>
    withCore(async (core) =>
      print(await core.tenancy.listApiKeys(await projectIdOf(core, opts.project)), views.apiKeys),
    ),
  );

const workflow = admin.command('workflow').description('bundles of checks');
workflow
  .command('create')
  .addOption(projectOption())
  .requiredOption(
    '--features <list>',
    'comma-separated: id_verification,liveness,face_match,age,credential,location',
    list,
  )
  .option('--name <name>', 'name', 'workflow')
  .action((opts) =>
    withCore(async (core) =>
      print(
        await core.tenancy.createWorkflow({
          projectId: await projectIdOf(core, opts.project),
          name: opts.name,
          features: opts.features,
        }),
      ),
    ),
  );
workflow
  .command('list')
  .addOption(projectOption())
  .action((opts) =>
    withCore(async (core) =>
      print(await core.tenancy.listWorkflows(await projectIdOf(core, opts.project)), views.workflows),
    ),
  );

const callback = admin
  .command('callback')
  .description('webhook destinations and signing secrets, per mode (live, or test for the sessions of vk_test_ keys)');
const webhookModeOption = () =>
  new Option('--mode <mode>', 'live, or test: the settings test-mode events use')
    .choices(['live', 'test'])
    .default('live');
callback
  .command('approve <url>')
  .description("approve a destination for per-session callbacks of the mode's sessions")
  .addOption(projectOption())
  .addOption(webhookModeOption())
  .action((url, opts) =>
    withCore(async (core) =>
      print(
        await core.tenancy.approveCallback({ projectId: await projectIdOf(core, opts.project), url, mode: opts.mode }),
      ),
    ),
  );
callback
  .command('default <url>')
  .description('set the mode\'s app-level callback URL ("none" clears it; test events without one are kept, not sent)')
  .addOption(projectOption())
  .addOption(webhookModeOption())
  .action((url, opts) =>
    withCore(async (core) =>
      print(
        await core.tenancy.setDefaultCallback({
          projectId: await projectIdOf(core, opts.project),
          url: url === 'none' ? null : url,
          mode: opts.mode,
        }),
      ),
    ),
  );
callback
  .command('list')
  .description('approved destinations of both modes')
  .addOption(projectOption())
  .action((opts) =>
    withCore(async (core) =>
      print(await core.tenancy.listCallbacks(await projectIdOf(core, opts.project)), views.callbacks),
    ),
  );
callback
  .command('rotate-secret')
  .description('a new signing secret for the mode (printed once); the old one keeps signing alongside for the overlap')
  .addOption(projectOption())
  .addOption(webhookModeOption())
  .option('--overlap-hours <hours>', 'hours the old secret keeps signing alongside (0 to 720)', '24')
  .action((opts) =>
    withCore(async (core) =>
      print(
        await core.tenancy.rotateWebhookSecret({
          projectId: await projectIdOf(core, opts.project),
          mode: opts.mode,
          overlapHours: Number(opts.overlapHours),
        }),
      ),
    ),
  );

const session = admin.command('session').description('hosted verification sessions (what ops read at 3 a.m.)');
session
  .command('list')
  .addOption(projectOption())
  .option('--status <status>', 'NOT_STARTED, IN_PROGRESS, IN_REVIEW, APPROVED, DECLINED, EXPIRED or ABANDONED')
  .option('--vendor-data <value>', "the caller's correlation string")
  .option('--limit <n>', 'page size (1-100)', '20')
  .option('--cursor <cursor>', 'the next_cursor of the previous page')
  .action((opts) =>
    withCore(async (core) =>
      print(
        await core.sessions.list(await projectIdOf(core, opts.project), {
          status: opts.status,
          vendor_data: opts.vendorData,
          limit: opts.limit,
          cursor: opts.cursor,
        }),
        views.sessionList,
      ),
    ),
  );
session
  .command('show <sessionId>')
  .description('the decision, the timeline of state changes and the webhook events of a session')
  .addOption(projectOption())
  .action((sessionId, opts) =>
    withCore(async (core) => {
      const projectId = await projectIdOf(core, opts.project);
      print(
        {
          decision: await core.sessions.decision(projectId, sessionId),
          timeline: await core.sessions.timeline(projectId, sessionId),
          webhooks: await core.webhooks.listEvents(projectId, { sessionId }),
        },
        views.sessionShow,
        { wrapCells: true },
      );
    }),
  );

const webhook = admin.command('webhook').description('webhook events and their delivery attempts');
webhook
  .command('list')
  .addOption(projectOption())
  .option('--state <state>', 'pending, sending, delivered, failed, disabled or no_destination')
  .option('--session <sessionId>', 'events of one session')
  .option('--limit <n>', 'how many, newest first', '50')
  .action((opts) =>
    withCore(async (core) =>
      print(
        await core.webhooks.listEvents(await projectIdOf(core, opts.project), {
          state: opts.state,
          sessionId: opts.session,
          limit: Number(opts.limit),
        }),
        views.webhookEvents,
      ),
    ),
  );
webhook
  .command('attempts <eventId>')
  .addOption(projectOption())
  .action((eventId, opts) =>
    withCore(async (core) => print(await core.webhooks.attempts(await projectIdOf(core, opts.project), eventId))),
  );
webhook
  .command('resend <eventId>')
  .description('send an event again; the running service delivers it within a minute')
  .addOption(projectOption())
  .action((eventId, opts) =>
    withCore(async (core) => print(await core.webhooks.resend(await projectIdOf(core, opts.project), eventId))),
  );
webhook
  .command('health')
  .description(
    'per destination: success over the last hour and day, failures in a row, next retry, last error; unhealthy first',
  )
  .addOption(projectOption())
  .action((opts) =>
    withCore(async (core) => {
      const { webhookHealth } = await import('./core/webhooks/health.js');
      print(await webhookHealth(core.orm, { now: core.clock.now(), projectId: await projectIdOf(core, opts.project) }));
    }),
  );
webhook
  .command('resend-failed')
  .description(
    'send again every failed event created in [--from, --to); the running service delivers them within a minute',
  )
  .addOption(projectOption())
  .requiredOption('--from <iso>', 'events created at or after (ISO 8601 with an offset, e.g. 2026-11-25T10:00:00Z)')
  .requiredOption('--to <iso>', 'events created before (ISO 8601)')
  .action((opts) =>
    withCore(async (core) => {
      const [{ parseInput }, { resendFailedWebhooksInput }] = await Promise.all([
        import('./core/validation.js'),
        import('./core/ops/inputs.js'),
      ]);
      const input = parseInput(resendFailedWebhooksInput, {
        projectId: await projectIdOf(core, opts.project),
        from: opts.from,
        to: opts.to,
      });
      const result = await withProgress('resending failed webhooks', (update) =>
        core.webhooks.resendFailed(input.projectId, { from: new Date(input.from), to: new Date(input.to) }, update),
      );
      print({ from: input.from, to: input.to, ...result });
    }),
  );

const oidcClient = admin.command('oidc-client').description('OpenID Connect relying parties');
oidcClient
  .command('create')
  .addOption(projectOption())
  .requiredOption('--name <name>')
  .requiredOption('--redirect-uri <uri>', 'exact redirect URI (repeatable)', collect)
  .option('--scopes <list>', 'comma-separated; openid is required', list)
  .option(
    '--organization <id>',
    'organization whose roster members sign in with it (deactivation revokes their tokens)',
    Number,
  )
  .option(
    '--no-require-pkce',
    'a confidential legacy client that cannot send a PKCE code_challenge (PKCE S256 is required by default)',
  )
  .action((opts) =>
    withCore(async (core) =>
      print(
        await core.tenancy.createOidcClient({
          projectId: await projectIdOf(core, opts.project),
          name: opts.name,
          redirectUris: opts.redirectUri,
          scopes: opts.scopes,
          organizationId: opts.organization,
          requirePkce: opts.requirePkce,
        }),
      ),
    ),
  );
oidcClient
  .command('require-pkce <clientId> <required>')
  .description(
    'whether the client must send a PKCE S256 code_challenge at authorize: yes (the default) or no (a confidential legacy client)',
  )
  .addOption(projectOption())
  .action((clientId, required, opts) =>
    withCore(async (core) =>
      print(
        await core.tenancy.setOidcClientPkce({
          projectId: await projectIdOf(core, opts.project),
          clientId,
          requirePkce: yesOrNo(required),
        }),
      ),
    ),
  );

admin
  .command('org-app')
  .description('organization roster API credentials')
  .command('create')
  .option('--org-id <id>', 'an existing organization', Number)
  .option('--org-name <name>', 'create a new organization with this name')
  .option('--name <name>', 'name of the app')
  .action((opts) =>
    withCore(async (core) =>
      print(
        await core.tenancy.createOrgApp({
          organizationId: opts.orgId,
          organizationName: opts.orgName,
          name: opts.name,
        }),
      ),
    ),
  );

const account = admin.command('account').description("people's accounts");
account
  .command('create')
  .requiredOption('--email <email>')
  .requiredOption('--password <password>')
  .option('--name <name>')
  .action((opts) =>
    withCore(async (core) =>
      print(await core.accounts.createAccount({ email: opts.email, password: opts.password, displayName: opts.name })),
    ),
  );

account
  .command('verify')
  .description('record an operator-verified identity on an account (sealed at rest)')
  .requiredOption('--svc-id <svcId>')
  .requiredOption('--full-name <name>')
  .requiredOption('--dob <YYYY-MM-DD>')
  .option('--document-number <number>')
  .option(
    '--nationality <code>',
    "the document's nationality, ISO 3166-1 alpha-3 (a verifiable credential's nationality claim)",
  )
  .option('--human', 'a liveness check is on file')
  .action((opts) =>
    withCore(async (core) =>
      print(
        await core.accounts.recordVerifiedIdentity({
          svcId: opts.svcId,
          fullName: opts.fullName,
          dateOfBirth: opts.dob,
          documentNumber: opts.documentNumber,
          nationality: opts.nationality,
          humanVerified: opts.human ? true : undefined,
        }),
      ),
    ),
  );

account
  .command('withdraw-identity')
  .description(
    "remove an account's verified identity (found wrong, or the person asked); every verifiable credential issued from it is revoked",
  )
  .requiredOption('--svc-id <svcId>')
  .action((opts) => withCore(async (core) => print(await core.accounts.withdrawIdentity(opts.svcId))));

account
  .command('revoke-credentials')
  .description(
    'set the status list bit of every live verifiable credential of an account (the person asked: a lost wallet)',
  )
  .requiredOption('--svc-id <svcId>')
  .action((opts) =>
    withCore(async (core) =>
      print({ svcId: opts.svcId, revoked: await core.vc.revokeAll(opts.svcId, 'holder_request') }),
    ),
  );

admin
  .command('import-licenses <file>')
  .description('import a licence board roster (CSV; columns in the README) into the built-in registry')
  .action((file) =>
    withCore(async (core) => {
      const { readFile } = await import('node:fs/promises');
      const text = await readFile(file, 'utf8');
      const report = await withProgress('importing licences', (update) => core.credentials.importCsv(text, update));
      print(report);
      refuseOnRejectedRows(report);
    }),
  );

/** An import that refused rows did not do what was asked: say so on stderr and exit 1, after the report. */
function refuseOnRejectedRows(report: ImportReport): void {
  if (report.rejectedCount === 0) return;
  const listed = report.rejected
    .slice(0, 5)
    .map((row) => `line ${row.line}: ${row.reason}`)
    .join('; ');
  process.stderr.write(
    `verity: ${report.rejectedCount} row${report.rejectedCount === 1 ? '' : 's'} refused (${report.licenses} imported): ${listed}${report.rejectedCount > 5 ? '; ...' : ''}\n`,
  );
  process.exitCode = 1;
}

admin
  .command('board-add-http')
  .description('register a board reached over HTTP (JSON lookup)')
  .requiredOption('--state <code>')
  .requiredOption('--state-name <name>')
  .requiredOption('--provider <code>')
  .requiredOption('--name <display name>')
  .requiredOption('--credential <credential name>')
  .requiredOption('--url <template>', 'with {state}, {provider}, {license_number}, {npi}')
  .requiredOption(
    '--fields <json>',
    'our field -> path in its answer, e.g. {"licenseNumber":"number","lastName":"name.last"}',
  )
  .option('--timeout-ms <ms>', 'give up after this long (default 90000)', Number)
  .action((opts) =>
    withCore(async (core) =>
      print(
        await core.credentials.upsertHttpProvider({
          stateCode: opts.state,
          stateName: opts.stateName,
          providerCode: opts.provider,
          providerDisplayName: opts.name,
          credentialName: opts.credential,
          config: { url: opts.url, fields: JSON.parse(opts.fields), timeoutMs: opts.timeoutMs },
        }),
      ),
    ),
  );

admin
  .command('plan')
  .description('organization roster plans')
  .command('set')
  .requiredOption('--org-id <id>', 'the organization', Number)
  .requiredOption('--plan <name>')
  .requiredOption('--price-per-seat <amount>', 'currency units per active seat per month', Number)
  .option('--currency <code>', 'ISO 4217', 'USD')
  .option('--trial-days <days>', 'free days from the first plan', Number)
  .action((opts) =>
    withCore(async (core) =>
      print(
        await core.roster.setPlan({
          organizationId: opts.orgId,
          plan: opts.plan,
          pricePerSeat: opts.pricePerSeat,
          currency: opts.currency,
          trialDays: opts.trialDays,
        }),
      ),
    ),
  );

admin
  .command('outbox')
  .description('the development mail outbox (used when VERITY_SMTP_URL is not set)')
  .command('list')
  .option('--to <email>', 'only mail to this address')
  .option('--limit <n>', 'newest first, at most this many', Number, 20)
  .action((opts) => withCore(async (core) => print(await core.mail.outbox.list({ to: opts.to, limit: opts.limit }))));

admin
  .command('roster')
  .description('organization rosters')
  .command('audit')
  .requiredOption('--org-id <id>', 'the organization', Number)
  .option('--member <memberId>', 'only this member (mem_...)')
  .option('--limit <n>', 'newest first, at most this many', Number, 100)
  .action((opts) =>
    withCore(async (core) =>
      print(await core.roster.auditTrail(opts.orgId, { memberId: opts.member, limit: opts.limit })),
    ),
  );

const keyView = (key: KeyStatus) => ({
  kid: key.kid,
  state: key.state,
  activates_at: key.activatesAt.toISOString(),
  retires_at: key.retiresAt?.toISOString() ?? null,
  published_until: key.publishedUntil?.toISOString() ?? null,
});

admin
  .command('rotate-keys')
  .description(
    'publish the next id_token signing key now; it starts signing after VERITY_KEY_ACTIVATION_SECONDS (300 s, the JWKS max-age), and the key it replaces stays published until every id_token it signed has expired',
  )
  .action(() =>
    withCore(async (core) => {
      const { kid, activatesAt } = await core.signingKeys.rotate();
      print(
        { kid, activates_at: activatesAt.toISOString(), keys: (await core.signingKeys.list()).map(keyView) },
        (value, wide) => ({ ...(value as object), keys: views.keys((value as { keys: unknown }).keys, wide) }),
      );
    }),
  );

admin
  .command('keys')
  .description(
    'the published id_token signing keys: next (published, not yet signing), current, retired (still published)',
  )
  .action(() => withCore(async (core) => print((await core.signingKeys.list()).map(keyView), views.keys)));

admin
  .command('admin-token')
  .description('bearer tokens of the GraphQL/tRPC admin API (printed once)')
  .command('create')
  .addOption(new Option('--role <role>').choices(['viewer', 'reviewer', 'admin']).default('admin'))
  .option('--project <id>', 'scope the token to one project')
  .option('--name <name>')
  .action((opts) =>
    withCore(async (core) =>
      print(await core.tenancy.createAdminToken({ role: opts.role, projectId: opts.project, name: opts.name })),
    ),
  );

program.parseAsync().catch((error: unknown) => {
  if (error instanceof DomainError) {
    process.stderr.write(
      `${JSON.stringify({ error: { code: error.code, message: error.message, ...(error.data ? { data: error.data } : {}) } }, null, 2)}\n`,
    );
  } else {
    process.stderr.write(`verity: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  process.exit(1);
});
