// The admin console's script (/admin). Lists are server-side pages of the GraphQL admin API (every
// document is in queries.ts); the statuses, features and roles it offers come from core.
import '../design/components.css';
import './console.css';
import { ADMIN_ROLES, APPROVAL_RULE, MEMBER_STATUSES, SESSION_STATUSES, WEBHOOK_EVENT_STATES, WORKFLOW_FEATURES } from '../../src/core/vocabulary.js';
import { type Child, h, svg } from '../lib/dom.js';
import { QUERIES } from './queries.js';

type Role = (typeof ADMIN_ROLES)[number];
type SessionStatus = (typeof SESSION_STATUSES)[number];
interface Connection<T> { edges: { node: T }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } }
interface Project { id: string; name: string; balance: number; currency: string }
interface Organization { id: number; name: string }
interface SessionRow { id: string; status: SessionStatus; vendorData: string | null; svcId: string | null; decision: string | null; createdAt: string; decidedAt: string | null; workflow: { name: string } | null }
interface Attempt { attempt: number; at: string; httpStatus: number | null; latencyMs: number; error: string | null }
interface WebhookEventRow { id: string; type: string; state: string; url: string | null; attemptCount: number; createdAt: string; sessionId: string; attempts: Attempt[] }
interface Member { memberId: string; email: string; firstName: string; lastName: string; role: string; status: string; createdAt: string }
interface Health { destination: string; healthy: boolean; attemptsLastHour: number; successRateLastHour: number | null; attemptsLastDay: number; successRateLastDay: number | null; consecutiveFailures: number; nextRetryAt: string | null; lastStatus: number | null; lastError: string | null; lastSuccessAt: string | null }
interface WebhookStats { events: number; delivered: number; failed: number; backlog: number; oldestPendingAt: string | null; successRate: number | null }

const TOKEN_KEY = 'verity-admin-token';
const PROJECT_KEY = 'verity-admin-project';
// Chart colours per status (the pills use the design system's tones).
const COLORS: Record<SessionStatus, string> = { NOT_STARTED: '#b9c3d4', IN_PROGRESS: '#6f9cf2', IN_REVIEW: '#f2c14e', APPROVED: '#2e9e6a', DECLINED: '#d0443a', EXPIRED: '#8a94a6', ABANDONED: '#5a6577' };
const GOOD = ['APPROVED', 'delivered', 'passed', 'active'];
const BAD = ['DECLINED', 'failed', 'deactivated', 'disabled'];
const WAITING = ['IN_REVIEW', 'review', 'pending', 'link_sent', 'invited'];

const state: { me: { tokenId: string; role: Role; projectId: string | null } | null; projects: Project[]; projectId: string | null; organizations: Organization[]; organizationId: number | null } =
  { me: null, projects: [], projectId: sessionStorage.getItem(PROJECT_KEY), organizations: [], organizationId: null };
const $app = document.getElementById('app') as HTMLElement;

const pill = (text: string) => h('span', { class: 'pill ' + (GOOD.includes(text) ? 'pill--good' : BAD.includes(text) ? 'pill--bad' : WAITING.includes(text) ? 'pill--wait' : '') }, text);
const when = (iso: string | null | undefined) => (iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 19) : '');
const can = (role: Role) => state.me !== null && ADMIN_ROLES.indexOf(state.me.role) >= ADMIN_ROLES.indexOf(role);
const table = (heads: string[], rows: Child[]) => h('div', { class: 'table-scroll' }, h('table', null, h('thead', null, h('tr', null, heads.map((t) => h('th', null, t)))), h('tbody', null, rows)));
const options = (values: readonly string[], any?: string) => [any ? h('option', { value: '' }, any) : null, values.map((value) => h('option', { value }, value))];

class ApiError extends Error {
  constructor(message: string, readonly code?: string) {
    super(message);
  }
}

// biome-ignore lint/suspicious/noExplicitAny: answers are shaped by the documents in queries.ts, which a test validates against the schema
async function gql<T = any>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + sessionStorage.getItem(TOKEN_KEY) },
    body: JSON.stringify({ query, variables }),
  });
  const body = await response.json().catch(() => ({ errors: [{ message: 'unreadable answer', extensions: { code: 'internal_error' } }] }));
  if (body.errors?.length) {
    const error = body.errors[0];
    // A token revoked mid-session: back to the sign-in form.
    if (state.me && error.extensions?.code === 'unauthenticated') signOut();
    throw new ApiError(error.message, error.extensions?.code);
  }
  return body.data as T;
}

