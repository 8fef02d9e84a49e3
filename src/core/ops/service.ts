import type { z } from 'zod';
import type { AccountService } from '../accounts/service.js';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { preparedQuery, StatementValues } from '../db/prepared.js';
import { DomainError } from '../errors.js';
import { camelView } from '../camel.js';
import { memberView, memberWire, type MemberFields, type MemberView } from '../roster/views.js';
import type { Sealer } from '../secrets.js';
import type { AdminRole } from '../tenancy/entities.js';
import { roleAtLeast, type AdminScope } from '../tenancy/service.js';
import type {
  accountsInput,
  adminAuditInput,
  checkRecordsInput,
  membersInput,
  reviewQueueInput,
  sessionsInput,
  webhookEventsInput,
} from './inputs.js';
import { OpsAggregates } from './aggregates.js';
import { keysetPage, type Connection } from './page.js';
import type { WorkflowView } from '../tenancy/views.js';
import {
  type AccountIdentityView,
  type AccountNode,
  type AdminAuditEntryView,
  type CheckRecordView,
  type OrganizationView,
  type SessionCheckView,
  sessionNodeWire,
  type SessionNode,
  type TimelineEntryView,
  type WebhookAttemptView,
  type WebhookEventView,
} from './views.js';

// Read models for dashboards and ops: plain SQL through MikroORM's connection (no entity
// hydration: a page of 100 sessions with their checks is a handful of queries), keyset pages, and
// batch loaders so nested fields (a session's checks, workflow, webhooks) cost one query per list.

/** The caller of the admin API (reviews are recorded as `admin:<token id>`). */
export type AdminCaller = AdminScope;

const iso = (value: Date | string | null | undefined) => (value ? new Date(value).toISOString() : null);

type Row = Record<string, any>;

/** camelCase field name to its snake_case column. */
const columnOf = (field: string) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** The node's stored fields as columns (from its declaration), and whether review images are kept. */
const SESSION_COLUMNS = [
  ...Object.keys(sessionNodeWire.shape)
    .filter((field) => field !== 'imagesRetained')
    .map(columnOf),
  'exists (select 1 from session_evidence e where e.session_id = verification_session.id) as images_retained',
].join(', ');

export const sessionNode = (row: Row): SessionNode => ({
  id: row.id as string,
  projectId: row.project_id as string,
  workflowId: row.workflow_id as string,
  status: row.status as SessionNode['status'],
  features: row.features as string[],
  vendorData: (row.vendor_data ?? null) as string | null,
  svcId: (row.svc_id ?? null) as string | null,
  decision: (row.decision ?? null) as string | null,
  decidedAt: iso(row.decided_at),
  decidedBy: (row.decided_by ?? null) as string | null,
  startedAt: iso(row.started_at),
  expiresAt: iso(row.expires_at)!,
  createdAt: iso(row.created_at)!,
  updatedAt: iso(row.updated_at)!,
  callback: (row.callback ?? null) as string | null,
  redirectUrl: (row.redirect_url ?? null) as string | null,
  livemode: row.livemode !== false,
  imagesRetained: row.images_retained === true,
});
export type { SessionNode };

const EVENT_COLUMNS =
  'id, project_id, session_id, type, livemode, url, state, attempts, next_attempt_at, delivered_at, created_at';

export type WebhookEventNode = WebhookEventView;
const eventNode = (row: Row): WebhookEventNode => ({
  id: row.id as string,
  projectId: row.project_id as string,
  sessionId: row.session_id as string,
  type: row.type as string,
  livemode: row.livemode !== false,
  url: (row.url ?? null) as string | null,
  state: row.state as WebhookEventNode['state'],
  attemptCount: Number(row.attempts),
  nextAttemptAt: ['pending', 'sending'].includes(row.state) ? iso(row.next_attempt_at) : null,
  deliveredAt: iso(row.delivered_at),
  createdAt: iso(row.created_at)!,
});

/** A session's check as loaded: its session (to group by) and its details still sealed, never sent as is. */
export type CheckNode = Omit<SessionCheckView, 'details'> & { sessionId: string; detailSealed: string };

/** A delivery attempt as loaded, with its event (to group by). */
export type WebhookAttemptNode = WebhookAttemptView & { eventId: string };
const attemptNode = (row: Row): WebhookAttemptNode => ({
  eventId: row.event_id as string,
  attempt: Number(row.attempt),
  at: iso(row.at)!,
  httpStatus: row.http_status === null ? null : Number(row.http_status),
  latencyMs: Number(row.latency_ms),
  error: (row.error ?? null) as string | null,
  responseSnippet: (row.response_snippet ?? null) as string | null,
});

