import { Router } from 'express';

// The admin console at /admin: one HTML shell and one script from our origin (no CDN, no build
// step). It speaks only the GraphQL admin API, with the admin token kept in sessionStorage (gone
// when the tab closes). Every list is a server-side page, so it stays fast on large projects.

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#17202e;background:#f3f5f9}
header{display:flex;flex-wrap:wrap;align-items:center;gap:.75rem;padding:.6rem 1rem;background:#17202e;color:#fff}
header b{color:#8fb3ff;margin-right:.5rem}header select{max-width:16rem}header .who{margin-left:auto;opacity:.8}
nav{display:flex;flex-wrap:wrap;gap:.25rem;padding:.5rem 1rem;background:#fff;border-bottom:1px solid #d9dfea}
nav a{padding:.35rem .7rem;border-radius:6px;color:#2457c5;text-decoration:none}nav a.on{background:#2457c5;color:#fff}
main{padding:1rem;max-width:80rem;margin:0 auto}section.card{background:#fff;border-radius:10px;padding:1rem;margin-bottom:1rem;box-shadow:0 1px 3px rgba(20,30,50,.12)}
h1{font-size:1.3rem;margin:.2rem 0 .8rem}h2{font-size:1.05rem;margin:.2rem 0 .6rem}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #e6ebf4;vertical-align:top}th{font-weight:600;color:#5a6577}
tr.link{cursor:pointer}tr.link:hover{background:#f0f4fc}
form.row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end;margin-bottom:.8rem}form.row label{display:flex;flex-direction:column;font-size:.8rem;color:#5a6577}
input,select,button{font:inherit;padding:.35rem .5rem;border:1px solid #b9c3d4;border-radius:6px;background:#fff}
button{background:#2457c5;color:#fff;border:0;cursor:pointer}button.secondary{background:#e6ebf4;color:#17202e}button.danger{background:#b42318}button:disabled{opacity:.5}
.error{color:#b42318;background:#fdecea;border-radius:6px;padding:.5rem .7rem;margin:.5rem 0}.ok{color:#1f7a4f;background:#e7f6ee;border-radius:6px;padding:.5rem .7rem;margin:.5rem 0;word-break:break-all}
.hint{color:#5a6577}.pill{display:inline-block;padding:0 .45rem;border-radius:9px;background:#e6ebf4;font-size:.8rem}
.APPROVED,.delivered,.passed,.active{background:#d5f0e1}.DECLINED,.failed,.deactivated,.disabled{background:#fbd9d5}.IN_REVIEW,.review,.pending,.link_sent,.invited{background:#fff1c2}
pre{background:#f6f8fb;padding:.5rem;border-radius:6px;white-space:pre-wrap;word-break:break-all;max-height:16rem;overflow:auto;margin:.2rem 0}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(22rem,1fr));gap:1rem}.big{font-size:1.6rem;font-weight:700}
.pager{display:flex;gap:.5rem;align-items:center;margin-top:.6rem}#signin{max-width:26rem;margin:4rem auto}#signin input{width:100%}
`;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Verity admin</title><style>${STYLE}</style></head>
<body><div id="app"><p style="padding:1rem">Loading&hellip;</p></div><script src="/admin/assets/console.js" defer></script></body></html>`;

const SCRIPT = String.raw`
'use strict';
const TOKEN_KEY = 'verity-admin-token';
const STATUSES = ['NOT_STARTED', 'IN_PROGRESS', 'IN_REVIEW', 'APPROVED', 'DECLINED', 'EXPIRED', 'ABANDONED'];
const COLORS = { NOT_STARTED: '#b9c3d4', IN_PROGRESS: '#6f9cf2', IN_REVIEW: '#f2c14e', APPROVED: '#2e9e6a', DECLINED: '#d0443a', EXPIRED: '#8a94a6', ABANDONED: '#5a6577' };
const FEATURES = ['id_verification', 'liveness', 'face_match', 'age', 'credential', 'location'];
const RANK = { viewer: 0, reviewer: 1, admin: 2 };
const state = { me: null, projects: [], projectId: sessionStorage.getItem('verity-admin-project'), organizations: [], organizationId: null };
const $app = document.getElementById('app');

function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) node.addEventListener(key.slice(2), value); else node.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children.flat(Infinity)) if (child !== null && child !== undefined && child !== false) node.append(child instanceof Node ? child : String(child));
  return node;
}
const svg = (tag, attrs, ...children) => { const n = document.createElementNS('http://www.w3.org/2000/svg', tag); for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v); for (const c of children) n.append(c instanceof Node ? c : String(c)); return n; };
const pill = (text) => h('span', { class: 'pill ' + text }, text);
const when = (iso) => (iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 19) : '');
const can = (role) => state.me && RANK[state.me.role] >= RANK[role];
const table = (heads, rows) => h('table', {}, h('thead', {}, h('tr', {}, heads.map((t) => h('th', {}, t)))), h('tbody', {}, rows));

class ApiError extends Error { constructor(message, code) { super(message); this.code = code; } }

async function gql(query, variables) {
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + sessionStorage.getItem(TOKEN_KEY) },
    body: JSON.stringify({ query, variables: variables || {} }),
  });
  const body = await response.json().catch(() => ({ errors: [{ message: 'unreadable answer', extensions: { code: 'internal_error' } }] }));
  if (body.errors && body.errors.length) {
    const error = body.errors[0];
    // A token revoked mid-session: back to the sign-in form.
    if (state.me && error.extensions && error.extensions.code === 'unauthenticated') signOut();
    throw new ApiError(error.message, error.extensions && error.extensions.code);
  }
  return body.data;
}

function message(target, error, ok) {
  target.replaceChildren(error ? h('div', { class: 'error', role: 'alert' }, (error.code ? error.code + ': ' : '') + error.message) : h('div', { class: 'ok', role: 'status' }, ok));
}

/** Runs an action from a button; shows its error or success in 'out'. */
function action(button, out, work, ok) {
  button.addEventListener('click', async (event) => {
    event.preventDefault();
    button.disabled = true;
    try { const text = await work(); message(out, null, text || ok); } catch (error) { message(out, error); } finally { button.disabled = false; }
  });
  return button;
}

// ---------- sign-in and frame ----------

function signOut() {
  sessionStorage.removeItem(TOKEN_KEY);
  state.me = null;
  renderSignIn();
}

function renderSignIn(error) {
  const input = h('input', { type: 'password', name: 'token', placeholder: 'vat_...', autocomplete: 'off', required: true, 'aria-label': 'Admin token' });
  const out = h('div');
  if (error) message(out, error);
  const form = h('form', { id: 'signin', class: 'card', onsubmit: async (event) => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, input.value.trim());
    try { await start(); } catch (e) { sessionStorage.removeItem(TOKEN_KEY); message(out, e); }
  } }, h('h1', {}, 'Verity admin'), h('p', { class: 'hint' }, 'Sign in with an admin token (viewer, reviewer or admin). It stays in this tab only.'), input, h('p', {}, h('button', { type: 'submit' }, 'Sign in')), out);
  $app.replaceChildren(h('main', {}, h('section', { class: 'card' }, form)));
  input.focus();
}

const VIEWS = [['dashboard', 'Dashboard'], ['sessions', 'Sessions'], ['review', 'Review queue'], ['webhooks', 'Webhooks'], ['roster', 'Roster'], ['billing', 'Billing'], ['keys', 'Keys & workflows']];

async function start() {
  const data = await gql('{ me { tokenId role projectId } projects { id name balance currency } organizations { id name } }');
  state.me = data.me;
  state.projects = data.projects;
  state.organizations = data.organizations;
  if (!state.projects.some((p) => p.id === state.projectId)) state.projectId = state.projects[0] ? state.projects[0].id : null;
  state.organizationId = state.organizations[0] ? state.organizations[0].id : null;
  if (!location.hash) location.hash = '#/dashboard';
  route();
}

function frame(view, ...content) {
  const projectSelect = h('select', { 'aria-label': 'Project', onchange: (e) => { state.projectId = e.target.value; sessionStorage.setItem('verity-admin-project', state.projectId); route(); } },
    state.projects.map((p) => h('option', { value: p.id, selected: p.id === state.projectId }, p.name + ' (' + p.id + ')')));
  const header = h('header', {}, h('b', {}, 'Verity admin'), projectSelect, h('span', { class: 'who' }, state.me.role + (state.me.projectId ? ' · one project' : ' · all projects')), h('button', { class: 'secondary', onclick: signOut }, 'Sign out'));
  const nav = h('nav', {}, VIEWS.map(([id, label]) => h('a', { href: '#/' + id, class: view === id ? 'on' : null }, label)));
  $app.replaceChildren(header, nav, h('main', {}, content));
}

async function route() {
  if (!state.me) return;
  const [view, arg] = location.hash.replace(/^#\/?/, '').split('/');
  const render = { dashboard: dashboardView, sessions: sessionsView, session: sessionView, review: reviewView, webhooks: webhooksView, roster: rosterView, billing: billingView, keys: keysView }[view] || dashboardView;
  frame(view === 'session' ? 'sessions' : view, h('p', { class: 'hint' }, 'Loading…'));
  try { await render(arg ? decodeURIComponent(arg) : undefined); } catch (error) { const out = h('div'); message(out, error); frame(view, out); }
}
window.addEventListener('hashchange', route);

/** A server-side paged list: 'load(after)' returns a connection; 'row(node)' draws one. */
function paged(heads, load, row) {
  const body = h('tbody');
  const info = h('span', { class: 'hint' });
  const stack = [];
  let current = null;
  const prev = h('button', { class: 'secondary', onclick: () => { current = stack.pop() || null; show(); } }, '‹ Previous');
  const next = h('button', { class: 'secondary' }, 'Next ›');
  let nextCursor = null;
  next.addEventListener('click', () => { stack.push(current); current = nextCursor; show(); });
  async function show() {
    const connection = await load(current);
    body.replaceChildren(...connection.edges.map((edge) => row(edge.node)));
    if (!connection.edges.length) body.append(h('tr', {}, h('td', { colspan: heads.length, class: 'hint' }, 'Nothing here.')));
    nextCursor = connection.pageInfo.endCursor;
    next.disabled = !connection.pageInfo.hasNextPage;
    prev.disabled = stack.length === 0;
    info.textContent = 'page ' + (stack.length + 1);
  }
  const element = h('div', {}, h('table', {}, h('thead', {}, h('tr', {}, heads.map((t) => h('th', {}, t)))), body), h('div', { class: 'pager' }, prev, next, info));
  return { element, show, reset: () => { stack.length = 0; current = null; return show(); } };
}

// ---------- sessions ----------

const SESSION_FIELDS = 'id status vendorData svcId decision createdAt decidedAt workflow { name }';
const sessionRow = (s, extra) => h('tr', { class: 'link', onclick: () => { location.hash = '#/session/' + encodeURIComponent(s.id); } },
  h('td', {}, s.id), h('td', {}, pill(s.status)), h('td', {}, s.workflow ? s.workflow.name : ''), h('td', {}, s.vendorData || ''), h('td', {}, when(s.createdAt)), extra ? h('td', {}, extra) : null);

async function sessionsView() {
  const workflows = (await gql('query($p: String!) { workflows(projectId: $p) { id name } }', { p: state.projectId })).workflows;
  const field = (label, input) => h('label', {}, label, input);
  const inputs = {
    status: h('select', { name: 'status' }, h('option', { value: '' }, 'any'), STATUSES.map((s) => h('option', { value: s }, s))),
    workflowId: h('select', { name: 'workflowId' }, h('option', { value: '' }, 'any'), workflows.map((w) => h('option', { value: w.id }, w.name))),
    vendorData: h('input', { name: 'vendorData', placeholder: 'exact' }),
    svcId: h('input', { name: 'svcId', placeholder: 'svc_…' }),
    decision: h('select', { name: 'decision' }, h('option', { value: '' }, 'any'), ['APPROVED', 'DECLINED', 'EXPIRED', 'ABANDONED'].map((s) => h('option', { value: s }, s))),
    createdFrom: h('input', { name: 'createdFrom', type: 'date' }),
    createdTo: h('input', { name: 'createdTo', type: 'date' }),
  };
  const sort = h('select', { name: 'sort' }, h('option', { value: 'CREATED_AT_DESC' }, 'newest first'), h('option', { value: 'CREATED_AT_ASC' }, 'oldest first'));
  const out = h('div');
  const filter = () => {
    const value = {};
    for (const [key, input] of Object.entries(inputs)) if (input.value) value[key] = key.startsWith('created') ? input.value + 'T00:00:00Z' : input.value.trim();
    return value;
  };
  const list = paged(['Session', 'Status', 'Workflow', 'Vendor data', 'Created'], async (after) =>
    (await gql('query($p: String!, $f: SessionFilterInput, $s: SessionSort, $a: String) { sessions(projectId: $p, filter: $f, sort: $s, first: 25, after: $a) { edges { node { ' + SESSION_FIELDS + ' } } pageInfo { hasNextPage endCursor } } }',
      { p: state.projectId, f: filter(), s: sort.value, a: after })).sessions, (s) => sessionRow(s));
  const form = h('form', { class: 'row', onsubmit: (e) => { e.preventDefault(); list.reset().then(() => out.replaceChildren(), (error) => message(out, error)); } },
    field('Status', inputs.status), field('Workflow', inputs.workflowId), field('Vendor data', inputs.vendorData), field('svc_id', inputs.svcId), field('Decision', inputs.decision),
    field('Created from', inputs.createdFrom), field('Created before', inputs.createdTo), field('Sort', sort), h('button', { type: 'submit' }, 'Search'));
  frame('sessions', h('section', { class: 'card' }, h('h1', {}, 'Sessions'), form, out, list.element));
  await list.show();
}

function reviewButtons(sessionId, out, after) {
  if (!can('reviewer')) return h('span', { class: 'hint' }, 'reviewer role needed to decide');
  const decide = (status) => action(h('button', { class: status === 'DECLINED' ? 'danger' : null }, status === 'APPROVED' ? 'Approve' : 'Decline'), out, async () => {
    const data = await gql('mutation($i: ReviewSessionInput!) { reviewSession(input: $i) { id status } }', { i: { projectId: state.projectId, sessionId, status } });
    if (after) setTimeout(after, 600);
    return 'Session ' + data.reviewSession.id + ' is now ' + data.reviewSession.status;
  });
  return h('span', {}, decide('APPROVED'), ' ', decide('DECLINED'));
}

function resendButton(eventId, out) {
  if (!can('admin')) return null;
  return action(h('button', { class: 'secondary' }, 'Resend'), out, async () => {
    const data = await gql('mutation($i: WebhookEventRefInput!) { resendWebhookEvent(input: $i) { id state } }', { i: { projectId: state.projectId, eventId } });
    return 'Event ' + data.resendWebhookEvent.id + ' queued again (' + data.resendWebhookEvent.state + ')';
  });
}

async function sessionView(sessionId) {
  const details = can('reviewer') ? ' details' : '';
  const data = await gql('query($p: String!, $s: String!) { session(projectId: $p, sessionId: $s) { id status workflowId features vendorData svcId decision decidedAt decidedBy createdAt startedAt expiresAt imagesRetained workflow { name } checks { type status score reason createdAt' + details + ' } timeline { from to actor reason at } webhookEvents { id type state url attemptCount createdAt attempts { attempt at httpStatus latencyMs error } } } }', { p: state.projectId, s: sessionId });
  const s = data.session;
  const out = h('div');
  const facts = [['Status', pill(s.status)], ['Workflow', (s.workflow ? s.workflow.name : '') + ' (' + s.workflowId + ')'], ['Features', s.features.join(', ')], ['Vendor data', s.vendorData || '—'], ['Account', s.svcId || '—'],
    ['Decision', s.decision ? s.decision + ' by ' + s.decidedBy + ' at ' + when(s.decidedAt) : '—'], ['Created', when(s.createdAt)], ['Expires', when(s.expiresAt)]];
  frame('sessions',
    h('section', { class: 'card' }, h('h1', {}, 'Session ' + s.id), table(['', ''], facts.map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {}, v)))),
      s.status === 'IN_REVIEW' ? h('p', {}, reviewButtons(s.id, out, route)) : null, out),
    h('section', { class: 'card' }, h('h2', {}, 'Checks'),
      table(['Type', 'Status', 'Score', 'Reason', 'Details'], s.checks.map((c) => h('tr', {}, h('td', {}, c.type), h('td', {}, pill(c.status)), h('td', {}, c.score === null ? '' : c.score), h('td', {}, c.reason || ''),
        h('td', {}, c.details ? h('pre', {}, JSON.stringify(JSON.parse(c.details), null, 1)) : h('span', { class: 'hint' }, can('reviewer') ? '' : 'reviewer role needed'))))),
      h('p', { class: 'hint', id: 'images' }, s.imagesRetained ? 'Images are retained for this session.' : 'Images: none. Verity retains no document or selfie images (they are read, then dropped), so there is nothing to show.')),
    h('section', { class: 'card' }, h('h2', {}, 'Timeline'), table(['At', 'From', 'To', 'By', 'Why'], s.timeline.map((t) => h('tr', {}, h('td', {}, when(t.at)), h('td', {}, t.from || ''), h('td', {}, pill(t.to)), h('td', {}, t.actor), h('td', {}, t.reason || ''))))),
    h('section', { class: 'card' }, h('h2', {}, 'Webhook events'), s.webhookEvents.length ? s.webhookEvents.map((e) => h('div', {},
      h('p', {}, h('b', {}, e.type), ' ', pill(e.state), ' → ', e.url || 'no destination', ' ', resendButton(e.id, out)),
      table(['#', 'At', 'HTTP', 'ms', 'Error'], e.attempts.map((a) => h('tr', {}, h('td', {}, a.attempt), h('td', {}, when(a.at)), h('td', {}, a.httpStatus === null ? 'no answer' : a.httpStatus), h('td', {}, a.latencyMs), h('td', {}, a.error || ''))))))
      : h('p', { class: 'hint' }, 'No webhook events yet.')));
}

async function reviewView() {
  const out = h('div');
  const list = paged(['Session', 'Status', 'Workflow', 'Vendor data', 'Created', 'Decide'], async (after) =>
    (await gql('query($p: String!, $a: String) { reviewQueue(projectId: $p, first: 25, after: $a) { edges { node { ' + SESSION_FIELDS + ' } } pageInfo { hasNextPage endCursor } } }', { p: state.projectId, a: after })).reviewQueue,
    (s) => { const row = sessionRow(s, reviewButtons(s.id, out)); row.querySelectorAll('button').forEach((b) => b.addEventListener('click', (e) => e.stopPropagation())); return row; });
  frame('review', h('section', { class: 'card' }, h('h1', {}, 'Review queue'), h('p', { class: 'hint' }, 'Sessions in IN_REVIEW, oldest first. Approval needs passed liveness and face match (409 otherwise).'), out, list.element));
  await list.show();
}

// ---------- webhooks ----------

async function webhooksView() {
  const out = h('div');
  const stateSelect = h('select', { name: 'state', 'aria-label': 'State' }, h('option', { value: '' }, 'any state'), ['failed', 'pending', 'sending', 'delivered', 'disabled', 'no_destination'].map((s) => h('option', { value: s }, s)));
  const list = paged(['Event', 'Type', 'State', 'Attempts', 'Last answer', 'Created', ''], async (after) =>
    (await gql('query($p: String!, $st: String, $a: String) { webhookEvents(projectId: $p, state: $st, first: 25, after: $a) { edges { node { id type state attemptCount createdAt sessionId attempts { httpStatus error } } } pageInfo { hasNextPage endCursor } } }',
      { p: state.projectId, st: stateSelect.value || null, a: after })).webhookEvents,
    (e) => { const last = e.attempts[e.attempts.length - 1]; return h('tr', {}, h('td', {}, h('a', { href: '#/session/' + e.sessionId }, e.id)), h('td', {}, e.type), h('td', {}, pill(e.state)), h('td', {}, e.attemptCount),
      h('td', {}, last ? (last.httpStatus === null ? last.error || 'no answer' : 'HTTP ' + last.httpStatus) : ''), h('td', {}, when(e.createdAt)), h('td', {}, resendButton(e.id, out))); });
  stateSelect.addEventListener('change', () => list.reset().catch((error) => message(out, error)));
  frame('webhooks', h('section', { class: 'card' }, h('h1', {}, 'Webhook deliveries'), h('form', { class: 'row' }, h('label', {}, 'State', stateSelect)), out, list.element));
  await list.show();
}

// ---------- roster ----------

async function rosterView() {
  const out = h('div');
  if (!state.organizations.length) { frame('roster', h('section', { class: 'card' }, h('h1', {}, 'Roster'), h('p', { class: 'hint' }, 'No organization is visible to this token.'))); return; }
  const orgSelect = h('select', { 'aria-label': 'Organization', onchange: (e) => { state.organizationId = Number(e.target.value); route(); } }, state.organizations.map((o) => h('option', { value: o.id, selected: o.id === state.organizationId }, o.name + ' (#' + o.id + ')')));
  const statusSelect = h('select', { 'aria-label': 'Member status' }, h('option', { value: '' }, 'any status'), ['invited', 'link_sent', 'active', 'deactivated'].map((s) => h('option', { value: s }, s)));
  const memberAction = (name, label, memberId) => can('admin') ? action(h('button', { class: 'secondary' }, label), out, async () => {
    const data = await gql('mutation($i: MemberActionInput!) { ' + name + '(input: $i) { email status } }', { i: { organizationId: state.organizationId, memberId } });
    await list.show();
    return data[name].email + ' is now ' + data[name].status;
  }) : null;
  const list = paged(['Member', 'Email', 'Name', 'Role', 'Status', 'Since', ''], async (after) =>
    (await gql('query($o: Int!, $st: String, $a: String) { members(organizationId: $o, status: $st, first: 25, after: $a) { edges { node { memberId email firstName lastName role status createdAt } } pageInfo { hasNextPage endCursor } } }',
      { o: state.organizationId, st: statusSelect.value || null, a: after })).members,
    (m) => h('tr', {}, h('td', {}, m.memberId), h('td', {}, m.email), h('td', {}, (m.firstName + ' ' + m.lastName).trim()), h('td', {}, m.role), h('td', {}, pill(m.status)), h('td', {}, when(m.createdAt)),
      h('td', {}, m.status === 'deactivated' ? memberAction('reactivateMember', 'Reactivate', m.memberId) : memberAction('deactivateMember', 'Deactivate', m.memberId))));
  statusSelect.addEventListener('change', () => list.reset().catch((error) => message(out, error)));
  const email = h('input', { name: 'email', type: 'email', required: true, placeholder: 'person@example.com' });
  const first = h('input', { name: 'firstName', placeholder: 'First name' });
  const last = h('input', { name: 'lastName', placeholder: 'Last name' });
  const notify = h('input', { type: 'checkbox', name: 'notify' });
  const invite = h('form', { class: 'row', onsubmit: async (e) => {
    e.preventDefault();
    try {
      const data = await gql('mutation($i: InviteMembersInput!) { inviteMembers(input: $i) { created { member { email status } activationLink } skipped { email reason } } }',
        { i: { organizationId: state.organizationId, members: [{ email: email.value.trim(), firstName: first.value.trim() || null, lastName: last.value.trim() || null }], notify: notify.checked, invite: notify.checked ? 'email' : 'face' } });
      const result = data.inviteMembers;
      message(out, null, result.created.length ? 'Invited ' + result.created[0].member.email + (result.created[0].activationLink ? ': activation link ' + result.created[0].activationLink : ' (emailed)') : 'Not invited: ' + result.skipped.map((s) => s.email + ' ' + s.reason).join(', '));
      invite.reset();
      await list.show();
    } catch (error) { message(out, error); }
  } }, h('label', {}, 'Email', email), h('label', {}, 'First name', first), h('label', {}, 'Last name', last), h('label', {}, 'Email the link', notify), h('button', { type: 'submit', disabled: !can('admin') }, 'Invite'));
  frame('roster', h('section', { class: 'card' }, h('h1', {}, 'Roster'), h('form', { class: 'row' }, h('label', {}, 'Organization', orgSelect), h('label', {}, 'Status', statusSelect)),
    h('h2', {}, 'Invite a member'), invite, out, h('h2', {}, 'Members'), list.element));
  await list.show();
}

// ---------- billing, keys and workflows ----------

async function billingView() {
  const project = state.projects.find((p) => p.id === state.projectId);
  const data = await gql('query($p: String!) { project(projectId: $p) { balance currency } charges(projectId: $p, limit: 50) { item amount currency refunded createdAt } }', { p: state.projectId });
  const sections = [h('section', { class: 'card' }, h('h1', {}, 'Billing'), h('p', {}, 'Wallet of ' + (project ? project.name : state.projectId) + ': ', h('span', { class: 'big' }, data.project.balance.toFixed(2) + ' ' + data.project.currency)),
    h('h2', {}, 'Latest charges'), table(['When', 'Item', 'Amount', ''], data.charges.map((c) => h('tr', {}, h('td', {}, when(c.createdAt)), h('td', {}, c.item), h('td', {}, c.amount.toFixed(2) + ' ' + c.currency), h('td', {}, c.refunded ? pill('refunded') : '')))))];
  for (const org of state.organizations) {
    const b = (await gql('query($o: Int!) { organizationBilling(organizationId: $o) { seats estimatedNextCharge currency balance subscription { plan status pricePerSeat trialEndsAt } invoices { period seats amount } } }', { o: org.id })).organizationBilling;
    sections.push(h('section', { class: 'card' }, h('h2', {}, 'Roster billing: ' + org.name),
      h('p', {}, b.subscription ? 'Plan ' + b.subscription.plan + ' (' + b.subscription.status + '), ' + b.subscription.pricePerSeat + ' ' + b.currency + ' per seat' : 'No plan', ' · seats ' + b.seats + ' · next charge ' + b.estimatedNextCharge + ' ' + b.currency + ' · owed ' + b.balance + ' ' + b.currency),
      table(['Period', 'Seats', 'Amount'], b.invoices.map((i) => h('tr', {}, h('td', {}, i.period), h('td', {}, i.seats), h('td', {}, i.amount + ' ' + b.currency))))));
  }
  frame('billing', sections);
}

async function keysView() {
  const out = h('div');
  const data = await gql('query($p: String!) { apiKeys(projectId: $p) { id name prefix createdAt revokedAt } workflows(projectId: $p) { id name features createdAt } callbackDestinations(projectId: $p) { url active } }', { p: state.projectId });
  const admin = can('admin');
  const revoke = (key) => admin && !key.revokedAt ? action(h('button', { class: 'danger' }, 'Revoke'), out, async () => { await gql('mutation($i: RevokeApiKeyInput!) { revokeApiKey(input: $i) { id } }', { i: { projectId: state.projectId, apiKeyId: key.id } }); setTimeout(route, 800); return 'Key ' + key.prefix + '… revoked'; }) : null;
  const keyName = h('input', { placeholder: 'Key name' });
  const createKey = action(h('button', { disabled: !admin }, 'Create API key'), out, async () => {
    const made = (await gql('mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { key apiKey { id } } }', { i: { projectId: state.projectId, name: keyName.value.trim() || null } })).createApiKey;
    return 'New key (shown once, copy it now): ' + made.key;
  });
  const wfName = h('input', { placeholder: 'Workflow name' });
  const boxes = FEATURES.map((f) => h('label', {}, f, h('input', { type: 'checkbox', value: f })));
  const createWorkflow = action(h('button', { disabled: !admin }, 'Create workflow'), out, async () => {
    const features = boxes.map((b) => b.querySelector('input')).filter((i) => i.checked).map((i) => i.value);
    const wf = (await gql('mutation($i: CreateWorkflowInput!) { createWorkflow(input: $i) { id name } }', { i: { projectId: state.projectId, name: wfName.value.trim(), features } })).createWorkflow;
    setTimeout(route, 800);
    return 'Workflow ' + wf.name + ' created: ' + wf.id;
  });
  const toggle = (d) => admin ? action(h('button', { class: 'secondary' }, d.active ? 'Disable' : 'Enable'), out, async () => { await gql('mutation($i: SetCallbackActiveInput!) { setCallbackActive(input: $i) { active } }', { i: { projectId: state.projectId, url: d.url, active: !d.active } }); setTimeout(route, 800); return d.url + (d.active ? ' disabled' : ' enabled'); }) : null;
  frame('keys', out,
    h('section', { class: 'card' }, h('h1', {}, 'API keys'), h('p', { class: 'hint' }, 'Secrets are shown once, at creation; the list never holds them.'),
      table(['Prefix', 'Name', 'Created', 'Revoked', ''], data.apiKeys.map((k) => h('tr', {}, h('td', {}, k.prefix + '…'), h('td', {}, k.name), h('td', {}, when(k.createdAt)), h('td', {}, when(k.revokedAt)), h('td', {}, revoke(k))))),
      h('form', { class: 'row' }, keyName, createKey)),
    h('section', { class: 'card' }, h('h2', {}, 'Workflows'), table(['Id', 'Name', 'Features', 'Created'], data.workflows.map((w) => h('tr', {}, h('td', {}, w.id), h('td', {}, w.name), h('td', {}, w.features.join(', ')), h('td', {}, when(w.createdAt))))),
      h('form', { class: 'row' }, wfName, boxes, createWorkflow)),
    h('section', { class: 'card' }, h('h2', {}, 'Callback destinations'), table(['URL', 'Active', ''], data.callbackDestinations.map((d) => h('tr', {}, h('td', {}, d.url), h('td', {}, d.active ? pill('active') : pill('disabled')), h('td', {}, toggle(d)))))));
}

// ---------- dashboard ----------

function barChart(items, options) {
  const width = 560, barH = 22, gap = 6, labelW = 190;
  const max = Math.max(1, ...items.map((i) => i.value));
  const chart = svg('svg', { width: '100%', viewBox: '0 0 ' + width + ' ' + Math.max(30, items.length * (barH + gap)), role: 'img', 'aria-label': options.label });
  items.forEach((item, index) => {
    const y = index * (barH + gap);
    const w = ((width - labelW - 60) * item.value) / max;
    chart.append(svg('text', { x: 0, y: y + 15, 'font-size': 12 }, item.label), svg('rect', { x: labelW, y, width: Math.max(1, w), height: barH, fill: item.color || '#2457c5', rx: 3 }),
      svg('text', { x: labelW + w + 6, y: y + 15, 'font-size': 12 }, options.format ? options.format(item.value) : item.value));
  });
  return items.length ? chart : h('p', { class: 'hint' }, 'No data in this range.');
}

function stackedDays(rows) {
  const days = [...new Set(rows.map((r) => r.day))];
  if (!days.length) return h('p', { class: 'hint' }, 'No sessions in this range.');
  const totals = days.map((d) => rows.filter((r) => r.day === d).reduce((sum, r) => sum + r.count, 0));
  const max = Math.max(1, ...totals), width = 620, height = 180, slot = (width - 40) / days.length;
  const chart = svg('svg', { width: '100%', viewBox: '0 0 ' + width + ' ' + (height + 40), role: 'img', 'aria-label': 'Sessions per day by status' });
  days.forEach((day, i) => {
    let y = height;
    for (const status of STATUSES) {
      const row = rows.find((r) => r.day === day && r.status === status);
      if (!row) continue;
      const h2 = (height * row.count) / max;
      y -= h2;
      chart.append(svg('rect', { x: 40 + i * slot + 2, y, width: Math.max(2, slot - 4), height: h2, fill: COLORS[status] }, svg('title', {}, day + ' ' + status + ': ' + row.count)));
    }
    if (days.length <= 14 || i % Math.ceil(days.length / 10) === 0) chart.append(svg('text', { x: 40 + i * slot, y: height + 14, 'font-size': 10 }, day.slice(5)));
  });
  chart.append(svg('text', { x: 0, y: 12, 'font-size': 10 }, String(max)));
  const legend = h('p', {}, STATUSES.map((s) => h('span', { class: 'pill', style: 'background:' + COLORS[s] + ';margin-right:.3rem' }, s)));
  return h('div', {}, chart, legend);
}

async function dashboardView() {
  const data = await gql('query($p: String!) { sessionsPerDay(projectId: $p) { day status count } approvalRates(projectId: $p) { workflowId workflowName sessions approvalRate } timeToDecision(projectId: $p) { decided medianSeconds p90Seconds } checkFailureReasons(projectId: $p) { source type reason count } webhookStats(projectId: $p) { events delivered failed backlog oldestPendingAt successRate attemptSuccessRate } webhookHealth(projectId: $p) { destination healthy attemptsLastHour successRateLastHour attemptsLastDay successRateLastDay consecutiveFailures nextRetryAt lastStatus lastError lastSuccessAt } }', { p: state.projectId });
  const pct = (v) => (v === null ? '—' : (v * 100).toFixed(1) + '%');
  const secs = (v) => (v === null ? '—' : v < 120 ? v.toFixed(0) + ' s' : (v / 60).toFixed(1) + ' min');
  const w = data.webhookStats, t = data.timeToDecision;
  frame('dashboard', h('h1', {}, 'Dashboard (last 30 days)'), h('div', { class: 'grid' },
    h('section', { class: 'card' }, h('h2', {}, 'Sessions per day'), stackedDays(data.sessionsPerDay)),
    h('section', { class: 'card' }, h('h2', {}, 'Approval rate per workflow'), barChart(data.approvalRates.map((r) => ({ label: (r.workflowName || r.workflowId) + ' (' + r.sessions + ')', value: r.approvalRate || 0, color: '#2e9e6a' })), { label: 'Approval rate per workflow', format: pct })),
    h('section', { class: 'card' }, h('h2', {}, 'Time to decision'), h('p', {}, 'Median ', h('span', { class: 'big', id: 'median' }, secs(t.medianSeconds)), ' · p90 ' + secs(t.p90Seconds) + ' · ' + t.decided + ' decided')),
    h('section', { class: 'card' }, h('h2', {}, 'Check failure reasons'), barChart(data.checkFailureReasons.slice(0, 12).map((r) => ({ label: r.type + ': ' + r.reason + (r.source === 'standalone' ? ' (standalone)' : ''), value: r.count, color: '#d0443a' })), { label: 'Check failure reasons' })),
    webhookCard(data.webhookHealth, w, pct)));
}

/** The webhook headline: how receivers answer now (attempts of the last hour), unhealthy destinations first; the 30-day event figures below. */
function webhookCard(health, w, pct) {
  const recent = (attempts, rate) => health.reduce((sum, d) => sum + d[attempts] * (d[rate] || 0), 0);
  const hourAttempts = health.reduce((sum, d) => sum + d.attemptsLastHour, 0);
  const dayAttempts = health.reduce((sum, d) => sum + d.attemptsLastDay, 0);
  const hourRate = hourAttempts ? recent('attemptsLastHour', 'successRateLastHour') / hourAttempts : null;
  const dayRate = dayAttempts ? recent('attemptsLastDay', 'successRateLastDay') / dayAttempts : null;
  const sick = health.filter((d) => !d.healthy);
  const last = (d) => d.lastStatus !== null ? 'last answer ' + d.lastStatus : d.lastError ? 'last error: ' + d.lastError : 'no attempt yet';
  return h('section', { class: 'card', id: 'webhook-health' }, h('h2', {}, 'Webhooks'),
    sick.length ? h('div', { class: 'unhealthy', style: 'border-left:4px solid #b42318;padding-left:.5rem;margin-bottom:.5rem' },
      h('p', {}, h('b', { style: 'color:#b42318' }, sick.length + ' unhealthy destination' + (sick.length > 1 ? 's' : ''))),
      sick.map((d) => h('p', {}, h('b', {}, d.destination), ' · ' + d.consecutiveFailures + ' failed in a row · ' + last(d) + ' · ' + pct(d.successRateLastHour) + ' ok in the last hour',
        d.lastSuccessAt ? ' · last success ' + when(d.lastSuccessAt) : ' · no success in 7 days', d.nextRetryAt ? ' · next retry ' + when(d.nextRetryAt) : ''))) : null,
    h('p', {}, 'Attempts answered 2xx, last hour ', h('span', { class: 'big', id: 'webhook-recent-success' }, pct(hourRate)), ' (' + hourAttempts + ' attempts) · last day ' + pct(dayRate) + ' (' + dayAttempts + ')'),
    h('p', {}, health.length + ' destination' + (health.length === 1 ? '' : 's') + ', ' + (health.length - sick.length) + ' healthy'),
    h('p', { class: 'hint' }, '30 days: events eventually delivered ' + pct(w.successRate) + ' · backlog ', h('b', {}, w.backlog), w.oldestPendingAt ? ' (oldest ' + when(w.oldestPendingAt) + ')' : '', ' · delivered ' + w.delivered + ' · failed ' + w.failed + ' of ' + w.events));
}

if (sessionStorage.getItem(TOKEN_KEY)) start().catch((error) => renderSignIn(error)); else renderSignIn();
`;

/** `/admin`: the console page and its script. */
export function adminConsoleRouter() {
  const router = Router();
  router.get('/admin/assets/console.js', (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.type('application/javascript').send(SCRIPT);
  });
  router.get(['/admin', '/admin/'], (_req, res) => {
    res.setHeader('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; style-src 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.type('html').send(PAGE);
  });
  return router;
}