function message(target: Element, error: unknown, ok?: string): void {
  const failure = error as ApiError | null;
  target.replaceChildren(failure ? h('div', { class: 'error', role: 'alert' }, (failure.code ? failure.code + ': ' : '') + failure.message) : h('div', { class: 'ok', role: 'status' }, ok ?? ''));
}

/** Runs an action from a button; shows its error or success in `out`. */
function action(button: HTMLButtonElement, out: Element, work: () => Promise<string | void>, ok?: string): HTMLButtonElement {
  button.addEventListener('click', async (event) => {
    event.preventDefault();
    button.disabled = true;
    try {
      const text = await work();
      message(out, null, text || ok);
    } catch (error) {
      message(out, error);
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

// ---------- sign-in and frame ----------

function signOut(): void {
  sessionStorage.removeItem(TOKEN_KEY);
  state.me = null;
  renderSignIn();
}

function renderSignIn(error?: unknown): void {
  const input = h('input', { type: 'password', name: 'token', placeholder: 'vat_...', autocomplete: 'off', required: true, 'aria-label': 'Admin token' });
  const out = h('div');
  if (error) message(out, error);
  const form = h('form', {
    id: 'signin',
    onsubmit: async (event: Event) => {
      event.preventDefault();
      sessionStorage.setItem(TOKEN_KEY, input.value.trim());
      try {
        await start();
      } catch (e) {
        sessionStorage.removeItem(TOKEN_KEY);
        message(out, e);
      }
    },
  }, h('h1', null, 'Verity admin'), h('p', { class: 'hint' }, 'Sign in with an admin token (viewer, reviewer or admin). It stays in this tab only.'), input, h('p', null, h('button', { type: 'submit' }, 'Sign in')), out);
  $app.replaceChildren(h('main', { class: 'console' }, h('section', { class: 'card' }, form)));
  input.focus();
}

const VIEWS = [['dashboard', 'Dashboard'], ['sessions', 'Sessions'], ['review', 'Review queue'], ['webhooks', 'Webhooks'], ['roster', 'Roster'], ['billing', 'Billing'], ['keys', 'Keys & workflows']] as const;

async function start(): Promise<void> {
  const data = await gql(QUERIES.start);
  state.me = data.me;
  state.projects = data.projects;
  state.organizations = data.organizations;
  if (!state.projects.some((p) => p.id === state.projectId)) state.projectId = state.projects[0]?.id ?? null;
  state.organizationId = state.organizations[0]?.id ?? null;
  if (!location.hash) location.hash = '#/dashboard';
  void route();
}

function frame(view: string, ...content: Child[]): void {
  const me = state.me!;
  const projectSelect = h('select', {
    'aria-label': 'Project',
    onchange: (e: Event) => {
      state.projectId = (e.target as HTMLSelectElement).value;
      sessionStorage.setItem(PROJECT_KEY, state.projectId);
      void route();
    },
  }, state.projects.map((p) => h('option', { value: p.id, selected: p.id === state.projectId }, p.name + ' (' + p.id + ')')));
  const header = h('header', { class: 'bar' }, h('b', null, 'Verity admin'), projectSelect, h('span', { class: 'who' }, me.role + (me.projectId ? ' · one project' : ' · all projects')), h('button', { class: 'secondary', onclick: signOut }, 'Sign out'));
  const nav = h('nav', { class: 'views' }, VIEWS.map(([id, label]) => h('a', { href: '#/' + id, class: view === id ? 'on' : null }, label)));
  $app.replaceChildren(header, nav, h('main', { class: 'console' }, content));
}

const ROUTES: Record<string, (arg?: string) => Promise<void>> = {
  dashboard: dashboardView, sessions: sessionsView, session: (id) => sessionView(id ?? ''), review: reviewView, webhooks: webhooksView, roster: rosterView, billing: billingView, keys: keysView,
};

async function route(): Promise<void> {
  if (!state.me) return;
  const [view = 'dashboard', arg] = location.hash.replace(/^#\/?/, '').split('/');
  const render = ROUTES[view] ?? dashboardView;
  frame(view === 'session' ? 'sessions' : view, h('p', { class: 'hint' }, 'Loading…'));
  try {
    await render(arg ? decodeURIComponent(arg) : undefined);
  } catch (error) {
    const out = h('div');
    message(out, error);
    frame(view, out);
  }
}
window.addEventListener('hashchange', () => void route());

/** A server-side paged list: `load(after)` returns a connection; `row(node)` draws one. */
function paged<T>(heads: string[], load: (after: string | null) => Promise<Connection<T>>, row: (node: T) => HTMLElement) {
  const body = h('tbody');
  const info = h('span', { class: 'hint' });
  const stack: (string | null)[] = [];
  let current: string | null = null;
  let nextCursor: string | null = null;
  const prev = h('button', { class: 'secondary', onclick: () => { current = stack.pop() ?? null; void show(); } }, '‹ Previous');
  const next = h('button', { class: 'secondary', onclick: () => { stack.push(current); current = nextCursor; void show(); } }, 'Next ›');
  async function show(): Promise<void> {
    const connection = await load(current);
    body.replaceChildren(...connection.edges.map((edge) => row(edge.node)));
    if (!connection.edges.length) body.append(h('tr', null, h('td', { colspan: heads.length, class: 'hint' }, 'Nothing here.')));
    nextCursor = connection.pageInfo.endCursor;
    next.disabled = !connection.pageInfo.hasNextPage;
    prev.disabled = stack.length === 0;
    info.textContent = 'page ' + (stack.length + 1);
  }
  const element = h('div', null, h('div', { class: 'table-scroll' }, h('table', null, h('thead', null, h('tr', null, heads.map((t) => h('th', null, t)))), body)), h('div', { class: 'pager' }, prev, next, info));
  return { element, show, reset: () => { stack.length = 0; current = null; return show(); } };
}

// ---------- sessions ----------

const sessionRow = (s: SessionRow, extra?: Child) => h('tr', { class: 'link', onclick: () => { location.hash = '#/session/' + encodeURIComponent(s.id); } },
  h('td', null, s.id), h('td', null, pill(s.status)), h('td', null, s.workflow ? s.workflow.name : ''), h('td', null, s.vendorData || ''), h('td', null, when(s.createdAt)), extra ? h('td', null, extra) : null);

async function sessionsView(): Promise<void> {
  const workflows: { id: string; name: string }[] = (await gql(QUERIES.workflowNames, { p: state.projectId })).workflows;
  const field = (label: string, input: HTMLElement) => h('label', null, label, input);
  const inputs: Record<string, HTMLInputElement | HTMLSelectElement> = {
    status: h('select', { name: 'status' }, options(SESSION_STATUSES, 'any')),
    workflowId: h('select', { name: 'workflowId' }, h('option', { value: '' }, 'any'), workflows.map((w) => h('option', { value: w.id }, w.name))),
    vendorData: h('input', { name: 'vendorData', placeholder: 'exact' }),
    svcId: h('input', { name: 'svcId', placeholder: 'svc_…' }),
    decision: h('select', { name: 'decision' }, options(['APPROVED', 'DECLINED', 'EXPIRED', 'ABANDONED'] satisfies SessionStatus[], 'any')),
    createdFrom: h('input', { name: 'createdFrom', type: 'date' }),
    createdTo: h('input', { name: 'createdTo', type: 'date' }),
  };
  const sort = h('select', { name: 'sort' }, h('option', { value: 'CREATED_AT_DESC' }, 'newest first'), h('option', { value: 'CREATED_AT_ASC' }, 'oldest first'));
  const out = h('div');
  const filter = () => {
    const value: Record<string, string> = {};
    for (const [key, input] of Object.entries(inputs)) if (input.value) value[key] = key.startsWith('created') ? input.value + 'T00:00:00Z' : input.value.trim();
    return value;
  };
  const list = paged<SessionRow>(['Session', 'Status', 'Workflow', 'Vendor data', 'Created'], async (after) =>
    (await gql(QUERIES.sessions, { p: state.projectId, f: filter(), s: sort.value, a: after })).sessions, (s) => sessionRow(s));
  const form = h('form', { class: 'row', onsubmit: (e: Event) => { e.preventDefault(); list.reset().then(() => out.replaceChildren(), (error) => message(out, error)); } },
    field('Status', inputs.status!), field('Workflow', inputs.workflowId!), field('Vendor data', inputs.vendorData!), field('svc_id', inputs.svcId!), field('Decision', inputs.decision!),
    field('Created from', inputs.createdFrom!), field('Created before', inputs.createdTo!), field('Sort', sort), h('button', { type: 'submit' }, 'Search'));
  frame('sessions', h('section', { class: 'card' }, h('h1', null, 'Sessions'), form, out, list.element));
  await list.show();
}

function reviewButtons(sessionId: string, out: Element, after?: () => void): HTMLElement {
  if (!can('reviewer')) return h('span', { class: 'hint' }, 'reviewer role needed to decide');
  const decide = (status: 'APPROVED' | 'DECLINED') => action(h('button', { class: status === 'DECLINED' ? 'danger' : null }, status === 'APPROVED' ? 'Approve' : 'Decline'), out, async () => {
    const data = await gql(QUERIES.reviewSession, { i: { projectId: state.projectId, sessionId, status } });
    if (after) setTimeout(after, 600);
    return 'Session ' + data.reviewSession.id + ' is now ' + data.reviewSession.status;
  });
  return h('span', null, decide('APPROVED'), ' ', decide('DECLINED'));
}

function resendButton(eventId: string, out: Element): HTMLButtonElement | null {
  if (!can('admin')) return null;
  return action(h('button', { class: 'secondary' }, 'Resend'), out, async () => {
    const data = await gql(QUERIES.resendWebhookEvent, { i: { projectId: state.projectId, eventId } });
    return 'Event ' + data.resendWebhookEvent.id + ' queued again (' + data.resendWebhookEvent.state + ')';
  });
}

async function sessionView(sessionId: string): Promise<void> {
  const s = (await gql(can('reviewer') ? QUERIES.sessionWithDetails : QUERIES.session, { p: state.projectId, s: sessionId })).session;
  const out = h('div');
  const facts: [string, Child][] = [['Status', pill(s.status)], ['Workflow', (s.workflow ? s.workflow.name : '') + ' (' + s.workflowId + ')'], ['Features', s.features.join(', ')], ['Vendor data', s.vendorData || '—'], ['Account', s.svcId || '—'],
    ['Decision', s.decision ? s.decision + ' by ' + s.decidedBy + ' at ' + when(s.decidedAt) : '—'], ['Created', when(s.createdAt)], ['Expires', when(s.expiresAt)]];
  type CheckRow = { type: string; status: string; score: number | null; reason: string | null; details?: string | null };
  type TimelineRow = { from: string | null; to: string; actor: string; reason: string | null; at: string };
  frame('sessions',
    h('section', { class: 'card' }, h('h1', null, 'Session ' + s.id), table(['', ''], facts.map(([k, v]) => h('tr', null, h('th', null, k), h('td', null, v)))),
      s.status === 'IN_REVIEW' ? h('p', null, reviewButtons(s.id, out, () => void route())) : null, out),
    h('section', { class: 'card' }, h('h2', null, 'Checks'),
      table(['Type', 'Status', 'Score', 'Reason', 'Details'], s.checks.map((c: CheckRow) => h('tr', null, h('td', null, c.type), h('td', null, pill(c.status)), h('td', null, c.score === null ? '' : c.score), h('td', null, c.reason || ''),
        h('td', null, c.details ? h('pre', null, JSON.stringify(JSON.parse(c.details), null, 1)) : h('span', { class: 'hint' }, can('reviewer') ? '' : 'reviewer role needed'))))),
      h('p', { class: 'hint', id: 'images' }, s.imagesRetained ? 'Images are retained for this session.' : 'Images: none. Verity retains no document or selfie images (they are read, then dropped), so there is nothing to show.')),
    h('section', { class: 'card' }, h('h2', null, 'Timeline'), table(['At', 'From', 'To', 'By', 'Why'], s.timeline.map((t: TimelineRow) => h('tr', null, h('td', null, when(t.at)), h('td', null, t.from || ''), h('td', null, pill(t.to)), h('td', null, t.actor), h('td', null, t.reason || ''))))),
    h('section', { class: 'card' }, h('h2', null, 'Webhook events'), s.webhookEvents.length ? s.webhookEvents.map((e: WebhookEventRow) => h('div', null,
      h('p', null, h('b', null, e.type), ' ', pill(e.state), ' → ', e.url || 'no destination', ' ', resendButton(e.id, out)),
      table(['#', 'At', 'HTTP', 'ms', 'Error'], e.attempts.map((a) => h('tr', null, h('td', null, a.attempt), h('td', null, when(a.at)), h('td', null, a.httpStatus === null ? 'no answer' : a.httpStatus), h('td', null, a.latencyMs), h('td', null, a.error || ''))))))
      : h('p', { class: 'hint' }, 'No webhook events yet.')));
}

async function reviewView(): Promise<void> {
  const out = h('div');
  const list = paged<SessionRow>(['Session', 'Status', 'Workflow', 'Vendor data', 'Created', 'Decide'], async (after) => (await gql(QUERIES.reviewQueue, { p: state.projectId, a: after })).reviewQueue,
    (s) => {
      const row = sessionRow(s, reviewButtons(s.id, out));
      for (const button of row.querySelectorAll('button')) button.addEventListener('click', (e) => e.stopPropagation());
      return row;
    });
  frame('review', h('section', { class: 'card' }, h('h1', null, 'Review queue'), h('p', { class: 'hint' }, `Sessions in IN_REVIEW, oldest first. Core's rule: ${APPROVAL_RULE} (409 otherwise).`), out, list.element));
  await list.show();
}

// ---------- webhooks ----------

async function webhooksView(): Promise<void> {
  const out = h('div');
  const stateSelect = h('select', { name: 'state', 'aria-label': 'State' }, options(WEBHOOK_EVENT_STATES, 'any state'));
  const list = paged<WebhookEventRow>(['Event', 'Type', 'State', 'Attempts', 'Last answer', 'Created', ''], async (after) =>
    (await gql(QUERIES.webhookEvents, { p: state.projectId, st: stateSelect.value || null, a: after })).webhookEvents,
    (e) => {
      const last = e.attempts[e.attempts.length - 1];
      return h('tr', null, h('td', null, h('a', { href: '#/session/' + e.sessionId }, e.id)), h('td', null, e.type), h('td', null, pill(e.state)), h('td', null, e.attemptCount),
        h('td', null, last ? (last.httpStatus === null ? last.error || 'no answer' : 'HTTP ' + last.httpStatus) : ''), h('td', null, when(e.createdAt)), h('td', null, resendButton(e.id, out)));
    });
  stateSelect.addEventListener('change', () => list.reset().catch((error) => message(out, error)));
  frame('webhooks', h('section', { class: 'card' }, h('h1', null, 'Webhook deliveries'), h('form', { class: 'row' }, h('label', null, 'State', stateSelect)), out, list.element));
  await list.show();
}

// ---------- roster ----------

async function rosterView(): Promise<void> {
  const out = h('div');
  if (!state.organizations.length) {
    frame('roster', h('section', { class: 'card' }, h('h1', null, 'Roster'), h('p', { class: 'hint' }, 'No organization is visible to this token.')));
    return;
  }
  const orgSelect = h('select', { 'aria-label': 'Organization', onchange: (e: Event) => { state.organizationId = Number((e.target as HTMLSelectElement).value); void route(); } },
    state.organizations.map((o) => h('option', { value: o.id, selected: o.id === state.organizationId }, o.name + ' (#' + o.id + ')')));
  const statusSelect = h('select', { 'aria-label': 'Member status' }, options(MEMBER_STATUSES, 'any status'));
  const memberAction = (name: 'reactivateMember' | 'deactivateMember', label: string, memberId: string) => can('admin') ? action(h('button', { class: 'secondary' }, label), out, async () => {
    const data = await gql(QUERIES[name], { i: { organizationId: state.organizationId, memberId } });
    await list.show();
    return data[name].email + ' is now ' + data[name].status;
  }) : null;
  const list = paged<Member>(['Member', 'Email', 'Name', 'Role', 'Status', 'Since', ''], async (after) =>
    (await gql(QUERIES.members, { o: state.organizationId, st: statusSelect.value || null, a: after })).members,
    (m) => h('tr', null, h('td', null, m.memberId), h('td', null, m.email), h('td', null, (m.firstName + ' ' + m.lastName).trim()), h('td', null, m.role), h('td', null, pill(m.status)), h('td', null, when(m.createdAt)),
      h('td', null, m.status === 'deactivated' ? memberAction('reactivateMember', 'Reactivate', m.memberId) : memberAction('deactivateMember', 'Deactivate', m.memberId))));
  statusSelect.addEventListener('change', () => list.reset().catch((error) => message(out, error)));
  const email = h('input', { name: 'email', type: 'email', required: true, placeholder: 'person@example.com' });
  const first = h('input', { name: 'firstName', placeholder: 'First name' });
  const last = h('input', { name: 'lastName', placeholder: 'Last name' });
  const notify = h('input', { type: 'checkbox', name: 'notify' });
  const invite: HTMLFormElement = h('form', {
    class: 'row',
    onsubmit: async (e: Event) => {
      e.preventDefault();
      try {
        const data = await gql(QUERIES.inviteMembers,
          { i: { organizationId: state.organizationId, members: [{ email: email.value.trim(), firstName: first.value.trim() || null, lastName: last.value.trim() || null }], notify: notify.checked, invite: notify.checked ? 'email' : 'face' } });
        const result: { created: { member: { email: string }; activationLink: string | null }[]; skipped: { email: string; reason: string }[] } = data.inviteMembers;
        const made = result.created[0];
        message(out, null, made ? 'Invited ' + made.member.email + (made.activationLink ? ': activation link ' + made.activationLink : ' (emailed)') : 'Not invited: ' + result.skipped.map((s) => s.email + ' ' + s.reason).join(', '));
        invite.reset();
        await list.show();
      } catch (error) {
        message(out, error);
      }
    },
  }, h('label', null, 'Email', email), h('label', null, 'First name', first), h('label', null, 'Last name', last), h('label', null, 'Email the link', notify), h('button', { type: 'submit', disabled: !can('admin') }, 'Invite'));
  frame('roster', h('section', { class: 'card' }, h('h1', null, 'Roster'), h('form', { class: 'row' }, h('label', null, 'Organization', orgSelect), h('label', null, 'Status', statusSelect)),
    h('h2', null, 'Invite a member'), invite, out, h('h2', null, 'Members'), list.element));
  await list.show();
}

// ---------- billing, keys and workflows ----------

async function billingView(): Promise<void> {
  const project = state.projects.find((p) => p.id === state.projectId);
  const data = await gql(QUERIES.billing, { p: state.projectId });
  type Charge = { item: string; amount: number; currency: string; refunded: boolean; createdAt: string };
  const sections: HTMLElement[] = [h('section', { class: 'card' }, h('h1', null, 'Billing'), h('p', null, 'Wallet of ' + (project ? project.name : state.projectId) + ': ', h('span', { class: 'big' }, data.project.balance.toFixed(2) + ' ' + data.project.currency)),
    h('h2', null, 'Latest charges'), table(['When', 'Item', 'Amount', ''], data.charges.map((c: Charge) => h('tr', null, h('td', null, when(c.createdAt)), h('td', null, c.item), h('td', null, c.amount.toFixed(2) + ' ' + c.currency), h('td', null, c.refunded ? pill('refunded') : '')))))];
  for (const org of state.organizations) {
    const b = (await gql(QUERIES.organizationBilling, { o: org.id })).organizationBilling;
    type Invoice = { period: string; seats: number; amount: number };
    sections.push(h('section', { class: 'card' }, h('h2', null, 'Roster billing: ' + org.name),
      h('p', null, b.subscription ? 'Plan ' + b.subscription.plan + ' (' + b.subscription.status + '), ' + b.subscription.pricePerSeat + ' ' + b.currency + ' per seat' : 'No plan', ' · seats ' + b.seats + ' · next charge ' + b.estimatedNextCharge + ' ' + b.currency + ' · owed ' + b.balance + ' ' + b.currency),
      table(['Period', 'Seats', 'Amount'], b.invoices.map((i: Invoice) => h('tr', null, h('td', null, i.period), h('td', null, i.seats), h('td', null, i.amount + ' ' + b.currency))))));
  }
  frame('billing', sections);
}

async function keysView(): Promise<void> {
  const out = h('div');
  const data = await gql(QUERIES.keys, { p: state.projectId });
  type Key = { id: string; name: string; prefix: string; createdAt: string; revokedAt: string | null };
  type Workflow = { id: string; name: string; features: string[]; createdAt: string };
  type Destination = { url: string; active: boolean };
  const admin = can('admin');
  const later = () => setTimeout(() => void route(), 800);
  const revoke = (key: Key) => admin && !key.revokedAt ? action(h('button', { class: 'danger' }, 'Revoke'), out, async () => {
    await gql(QUERIES.revokeApiKey, { i: { projectId: state.projectId, apiKeyId: key.id } });
    later();
    return 'Key ' + key.prefix + '… revoked';
  }) : null;
  const keyName = h('input', { placeholder: 'Key name', 'aria-label': 'Key name' });
  const createKey = action(h('button', { disabled: !admin }, 'Create API key'), out, async () => {
    const made = (await gql(QUERIES.createApiKey, { i: { projectId: state.projectId, name: keyName.value.trim() || null } })).createApiKey;
    return 'New key (shown once, copy it now): ' + made.key;
  });
  const wfName = h('input', { placeholder: 'Workflow name', 'aria-label': 'Workflow name' });
  const boxes = WORKFLOW_FEATURES.map((f) => h('label', null, f, h('input', { type: 'checkbox', value: f })));
  const createWorkflow = action(h('button', { disabled: !admin }, 'Create workflow'), out, async () => {
    const features = boxes.map((b) => b.querySelector('input')!).filter((i) => i.checked).map((i) => i.value);
    const wf = (await gql(QUERIES.createWorkflow, { i: { projectId: state.projectId, name: wfName.value.trim(), features } })).createWorkflow;
    later();
    return 'Workflow ' + wf.name + ' created: ' + wf.id;
  });
  const toggle = (d: Destination) => admin ? action(h('button', { class: 'secondary' }, d.active ? 'Disable' : 'Enable'), out, async () => {
    await gql(QUERIES.setCallbackActive, { i: { projectId: state.projectId, url: d.url, active: !d.active } });
    later();
    return d.url + (d.active ? ' disabled' : ' enabled');
  }) : null;
  frame('keys', out,
    h('section', { class: 'card' }, h('h1', null, 'API keys'), h('p', { class: 'hint' }, 'Secrets are shown once, at creation; the list never holds them.'),
      table(['Prefix', 'Name', 'Created', 'Revoked', ''], data.apiKeys.map((k: Key) => h('tr', null, h('td', null, k.prefix + '…'), h('td', null, k.name), h('td', null, when(k.createdAt)), h('td', null, when(k.revokedAt)), h('td', null, revoke(k))))),
      h('form', { class: 'row' }, keyName, createKey)),
    h('section', { class: 'card' }, h('h2', null, 'Workflows'), table(['Id', 'Name', 'Features', 'Created'], data.workflows.map((w: Workflow) => h('tr', null, h('td', null, w.id), h('td', null, w.name), h('td', null, w.features.join(', ')), h('td', null, when(w.createdAt))))),
      h('form', { class: 'row' }, wfName, boxes, createWorkflow)),
    h('section', { class: 'card' }, h('h2', null, 'Callback destinations'), table(['URL', 'Active', ''], data.callbackDestinations.map((d: Destination) => h('tr', null, h('td', null, d.url), h('td', null, d.active ? pill('active') : pill('disabled')), h('td', null, toggle(d)))))));
}

// ---------- dashboard ----------

function barChart(items: { label: string; value: number; color?: string }[], chartOptions: { label: string; format?: (value: number) => string }): Element {
  const width = 560;
  const barH = 22;
  const gap = 6;
  const labelW = 190;
  const max = Math.max(1, ...items.map((i) => i.value));
  const chart = svg('svg', { width: '100%', viewBox: '0 0 ' + width + ' ' + Math.max(30, items.length * (barH + gap)), role: 'img', 'aria-label': chartOptions.label });
  items.forEach((item, index) => {
    const y = index * (barH + gap);
    const w = ((width - labelW - 60) * item.value) / max;
    chart.append(svg('text', { x: 0, y: y + 15, 'font-size': 12 }, item.label), svg('rect', { x: labelW, y, width: Math.max(1, w), height: barH, fill: item.color ?? '#2457c5', rx: 3 }),
      svg('text', { x: labelW + w + 6, y: y + 15, 'font-size': 12 }, chartOptions.format ? chartOptions.format(item.value) : item.value));
  });
  return items.length ? chart : h('p', { class: 'hint' }, 'No data in this range.');
}

function stackedDays(rows: { day: string; status: SessionStatus; count: number }[]): Element {
  const days = [...new Set(rows.map((r) => r.day))];
  if (!days.length) return h('p', { class: 'hint' }, 'No sessions in this range.');
  const totals = days.map((d) => rows.filter((r) => r.day === d).reduce((sum, r) => sum + r.count, 0));
  const max = Math.max(1, ...totals);
  const width = 620;
  const height = 180;
  const slot = (width - 40) / days.length;
  const chart = svg('svg', { width: '100%', viewBox: '0 0 ' + width + ' ' + (height + 40), role: 'img', 'aria-label': 'Sessions per day by status' });
  days.forEach((day, i) => {
    let y = height;
    for (const status of SESSION_STATUSES) {
      const row = rows.find((r) => r.day === day && r.status === status);
      if (!row) continue;
      const barHeight = (height * row.count) / max;
      y -= barHeight;
      chart.append(svg('rect', { x: 40 + i * slot + 2, y, width: Math.max(2, slot - 4), height: barHeight, fill: COLORS[status] }, svg('title', {}, day + ' ' + status + ': ' + row.count)));
    }
    if (days.length <= 14 || i % Math.ceil(days.length / 10) === 0) chart.append(svg('text', { x: 40 + i * slot, y: height + 14, 'font-size': 10 }, day.slice(5)));
  });
  chart.append(svg('text', { x: 0, y: 12, 'font-size': 10 }, String(max)));
  const legend = h('p', null, SESSION_STATUSES.map((s) => [svg('svg', { width: 10, height: 10, 'aria-hidden': 'true' }, svg('rect', { width: 10, height: 10, fill: COLORS[s], rx: 2 })), ' ', h('span', { class: 'pill' }, s), ' ']));
  return h('div', null, chart, legend);
}

async function dashboardView(): Promise<void> {
  const data = await gql(QUERIES.dashboard, { p: state.projectId });
  const pct = (v: number | null) => (v === null ? '—' : (v * 100).toFixed(1) + '%');
  const secs = (v: number | null) => (v === null ? '—' : v < 120 ? v.toFixed(0) + ' s' : (v / 60).toFixed(1) + ' min');
  const t = data.timeToDecision;
  type Rate = { workflowId: string; workflowName: string | null; sessions: number; approvalRate: number | null };
  type Reason = { source: string; type: string; reason: string; count: number };
  frame('dashboard', h('h1', null, 'Dashboard (last 30 days)'), h('div', { class: 'grid' },
    h('section', { class: 'card' }, h('h2', null, 'Sessions per day'), stackedDays(data.sessionsPerDay)),
    h('section', { class: 'card' }, h('h2', null, 'Approval rate per workflow'), barChart(data.approvalRates.map((r: Rate) => ({ label: (r.workflowName || r.workflowId) + ' (' + r.sessions + ')', value: r.approvalRate || 0, color: '#2e9e6a' })), { label: 'Approval rate per workflow', format: pct })),
    h('section', { class: 'card' }, h('h2', null, 'Time to decision'), h('p', null, 'Median ', h('span', { class: 'big', id: 'median' }, secs(t.medianSeconds)), ' · p90 ' + secs(t.p90Seconds) + ' · ' + t.decided + ' decided')),
    h('section', { class: 'card' }, h('h2', null, 'Check failure reasons'), barChart(data.checkFailureReasons.slice(0, 12).map((r: Reason) => ({ label: r.type + ': ' + r.reason + (r.source === 'standalone' ? ' (standalone)' : ''), value: r.count, color: '#d0443a' })), { label: 'Check failure reasons' })),
    webhookCard(data.webhookHealth, data.webhookStats, pct)));
}

/** The webhook headline: how receivers answer now (attempts of the last hour), unhealthy destinations first; the 30-day event figures below. */
function webhookCard(health: Health[], w: WebhookStats, pct: (v: number | null) => string): HTMLElement {
  const recent = (attempts: 'attemptsLastHour' | 'attemptsLastDay', rate: 'successRateLastHour' | 'successRateLastDay') => health.reduce((sum, d) => sum + d[attempts] * (d[rate] ?? 0), 0);
  const hourAttempts = health.reduce((sum, d) => sum + d.attemptsLastHour, 0);
  const dayAttempts = health.reduce((sum, d) => sum + d.attemptsLastDay, 0);
  const hourRate = hourAttempts ? recent('attemptsLastHour', 'successRateLastHour') / hourAttempts : null;
  const dayRate = dayAttempts ? recent('attemptsLastDay', 'successRateLastDay') / dayAttempts : null;
  const sick = health.filter((d) => !d.healthy);
  const last = (d: Health) => (d.lastStatus !== null ? 'last answer ' + d.lastStatus : d.lastError ? 'last error: ' + d.lastError : 'no attempt yet');
  return h('section', { class: 'card', id: 'webhook-health' }, h('h2', null, 'Webhooks'),
    sick.length ? h('div', { class: 'unhealthy' },
      h('p', null, h('b', { class: 'headline' }, sick.length + ' unhealthy destination' + (sick.length > 1 ? 's' : ''))),
      sick.map((d) => h('p', null, h('b', null, d.destination), ' · ' + d.consecutiveFailures + ' failed in a row · ' + last(d) + ' · ' + pct(d.successRateLastHour) + ' ok in the last hour',
        d.lastSuccessAt ? ' · last success ' + when(d.lastSuccessAt) : ' · no success in 7 days', d.nextRetryAt ? ' · next retry ' + when(d.nextRetryAt) : ''))) : null,
    h('p', null, 'Attempts answered 2xx, last hour ', h('span', { class: 'big', id: 'webhook-recent-success' }, pct(hourRate)), ' (' + hourAttempts + ' attempts) · last day ' + pct(dayRate) + ' (' + dayAttempts + ')'),
    h('p', null, health.length + ' destination' + (health.length === 1 ? '' : 's') + ', ' + (health.length - sick.length) + ' healthy'),
    h('p', { class: 'hint' }, '30 days: events eventually delivered ' + pct(w.successRate) + ' · backlog ', h('b', null, w.backlog), w.oldestPendingAt ? ' (oldest ' + when(w.oldestPendingAt) + ')' : '', ' · delivered ' + w.delivered + ' · failed ' + w.failed + ' of ' + w.events));
}

if (sessionStorage.getItem(TOKEN_KEY)) start().catch((error) => renderSignIn(error));
else renderSignIn();