const checkRecordNode = (row: Row): CheckRecordView => ({
  sessionId: row.id as string,
  projectId: row.project_id as string,
  type: row.type as CheckRecordView['type'],
  status: row.status as CheckRecordView['status'],
  mode: row.mode as CheckRecordView['mode'],
  svcId: (row.svc_id ?? null) as string | null,
  reason: (row.reason ?? null) as string | null,
  durationMs: Number(row.duration_ms),
  createdAt: iso(row.created_at)!,
});

const accountNode = (row: Row): AccountNode => ({
  svcId: row.id as string,
  email: (row.email as string | null) ?? null,
  idVerified: Boolean(row.id_verified),
  humanVerified: Boolean(row.human_verified ?? row.id_verified),
  identityVerifiedAt: iso(row.identity_verified_at),
  hasFaceReference: Boolean(row.has_face),
  createdAt: iso(row.created_at)!,
});

const IMAGE_KEY = /image|portrait|photo|selfie|frame/i;

/** Check details without anything image-like (we keep none; this makes sure none is ever shown). */
function withoutImages(value: unknown): unknown {
  if (typeof value === 'string') return /^data:|^[A-Za-z0-9+/=]{2000,}$/.test(value) ? '[image withheld]' : value;
  if (Array.isArray(value)) return value.map(withoutImages);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !IMAGE_KEY.test(key))
        .map(([key, inner]) => [key, withoutImages(inner)]),
    );
  }
  return value;
}

function groupBy<T, K>(items: T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

export interface OpsDeps {
  orm: Orm;
  clock: Clock;
  sealer: Sealer;
  accounts: AccountService;
}

/** The ops read models of the admin API (sessions, reviews, webhooks, checks, roster, accounts, aggregates). */
export class OpsService {
  readonly aggregates: OpsAggregates;

  constructor(private readonly deps: OpsDeps) {
    this.aggregates = new OpsAggregates(deps);
  }

  private sql<R = Row>(name: string, text: string, values: unknown[] = []): Promise<R[]> {
    return preparedQuery<R>(this.deps.orm, name, text, values);
  }

  // ---- who is asking ----

  /** A project-scoped token reaches an organization only through one of its project's OIDC clients. */
  async requireOrganizationAccess(caller: AdminScope, organizationId: number): Promise<void> {
    const [row] =
      caller.projectId === null
        ? await this.sql('ops_organization', 'select id from organization where id = $1', [organizationId])
        : await this.sql(
            'ops_project_organization',
            'select organization_id as id from oidc_client where project_id = $1 and organization_id = $2 limit 1',
            [caller.projectId, organizationId],
          );
    if (!row) throw new DomainError('not_found', 'organization not found');
  }

  /** Records an admin action that reveals or changes something sensitive (e.g. reading raw identity data). */
  async audit(
    caller: AdminCaller,
    entry: { action: string; target: string; projectId?: string | null },
  ): Promise<void> {
    await this.sql(
      'ops_audit',
      'insert into admin_audit (token_id, project_id, action, target, created_at) values ($1, $2, $3, $4, $5)',
      [caller.tokenId, entry.projectId ?? null, entry.action, entry.target, this.deps.clock.now()],
    );
  }

  adminAudit(caller: AdminCaller, input: z.output<typeof adminAuditInput>) {
    const projectId = caller.projectId ?? input.projectId;
    const values = new StatementValues();
    return keysetPage(
      this.deps.orm,
      {
        name: 'ops_admin_audit',
        columns: 'id, token_id, project_id, action, target, created_at',
        from: 'admin_audit',
        order: 'desc',
        first: input.first,
        after: input.after,
        where: projectId ? [`project_id = ${values.bind(projectId)}`] : [],
        values,
      },
      (row: Row): AdminAuditEntryView => ({
        tokenId: row.token_id as string,
        projectId: (row.project_id ?? null) as string | null,
        action: row.action as string,
        target: row.target as string,
        at: iso(row.created_at)!,
      }),
    );
  }

  // ---- sessions ----

  sessions(input: z.output<typeof sessionsInput>): Promise<Connection<SessionNode>> {
    const values = new StatementValues();
    const where = [`project_id = ${values.bind(input.projectId)}`];
    const equal = (column: string, value: unknown) => {
      if (value !== undefined) where.push(`${column} = ${values.bind(value)}`);
    };
    const { filter } = input;
    equal('status', filter.status);
    equal('workflow_id', filter.workflowId);
    equal('vendor_data', filter.vendorData);
    equal('svc_id', filter.svcId);
    equal('decision', filter.decision);
    if (filter.createdFrom) where.push(`created_at >= ${values.bind(new Date(filter.createdFrom))}`);
    if (filter.createdTo) where.push(`created_at < ${values.bind(new Date(filter.createdTo))}`);
    return keysetPage(
      this.deps.orm,
      {
        name: 'ops_sessions',
        columns: SESSION_COLUMNS,
        from: 'verification_session',
        where,
        values,
        order: input.sort === 'CREATED_AT_ASC' ? 'asc' : 'desc',
        first: input.first,
        after: input.after,
      },
      sessionNode,
    );
  }

  /** Sessions waiting for a person, oldest first. */
  reviewQueue(input: z.output<typeof reviewQueueInput>) {
    return this.sessions({
      projectId: input.projectId,
      filter: { status: 'IN_REVIEW' },
      sort: 'CREATED_AT_ASC',
      first: input.first,
      after: input.after,
    });
  }

  async session(projectId: string, sessionId: string): Promise<SessionNode> {
    const [row] = await this.sql(
      'ops_session',
      `select ${SESSION_COLUMNS} from verification_session where id = $1 and project_id = $2`,
      [sessionId, projectId],
    );
    if (!row) throw new DomainError('not_found', 'session not found');
    return sessionNode(row);
  }

  /** A session with everything ops look at: checks, timeline, webhook events and their attempts. */
  async sessionDetail(projectId: string, sessionId: string, role: AdminRole) {
    const session = await this.session(projectId, sessionId);
    const [checks, timeline, events] = await Promise.all([
      this.checksBySessions([sessionId]),
      this.timelineBySessions([sessionId]),
      this.webhookEventsBySessions([sessionId]),
    ]);
    const sessionEvents = events.get(sessionId) ?? [];
    const attempts = await this.attemptsByEvents(sessionEvents.map((event) => event.id));
    return {
      ...session,
      checks: (checks.get(sessionId) ?? []).map(
        ({ detailSealed, ...check }): SessionCheckView & { sessionId: string } => ({
          ...check,
          details: this.openDetails(detailSealed, role),
        }),
      ),
      timeline: timeline.get(sessionId) ?? [],
      webhookEvents: sessionEvents.map((event) => ({ ...event, attempts: attempts.get(event.id) ?? [] })),
    };
  }

  // ---- batch loaders (one query for many parents) ----

  /** Checks of sessions, in the order they ran, with their details still sealed (see `openDetails`). */
  async checksBySessions(sessionIds: readonly string[]): Promise<Map<string, CheckNode[]>> {
    if (!sessionIds.length) return new Map();
    const rows = await this.sql(
      'ops_checks_by_sessions',
      'select id, session_id, type, status, score, reason, detail_sealed, created_at from session_check where session_id = any($1) order by id',
      [sessionIds],
    );
    const checks = rows.map(
      (row): CheckNode => ({
        id: String(row.id),
        sessionId: row.session_id as string,
        type: row.type as string,
        status: row.status as CheckNode['status'],
        score: row.score === null ? null : Number(row.score),
        reason: (row.reason ?? null) as string | null,
        createdAt: iso(row.created_at)!,
        detailSealed: row.detail_sealed as string,
      }),
    );
    return groupBy(checks, (check) => check.sessionId);
  }

  /** A check's data and error as JSON: opened for reviewers and admins only (null for viewers), never with images. */
  openDetails(detailSealed: string, role: AdminRole): string | null {
    if (!roleAtLeast(role, 'reviewer')) return null;
    return JSON.stringify(withoutImages(JSON.parse(this.deps.sealer.open(detailSealed))));
  }

  async timelineBySessions(
    sessionIds: readonly string[],
  ): Promise<Map<string, (TimelineEntryView & { sessionId: string })[]>> {
    if (!sessionIds.length) return new Map();
    const rows = await this.sql(
      'ops_timeline_by_sessions',
      'select session_id, from_status, to_status, actor, reason, at from session_event where session_id = any($1) order by id',
      [sessionIds],
    );
    return groupBy(
      rows.map((row): TimelineEntryView & { sessionId: string } => ({
        sessionId: row.session_id as string,
        from: (row.from_status ?? null) as string | null,
        to: row.to_status as string,
        actor: row.actor as string,
        reason: (row.reason ?? null) as string | null,
        at: iso(row.at)!,
      })),
      (entry) => entry.sessionId,
    );
  }

  async webhookEventsBySessions(sessionIds: readonly string[]): Promise<Map<string, WebhookEventNode[]>> {
    if (!sessionIds.length) return new Map();
    const rows = await this.sql(
      'ops_webhook_events_by_sessions',
      `select ${EVENT_COLUMNS} from webhook_event where session_id = any($1) order by created_at, id`,
      [sessionIds],
    );
    return groupBy(rows.map(eventNode), (event) => event.sessionId);
  }

  async attemptsByEvents(eventIds: readonly string[]): Promise<Map<string, WebhookAttemptNode[]>> {
    if (!eventIds.length) return new Map();
    const rows = await this.sql(
      'ops_attempts_by_events',
      'select event_id, attempt, at, http_status, latency_ms, error, response_snippet from webhook_attempt where event_id = any($1) order by at, attempt',
      [eventIds],
    );
    return groupBy(rows.map(attemptNode), (attempt) => attempt.eventId);
  }

  async sessionsByIds(sessionIds: readonly string[]): Promise<Map<string, SessionNode>> {
    if (!sessionIds.length) return new Map();
    const rows = await this.sql(
      'ops_sessions_by_ids',
      `select ${SESSION_COLUMNS} from verification_session where id = any($1)`,
      [sessionIds],
    );
    return new Map(rows.map((row) => [row.id as string, sessionNode(row)]));
  }

  async workflowsByIds(workflowIds: readonly string[]): Promise<Map<string, WorkflowView>> {
    if (!workflowIds.length) return new Map();
    const rows = await this.sql(
      'ops_workflows_by_ids',
      'select id, project_id, name, features, max_step_tries, created_at from workflow where id = any($1)',
      [workflowIds],
    );
    return new Map(
      rows.map((row): [string, WorkflowView] => [
        row.id as string,
        {
          id: row.id as string,
          projectId: row.project_id as string,
          name: row.name as string,
          features: row.features as string[],
          maxStepTries: Number(row.max_step_tries),
          createdAt: iso(row.created_at)!,
        },
      ]),
    );
  }

  // ---- webhooks ----

  webhookEvents(input: z.output<typeof webhookEventsInput>) {
    const values = new StatementValues();
    const where = [`project_id = ${values.bind(input.projectId)}`];
    if (input.state) where.push(`state = ${values.bind(input.state)}`);
    if (input.sessionId) where.push(`session_id = ${values.bind(input.sessionId)}`);
    return keysetPage(
      this.deps.orm,
      {
        name: 'ops_webhook_events',
        columns: EVENT_COLUMNS,
        from: 'webhook_event',
        where,
        values,
        order: 'desc',
        first: input.first,
        after: input.after,
      },
      eventNode,
    );
  }

  async webhookEvent(projectId: string, eventId: string): Promise<WebhookEventNode> {
    const [row] = await this.sql(
      'ops_webhook_event',
      `select ${EVENT_COLUMNS} from webhook_event where id = $1 and project_id = $2`,
      [eventId, projectId],
    );
    if (!row) throw new DomainError('not_found', 'webhook event not found');
    return eventNode(row);
  }

  // ---- standalone checks ----

  checkRecords(input: z.output<typeof checkRecordsInput>) {
    const values = new StatementValues();
    const where = [`project_id = ${values.bind(input.projectId)}`];
    if (input.type) where.push(`type = ${values.bind(input.type)}`);
    if (input.status) where.push(`status = ${values.bind(input.status)}`);
    return keysetPage(
      this.deps.orm,
      {
        name: 'ops_check_records',
        columns: 'id, project_id, type, status, mode, svc_id, reason, duration_ms, created_at',
        from: 'check_record',
        where,
        values,
        order: 'desc',
        first: input.first,
        after: input.after,
      },
      checkRecordNode,
    );
  }

  // ---- accounts ----

  /** Accounts that took part in the project's sessions or checks; never their identity data. */
  accounts(input: z.output<typeof accountsInput>) {
    const values = new StatementValues();
    const project = values.bind(input.projectId);
    return keysetPage(
      this.deps.orm,
      {
        name: 'ops_accounts',
        // The email only where the person granted `profile` to one of this project's apps.
        columns: `id, case when exists (select 1 from oidc_consent g join oidc_client k on k.client_id = g.client_id
                 where g.account_id = account.id and k.project_id = ${project} and 'profile' = any(g.scopes)) then email end as email,
                 id_verified, human_verified, identity_verified_at, face_descriptor_sealed is not null as has_face, created_at`,
        from: 'account',
        where: [
          `id in (select svc_id from verification_session where project_id = ${project} and svc_id is not null union select svc_id from check_record where project_id = ${project} and svc_id is not null)`,
        ],
        values,
        order: 'desc',
        first: input.first,
        after: input.after,
      },
      accountNode,
    );
  }

  /** Raw identity data of one account of the project: admins only, and every read is audited. */
  async accountIdentity(caller: AdminCaller, projectId: string, svcId: string): Promise<AccountIdentityView> {
    const [linked] = await this.sql(
      'ops_account_linked',
      'select 1 from verification_session where project_id = $1 and svc_id = $2 union all select 1 from check_record where project_id = $1 and svc_id = $2 limit 1',
      [projectId, svcId],
    );
    if (!linked) throw new DomainError('not_found', 'account not found in this project');
    await this.audit(caller, { action: 'account.identity.read', target: svcId, projectId });
    const identity = await this.deps.accounts.verifiedIdentity(svcId);
    const today = this.deps.clock.now().toISOString().slice(0, 10);
    const proofs = {
      identityVerified: identity !== null,
      documentValid: identity ? !identity.documentExpiry || identity.documentExpiry >= today : null,
    };
    if (!(await this.verifiedHere(projectId, svcId))) {
      // Verified for someone else (or not at all): this project gets proofs, as in account mode.
      return {
        svcId,
        proofsOnly: true,
        ...proofs,
        fullName: null,
        dateOfBirth: null,
        documentNumber: null,
        documentExpiry: null,
        address: null,
      };
    }
    return {
      svcId,
      proofsOnly: false,
      ...proofs,
      fullName: identity?.fullName ?? null,
      dateOfBirth: identity?.dateOfBirth ?? null,
      documentNumber: identity?.documentNumber ?? null,
      documentExpiry: identity?.documentExpiry ?? null,
      address: identity?.address ?? null,
    };
  }

  /**
   * Whether this project itself verified the account's identity: an approved live session of its
   * own, bound to the account, with its document checked (passed, or sent to review and approved
   * by its reviewer). A test session proves nothing about the person: it never counts.
   */
  private async verifiedHere(projectId: string, svcId: string): Promise<boolean> {
    const [row] = await this.sql(
      'ops_verified_here',
      `select 1 from verification_session s join session_check c on c.session_id = s.id
        where s.project_id = $1 and s.svc_id = $2 and s.livemode and s.status = 'APPROVED' and c.type = 'id_verification' and c.status in ('passed', 'review') limit 1`,
      [projectId, svcId],
    );
    return Boolean(row);
  }

  // ---- roster ----

  async organizations(caller: AdminScope): Promise<OrganizationView[]> {
    const rows =
      caller.projectId === null
        ? await this.sql('ops_organizations', 'select id, name, created_at from organization order by id')
        : await this.sql(
            'ops_project_organizations',
            'select distinct o.id, o.name, o.created_at from organization o join oidc_client c on c.organization_id = o.id where c.project_id = $1 order by o.id',
            [caller.projectId],
          );
    return rows.map((row) => ({ id: Number(row.id), name: row.name as string, createdAt: iso(row.created_at)! }));
  }

  /** Members of an organization (any role), oldest first; `statuses` narrows them (invitations: invited, link_sent). */
  members(input: z.output<typeof membersInput>, statuses: readonly string[] = input.status ? [input.status] : []) {
    const values = new StatementValues();
    const where = [`organization_id = ${values.bind(input.organizationId)}`];
    if (statuses.length) where.push(`status = any(${values.bind(statuses)})`);
    return keysetPage(
      this.deps.orm,
      {
        name: 'ops_members',
        columns:
          'id, member_id as "memberId", first_name as "firstName", last_name as "lastName", email, role, status, svc_id as "svcId", created_at as "createdAt"',
        from: 'member',
        where,
        values,
        order: 'asc',
        first: input.first,
        after: input.after,
      },
      (row: MemberFields & { cursor_at: string }) => camelMember(memberView(row)),
    );
  }
}

/** The roster's Member view in the admin API's camelCase (the fields of its declaration, renamed). */
export const camelMember = (member: MemberView) => camelView(memberWire, member);
