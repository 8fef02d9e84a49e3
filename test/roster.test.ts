import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/core/clock.js';
import { authorizePath, interactionOf, PageDriver, pkce } from './helpers/oidc.js';
import { sql, startTestService, type TestService } from './helpers/service.js';

const clock = new ManualClock(new Date('2026-03-10T12:00:00Z'));
let service: TestService;
let org: { id: number; client_id: string; client_secret: string };
let other: { clientId: string; clientSecret: string };

beforeAll(async () => {
  service = await startTestService({}, { clock });
  org = service.demo.org;
  const created = await service.core.tenancy.createOrgApp({ organizationName: 'Other Org' });
  other = { clientId: created.app.clientId, clientSecret: created.clientSecret };
});
afterAll(async () => {
  await service?.close();
});

type Creds = { clientId: string; clientSecret: string };
const own = (): Creds => ({ clientId: org.client_id, clientSecret: org.client_secret });
const api = (method: 'get' | 'post' | 'patch' | 'delete', path: string, creds: Creds = own()) =>
  service.http[method](`/api/sdk${path}`).set('X-Client-Id', creds.clientId).set('X-Client-Secret', creds.clientSecret);

let counter = 0;
const uniqueEmail = (name = 'p') => `${name}.${++counter}.${Date.now()}@corp.example`;

async function add(members: Record<string, unknown>[], options: Record<string, unknown> = {}, creds: Creds = own()) {
  return api('post', '/members', creds).send({ members, ...options });
}

/** One new member; returns the created entry. */
async function addOne(options: Record<string, unknown> = {}, member: Record<string, unknown> = {}) {
  const res = await add([{ email: uniqueEmail(), first_name: 'Ada', last_name: 'Lovelace', ...member }], options);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.created[0];
}

const tokenOf = (link: string) => new URL(link).pathname.split('/').pop()!;
const linkStatus = async (link: string) => (await service.http.get(new URL(link).pathname)).status;

/** Connects a member to a new account the way a face activation ends (the browser test runs the real page). */
async function connectAccount(memberId: string) {
  const email = uniqueEmail('acct');
  const account = await service.core.accounts.createAccount({
    email,
    password: 'correct horse battery',
    displayName: 'Member Person',
  });
  await sql(service, `update member set status = 'active', svc_id = ?, activation_digest = null where member_id = ?`, [
    account.svcId,
    memberId,
  ]);
  await sql(service, `insert into roster_seat (organization_id, member_id, started_at) values (?, ?, ?)`, [
    org.id,
    memberId,
    clock.now(),
  ]);
  return { ...account, password: 'correct horse battery' };
}

describe('authentication', () => {
  it('answers 401 invalid_client without credentials or with a wrong secret', async () => {
    const none = await service.http.get('/api/sdk/members');
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('invalid_client');
    const wrong = await api('get', '/members', { clientId: org.client_id, clientSecret: 'ocs_wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ success: false, error: { code: 'invalid_client' } });
  });
});

describe('add members', () => {
  it('creates members with mem_ ids; by default an emailed invitation whose link is never returned', async () => {
    const email = uniqueEmail('Mixed.Case');
    const res = await add([{ email, first_name: 'Grace', last_name: 'Hopper', role: 'developer' }]);
    expect(res.status).toBe(201);
    const [entry] = res.body.data.created;
    expect(entry.member_id).toMatch(/^mem_[0-9a-f]{24}$/);
    expect(entry).toMatchObject({
      email,
      first_name: 'Grace',
      last_name: 'Hopper',
      role: 'developer',
      status: 'link_sent',
      active: false,
      svc_id: null,
      activation_link: null,
      invite_method: 'email',
    });
    expect(entry.reactivated).toBeUndefined();
    expect(Number.isInteger(entry.id)).toBe(true);
    expect(res.body.data).toMatchObject({ skipped: [], notified: true });
    const [mail] = await service.core.mail.outbox.list({ to: email });
    expect(mail!.text).toMatch(/\/activate\/act_/);
    expect(mail!.subject).toContain('Demo Health');
    // The outbox holds the link sealed, never in clear.
    const rows = await sql<{ body_sealed: string }>(
      service,
      'select body_sealed from mail_outbox where recipient = ?',
      [email.toLowerCase()],
    );
    expect(rows[0]!.body_sealed).not.toContain('act_');
  });

  it('returns a face link only when notify is false, and then sends nothing', async () => {
    const quiet = await addOne({ invite: 'face', notify: false });
    expect(quiet).toMatchObject({ status: 'link_sent', invite_method: 'face', role: 'member' });
    expect(quiet.activation_link).toMatch(/^http:\/\/verity\.test\/activate\/act_/);
    expect(await service.core.mail.outbox.list({ to: quiet.email })).toHaveLength(0);
    const notified = await addOne({ invite: 'face', notify: true });
    expect(notified).toMatchObject({ status: 'link_sent', invite_method: 'face', activation_link: null });
    expect(await service.core.mail.outbox.list({ to: notified.email })).toHaveLength(1);
  });

  it('applies the invite rules: auto is email when notifying, a face link when not; email without notify is invited', async () => {
    expect(await addOne({ invite: 'auto', notify: false })).toMatchObject({
      status: 'link_sent',
      invite_method: 'face',
    });
    const emailQuiet = await addOne({ invite: 'email', notify: false });
    expect(emailQuiet).toMatchObject({ status: 'invited', invite_method: 'none', activation_link: null });
    expect(await service.core.mail.outbox.list({ to: emailQuiet.email })).toHaveLength(0);
  });

  it('skips an address already on the roster (any case) as duplicate', async () => {
    const first = await addOne();
    const again = await add([{ email: first.email.toUpperCase() }, { email: uniqueEmail() }]);
    expect(again.status).toBe(201);
    expect(again.body.data.skipped).toEqual([{ email: first.email.toUpperCase(), reason: 'duplicate' }]);
    expect(again.body.data.created).toHaveLength(1);
  });

  it.each([
    ['an empty list', { members: [] }, 'members'],
    ['501 members', { members: Array.from({ length: 501 }, (_, i) => ({ email: `m${i}@corp.example` })) }, 'members'],
    ['a member without email', { members: [{ email: 'a@corp.example' }, { first_name: 'X' }] }, 'members[1].email'],
    [
      'an invalid email',
      {
        members: [
          { email: 'a@corp.example' },
          { email: 'b@corp.example' },
          { email: 'c@corp.example' },
          { email: 'not an email' },
        ],
      },
      'members[3].email',
    ],
    ['an unknown role', { members: [{ email: 'a@corp.example', role: 'boss' }] }, 'members[0].role'],
    ['a wrong type', { members: 'everyone' }, 'members'],
    ['an unknown invite method', { members: [{ email: 'a@corp.example' }], invite: 'sms' }, 'invite'],
  ])('answers 400 invalid_request naming the field for %s', async (_name, body, field) => {
    const res = await api('post', '/members').send(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(Object.keys(res.body.data.errors)).toContain(field);
  });

  it('answers a malformed JSON body like its own bad input: 400 invalid_request with data.errors', async () => {
    for (const body of ['{"members": [', '"just a string"']) {
      const res = await api('post', '/members').set('Content-Type', 'application/json').send(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: { code: 'invalid_request' } });
      expect(Object.keys(res.body.data.errors)).toEqual(['body']);
    }
  });

  it('refuses a name with a lone UTF-16 surrogate (valid JSON, not text) as its own bad input, and adds no one', async () => {
    const email = uniqueEmail('surrogate');
    const body = `{"members":[{"email":"${email}","first_name":"x\\ud83d"}],"notify":false}`;
    const res = await api('post', '/members').set('Content-Type', 'application/json').send(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'invalid_request' } });
    expect(res.body.error.message).toContain('lone surrogate');
    expect((await api('post', '/members/resolve').send({ email })).body.data).toEqual({ found: false, member: null });
  });

  it('keeps the first of an address repeated inside one call and skips the rest as duplicate', async () => {
    const email = uniqueEmail('twice');
    const other = uniqueEmail();
    const res = await add([
      { email, first_name: 'First' },
      { email: email.toUpperCase(), first_name: 'Second' },
      { email: other },
      { email },
    ]);
    expect(res.status).toBe(201);
    expect(res.body.data.created.map((m: { email: string; first_name: string }) => [m.email, m.first_name])).toEqual([
      [email, 'First'],
      [other, ''],
    ]);
    expect(res.body.data.skipped).toEqual([
      { email: email.toUpperCase(), reason: 'duplicate' },
      { email, reason: 'duplicate' },
    ]);
    expect(await sql(service, 'select id from member where lower(email) = ?', [email])).toHaveLength(1);
  });

  it('leaves one member when two bulk adds race on the same email', async () => {
    const email = uniqueEmail('race');
    const lists = [0, 1].map((n) => [
      { email },
      ...Array.from({ length: 30 }, (_, i) => ({ email: `race${n}-${i}-${counter}@corp.example` })),
    ]);
    const [a, b] = await Promise.all(lists.map((members) => add(members)));
    expect(a!.status).toBe(201);
    expect(b!.status).toBe(201);
    const createdRace = [...a!.body.data.created, ...b!.body.data.created].filter(
      (entry: { email: string }) => entry.email === email,
    );
    const skippedRace = [...a!.body.data.skipped, ...b!.body.data.skipped];
    expect(createdRace).toHaveLength(1);
    expect(skippedRace).toEqual([{ email, reason: 'duplicate' }]);
    const rows = await sql(service, 'select 1 from member where lower(email) = ?', [email.toLowerCase()]);
    expect(rows).toHaveLength(1);
  });
});

describe('list and resolve', () => {
  it('lists members with the member role only, with the organization', async () => {
    const member = await addOne({}, { role: 'member' });
    const admin = await addOne({}, { role: 'admin' });
    const res = await api('get', '/members');
    expect(res.status).toBe(200);
    expect(res.body.data.organization).toEqual({ id: org.id, name: 'Demo Health' });
    const ids = res.body.data.members.map((entry: { member_id: string }) => entry.member_id);
    expect(ids).toContain(member.member_id);
    expect(ids).not.toContain(admin.member_id);
    for (const entry of res.body.data.members) expect(entry.active).toBe(entry.status === 'active');
  });

  it('pages with a cursor in X-Next-Cursor and Link: every member once, in order; 1000 per page by default', async () => {
    const created = await service.core.tenancy.createOrgApp({ organizationName: 'Paging Org' });
    const paging = { clientId: created.app.clientId, clientSecret: created.clientSecret };
    const emails = Array.from({ length: 1003 }, (_, i) => `page${i}.${Date.now()}@corp.example`);
    for (let at = 0; at < emails.length; at += 500) {
      expect(
        (
          await add(
            emails.slice(at, at + 500).map((email) => ({ email })),
            { notify: false, invite: 'email' },
            paging,
          )
        ).status,
      ).toBe(201);
    }
    const seen: string[] = [];
    let next: string | undefined = '/api/sdk/members?limit=300';
    let pages = 0;
    while (next) {
      const res: {
        status: number;
        body: { data: { members: { email: string }[] } };
        headers: Record<string, string | undefined>;
      } = await service.http.get(next).set('X-Client-Id', paging.clientId).set('X-Client-Secret', paging.clientSecret);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual(['members', 'organization']);
      expect(res.body.data.members.length).toBeLessThanOrEqual(300);
      seen.push(...res.body.data.members.map((m: { email: string }) => m.email));
      next = /^<([^>]+)>; rel="next"$/.exec(String(res.headers.link ?? ''))?.[1];
      expect(res.headers['x-next-cursor'] === undefined).toBe(next === undefined);
      pages += 1;
    }
    expect(pages).toBe(4);
    expect(seen).toEqual(emails);
    // Without limit: the first 1000 and a cursor for the rest.
    const first = await api('get', '/members', paging);
    expect(first.body.data.members).toHaveLength(1000);
    const rest = await api('get', `/members?cursor=${first.headers['x-next-cursor']}`, paging);
    expect(rest.body.data.members.map((m: { email: string }) => m.email)).toEqual(emails.slice(1000));
    expect(rest.headers['x-next-cursor']).toBeUndefined();
    expect(rest.headers.link).toBeUndefined();
  });

  it.each([
    ['a made-up cursor', 'cursor=nonsense', 'cursor'],
    ['limit 0', 'limit=0', 'limit'],
    ['limit 1001', 'limit=1001', 'limit'],
    ['a fractional limit', 'limit=2.5', 'limit'],
  ])('answers 400 invalid_request for %s', async (_name, query, field) => {
    const res = await api('get', `/members?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(Object.keys(res.body.data.errors)).toEqual([field]);
  });

  it('resolves by email or svc_id (any role); 400 missing_identifier with neither', async () => {
    const owner = await addOne({}, { role: 'owner' });
    const byEmail = await api('post', '/members/resolve').send({ email: owner.email.toUpperCase() });
    expect(byEmail.body.data).toMatchObject({ found: true, member: { member_id: owner.member_id, role: 'owner' } });
    const account = await connectAccount(owner.member_id);
    const bySvc = await api('post', '/members/resolve').send({ svc_id: account.svcId });
    expect(bySvc.body.data.member).toMatchObject({
      member_id: owner.member_id,
      svc_id: account.svcId,
      status: 'active',
      active: true,
    });
    expect((await api('post', '/members/resolve').send({ email: 'nobody@corp.example' })).body.data).toEqual({
      found: false,
      member: null,
    });
    const missing = await api('post', '/members/resolve').send({});
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('missing_identifier');
    expect((await api('post', '/members/resolve').send({ email: 42 })).body.error.code).toBe('invalid_request');
  });

  it("never shows another organization's members", async () => {
    const mine = await addOne();
    const theirs = await api('post', '/members/resolve', other).send({ email: mine.email });
    expect(theirs.body.data.found).toBe(false);
    for (const ref of [mine.member_id, mine.email]) {
      for (const [method, path] of [
        ['patch', 'deactivate'],
        ['patch', 'reactivate'],
        ['post', 'invite'],
      ] as const) {
        const res = await api(method, `/members/${encodeURIComponent(ref)}/${path}`, other);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
      expect((await api('delete', `/members/${encodeURIComponent(ref)}?permanent=true`, other)).body.error.code).toBe(
        'not_found',
      );
    }
    expect((await api('get', '/members', other)).body.data.members).toEqual([]);
  });
});

describe('member state table', () => {
  it('deactivates by member id, email or svc_id and keeps the row; re-adding reactivates', async () => {
    const byId = await addOne();
    const res = await api('patch', `/members/${byId.member_id}/deactivate`);
    expect(res.status).toBe(200);
    expect(res.body.data.member).toMatchObject({ member_id: byId.member_id, status: 'deactivated', active: false });
    const byEmail = await addOne();
    expect(
      (await api('patch', `/members/${encodeURIComponent(byEmail.email)}/deactivate`)).body.data.member.status,
    ).toBe('deactivated');
    const bySvc = await addOne();
    const account = await connectAccount(bySvc.member_id);
    expect((await api('patch', `/members/${account.svcId}/deactivate`)).body.data.member.status).toBe('deactivated');
    // Re-added: back to active (the account exists) or invited (never connected), marked reactivated.
    const mailedBefore = (await service.core.mail.outbox.list({ to: bySvc.email })).length;
    const readd = await add([{ email: bySvc.email }, { email: byId.email }]);
    const entries = Object.fromEntries(readd.body.data.created.map((entry: { email: string }) => [entry.email, entry]));
    expect(entries[bySvc.email]).toMatchObject({
      status: 'active',
      svc_id: account.svcId,
      reactivated: true,
      invite_method: 'none',
      activation_link: null,
    });
    expect(entries[byId.email]).toMatchObject({ status: 'invited', reactivated: true });
    // Nothing was mailed for a re-added member: not notified, whatever notify asked for.
    expect(readd.body.data.notified).toBe(false);
    expect(await service.core.mail.outbox.list({ to: bySvc.email })).toHaveLength(mailedBefore);
  });

  it('answers 404 not_found for an unknown member reference', async () => {
    for (const ref of [
      'mem_000000000000000000000000',
      'ghost@corp.example',
      'svc_000000000000000000000000',
      'whatever',
    ]) {
      const res = await api('patch', `/members/${encodeURIComponent(ref)}/reactivate`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it('DELETE without permanent deactivates; with permanent removes; again is already_removed', async () => {
    const entry = await addOne();
    const soft = await api('delete', `/members/${entry.member_id}`);
    expect(soft.body.data.member).toMatchObject({ member_id: entry.member_id, status: 'deactivated' });
    const hard = await api('delete', `/members/${entry.member_id}?permanent=true`);
    expect(hard.status).toBe(200);
    expect(hard.body.data).toEqual({ member: null, removed: true });
    for (const ref of [entry.member_id, entry.email]) {
      const again = await api('delete', `/members/${encodeURIComponent(ref)}?permanent=true`);
      expect(again.status).toBe(200);
      expect(again.body.data).toEqual({ member: null, already_removed: true });
    }
    expect((await api('delete', '/members/mem_ffffffffffffffffffffffff')).body.error.code).toBe('not_found');
    const maybe = await api('delete', `/members/${entry.member_id}?permanent=maybe`);
    expect(maybe.status).toBe(400);
    expect(maybe.body.error.code).toBe('invalid_request');
    expect(Object.keys(maybe.body.data.errors)).toEqual(['permanent']);
  });

  it('reactivates to active when the account exists and to invited when it is gone', async () => {
    const kept = await addOne();
    await connectAccount(kept.member_id);
    await api('patch', `/members/${kept.member_id}/deactivate`);
    expect((await api('patch', `/members/${kept.member_id}/reactivate`)).body.data.member).toMatchObject({
      status: 'active',
      active: true,
    });
    const gone = await addOne();
    const account = await connectAccount(gone.member_id);
    await api('patch', `/members/${gone.member_id}/deactivate`);
    await sql(service, 'delete from account where id = ?', [account.svcId]);
    expect((await api('patch', `/members/${gone.member_id}/reactivate`)).body.data.member).toMatchObject({
      status: 'invited',
      svc_id: null,
      active: false,
    });
  });

  it('re-invites: a new link supersedes the old, emailed and returned; 409 when active or deactivated', async () => {
    const entry = await addOne({ invite: 'face', notify: false });
    expect(await linkStatus(entry.activation_link)).toBe(200);
    const res = await api('post', `/members/${entry.member_id}/invite`);
    expect(res.status).toBe(200);
    expect(res.body.data.member.status).toBe('link_sent');
    expect(res.body.data.activation_link).toMatch(/\/activate\/act_/);
    expect(await linkStatus(entry.activation_link)).toBe(404);
    expect(await linkStatus(res.body.data.activation_link)).toBe(200);
    const [mail] = await service.core.mail.outbox.list({ to: entry.email });
    expect(mail!.text).toContain(res.body.data.activation_link);
    const invited = await addOne({ invite: 'email', notify: false });
    expect((await api('post', `/members/${encodeURIComponent(invited.email)}/invite`)).body.data.member.status).toBe(
      'link_sent',
    );

    const active = await addOne();
    await connectAccount(active.member_id);
    const conflict = await api('post', `/members/${active.member_id}/invite`);
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('already_active');
    await api('patch', `/members/${active.member_id}/deactivate`);
    const deactivated = await api('post', `/members/${active.member_id}/invite`);
    expect(deactivated.status).toBe(409);
    expect(deactivated.body.error.code).toBe('deactivated');
  });

  it('leaves exactly one live link after concurrent re-invites', async () => {
    const entry = await addOne({ invite: 'face', notify: false });
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => api('post', `/members/${entry.member_id}/invite`)));
    expect(results.map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
    const statuses = await Promise.all(results.map((res) => linkStatus(res.body.data.activation_link)));
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 404)).toHaveLength(4);
  });

  it('throttles re-invites to 10 per minute per member with 429 and Retry-After', async () => {
    const entry = await addOne({ invite: 'face', notify: false });
    const other = await addOne({ invite: 'face', notify: false });
    for (let i = 0; i < 10; i++) expect((await api('post', `/members/${entry.member_id}/invite`)).status).toBe(200);
    const limited = await api('post', `/members/${entry.member_id}/invite`);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await api('post', `/members/${other.member_id}/invite`)).status).toBe(200);
    clock.advance(61_000);
    expect((await api('post', `/members/${entry.member_id}/invite`)).status).toBe(200);
  });

  it('expires activation links after 7 days (410 code_expired); unknown links are 404 invalid_activation', async () => {
    const entry = await addOne({ invite: 'face', notify: false });
    clock.advance(7 * 86_400_000 - 60_000);
    expect(await linkStatus(entry.activation_link)).toBe(200);
    clock.advance(120_000);
    expect(await linkStatus(entry.activation_link)).toBe(410);
    expect((await service.http.get('/activate/act_unknown')).status).toBe(404);
    const selfie = await service.http.post(`/activate/${tokenOf(entry.activation_link)}/selfie`).send({ selfie: 'x' });
    expect(selfie.body.error.code).toBe('requires_login');
  });
});

describe('activation links belong to the invited email', () => {
  it('refuses to sign in, sign up or activate through a link with another email (403), before any face is taken', async () => {
    const entry = await addOne({ invite: 'face', notify: false }, { email: 'invited-person@clinic.example' });
    const path = new URL(entry.activation_link).pathname;
    const driver = new PageDriver(service);
    await driver.get(path); // the page gives this browser its CSRF cookie
    const signIn = await driver.post(`${path}/signin`, {
      email: service.demo.account.email,
      password: service.demo.account.password,
    });
    expect(signIn.status).toBe(403);
    expect(signIn.text).toContain('sent to invited-person@clinic.example');
    expect(driver.cookie).toBe(''); // not signed in
    const forged = await service.http
      .post(`${path}/signin`)
      .type('form')
      .send({ email: 'invited-person@clinic.example', password: 'whatever-password' });
    expect(forged.status).toBe(403); // no CSRF token: not the page's own form
    expect(forged.text).toContain('Form not accepted');
    const signUp = await driver.post(`${path}/signup`, {
      email: 'attacker@evil.example',
      password: 'a-long-password',
      name: 'Mallory',
    });
    expect(signUp.status).toBe(403);
    expect(await service.core.accounts.checkPassword('attacker@evil.example', 'a-long-password')).toBeNull();

    // Signed in as someone else (through a link that was theirs): the page refuses, and so does the selfie call.
    const mine = await addOne({ invite: 'face', notify: false }, { email: service.demo.account.email.toUpperCase() });
    const signedIn = await driver.post(`${new URL(mine.activation_link).pathname}/signin`, {
      email: service.demo.account.email,
      password: service.demo.account.password,
    });
    expect(signedIn.status).toBe(303); // emails compare case-insensitively
    const page = await driver.get(path);
    expect(page.status).toBe(403);
    expect(page.text).toContain(`signed in as ${service.demo.account.email}`);
    const selfie = await service.http
      .post(`${path}/selfie`)
      .set('Cookie', driver.cookie)
      .send({ selfie: Buffer.from('not a face').toString('base64') });
    expect(selfie.status).toBe(403);
    expect(selfie.body.error.code).toBe('access_denied');
    expect((await service.http.get(path)).status).toBe(200); // the link still works for its person
  });
});

describe('deactivation ends app logins', () => {
  it("revokes the member's refresh and access tokens for the organization's clients; the id_token names the member while active", async () => {
    const redirectUri = 'https://staff.example/callback';
    const { client, clientSecret } = await service.core.tenancy.createOidcClient({
      projectId: service.demo.project_id,
      name: 'Staff app',
      redirectUris: [redirectUri],
      scopes: ['openid', 'profile'],
      organizationId: org.id,
    });
    expect(client.organizationId).toBe(org.id);
    const entry = await addOne();
    const account = await connectAccount(entry.member_id);

    const driver = new PageDriver(service);
    const { verifier, challenge } = pkce();
    let page = await driver.get(
      authorizePath({
        client_id: client.clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid profile',
        state: 's1',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
    );
    page = await driver.post('/api/auth/oidc/login', {
      interaction: interactionOf(page.text),
      email: account.email,
      password: account.password,
    });
    page = await driver.post('/api/auth/oidc/consent', { interaction: interactionOf(page.text), decision: 'allow' });
    const code = new URL(page.headers.location as string).searchParams.get('code')!;
    const token = (body: Record<string, string>) =>
      service.http
        .post('/api/auth/oidc/token')
        .type('form')
        .send({ client_id: client.clientId, client_secret: clientSecret, ...body });
    const tokens = (
      await token({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier })
    ).body;
    expect(decodeJwt(tokens.id_token).svc_org_member_id).toBe(entry.member_id);
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(
      (await service.http.get('/api/auth/oidc/userinfo').set('Authorization', `Bearer ${refreshed.body.access_token}`))
        .status,
    ).toBe(200);

    await api('patch', `/members/${entry.member_id}/deactivate`);
    const afterRefresh = await token({ grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token });
    expect(afterRefresh.body.error).toBe('invalid_grant');
    expect(
      (await service.http.get('/api/auth/oidc/userinfo').set('Authorization', `Bearer ${refreshed.body.access_token}`))
        .status,
    ).toBe(401);
    // The row is kept and the account is not deleted.
    expect((await api('post', '/members/resolve').send({ svc_id: account.svcId })).body.data.member.status).toBe(
      'deactivated',
    );
    expect(await sql(service, 'select 1 from account where id = ?', [account.svcId])).toHaveLength(1);

    // A new sign-in to the organization's app is refused while deactivated.
    const again = await driver.get(
      authorizePath({
        client_id: client.clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid profile',
        state: 's2',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
    );
    const refused = new URL(again.headers.location as string);
    expect(refused.searchParams.get('error')).toBe('access_denied');
    expect(refused.searchParams.get('state')).toBe('s2');
  });
});

describe('billing and audit', () => {
  it('has no subscription before a plan; seats are active members; months close once into prorated invoices', async () => {
    const billing = service.core.roster;
    const fresh = await service.core.tenancy.createOrgApp({ organizationName: 'Billing Org' });
    const creds = { clientId: fresh.app.clientId, clientSecret: fresh.clientSecret };
    const empty = await api('get', '/billing', creds);
    expect(empty.body.data).toEqual({
      subscription: null,
      seats: 0,
      estimated_next_charge: 0,
      currency: 'USD',
      balance: 0,
      invoices: [],
    });

    clock.set(new Date('2026-04-01T00:00:00Z'));
    const admin = service.demo.admin_token;
    const gql = await service.http
      .post('/graphql')
      .set('Authorization', `Bearer ${admin}`)
      .send({
        query:
          'mutation($input: SetPlanInput!) { setPlan(input: $input) { organizationId plan pricePerSeat currency trialEndsAt } }',
        variables: {
          input: {
            organizationId: fresh.app.organizationId,
            plan: 'team',
            pricePerSeat: 30,
            currency: 'EUR',
            trialDays: 0,
          },
        },
      });
    expect(gql.body.errors, JSON.stringify(gql.body)).toBeUndefined();
    expect(gql.body.data.setPlan).toMatchObject({ plan: 'team', pricePerSeat: 30, currency: 'EUR', trialEndsAt: null });

    const added = await add([{ email: uniqueEmail('b1') }, { email: uniqueEmail('b2') }], {}, creds);
    const [first, second] = added.body.data.created;
    for (const entry of [first, second]) {
      const account = await service.core.accounts.createAccount({
        email: uniqueEmail('ba'),
        password: 'correct horse battery',
      });
      await sql(service, `update member set status = 'active', svc_id = ? where member_id = ?`, [
        account.svcId,
        entry.member_id,
      ]);
      await sql(service, `insert into roster_seat (organization_id, member_id, started_at) values (?, ?, ?)`, [
        fresh.app.organizationId,
        entry.member_id,
        clock.now(),
      ]);
    }
    const withPlan = (await api('get', '/billing', creds)).body.data;
    expect(withPlan).toMatchObject({ seats: 2, estimated_next_charge: 60, currency: 'EUR', balance: 0, invoices: [] });
    expect(withPlan.subscription).toMatchObject({
      plan: 'team',
      status: 'active',
      price_per_seat: 30,
      in_trial: false,
      current_period_end: '2026-05-01T00:00:00.000Z',
    });

    // The second member leaves after 15 of April's 30 days: half a month of seat-time.
    clock.set(new Date('2026-04-16T00:00:00Z'));
    await api('patch', `/members/${second.member_id}/deactivate`, creds);
    expect((await api('get', '/billing', creds)).body.data.seats).toBe(1);

    const early = (await billing.closeBillingPeriods(new Date('2026-04-30T23:00:00Z'))).closed;
    expect(early.filter((entry) => entry.organizationId === fresh.app.organizationId)).toEqual([]);
    clock.set(new Date('2026-05-01T00:05:00Z'));
    const [closedA, closedB] = await Promise.all([
      billing.closeBillingPeriods(clock.now()),
      billing.closeBillingPeriods(clock.now()),
    ]);
    const ours = [...closedA.closed, ...closedB.closed].filter(
      (entry) => entry.organizationId === fresh.app.organizationId,
    );
    expect(ours).toEqual([{ organizationId: fresh.app.organizationId, period: '2026-04' }]);
    const invoiced = (await api('get', '/billing', creds)).body.data;
    expect(invoiced.invoices).toEqual([
      { period: '2026-04', seats: 2, amount: 45, created_at: '2026-05-01T00:05:00.000Z' },
    ]);
    expect(invoiced.balance).toBe(45);
    clock.set(new Date('2026-07-02T00:00:00Z'));
    await billing.closeBillingPeriods(clock.now());
    const later = (await api('get', '/billing', creds)).body.data.invoices.map(
      (invoice: { period: string; amount: number }) => [invoice.period, invoice.amount],
    );
    expect(later).toEqual([
      ['2026-04', 45],
      ['2026-05', 30],
      ['2026-06', 30],
    ]);
  });

  it('gives free trial days and records every change in the audit trail', async () => {
    const fresh = await service.core.tenancy.createOrgApp({ organizationName: 'Trial Org' });
    const creds = { clientId: fresh.app.clientId, clientSecret: fresh.clientSecret };
    clock.set(new Date('2026-08-01T00:00:00Z'));
    await service.core.roster.setPlan({
      organizationId: fresh.app.organizationId,
      plan: 'starter',
      pricePerSeat: 10,
      trialDays: 14,
    });
    const billing = (await api('get', '/billing', creds)).body.data;
    expect(billing.subscription).toMatchObject({
      status: 'trialing',
      in_trial: true,
      trial_ends_at: '2026-08-15T00:00:00.000Z',
    });

    const entry = (await add([{ email: uniqueEmail('audit') }], { invite: 'face', notify: false }, creds)).body.data
      .created[0];
    await api('post', `/members/${entry.member_id}/invite`, creds);
    await api('patch', `/members/${entry.member_id}/deactivate`, creds);
    await api('delete', `/members/${entry.member_id}?permanent=true`, creds);
    const trail = await service.core.roster.auditTrail(fresh.app.organizationId);
    expect(trail.map((row) => row.action)).toEqual(['remove', 'deactivate', 'invite', 'add', 'plan_set']);
    expect(trail.every((row) => row.actor === (row.action === 'plan_set' ? 'operator' : fresh.app.clientId))).toBe(
      true,
    );
    const deactivation = trail.find((row) => row.action === 'deactivate')!;
    expect(deactivation.before).toMatchObject({ status: 'link_sent' });
    expect(deactivation.after).toMatchObject({ status: 'deactivated' });
    expect(trail[0]!.after).toBeNull();
    // One member's entries, and a limit: newest first.
    expect(
      (await service.core.roster.auditTrail(fresh.app.organizationId, { memberId: entry.member_id })).map(
        (row) => row.action,
      ),
    ).toEqual(['remove', 'deactivate', 'invite', 'add']);
    expect(
      (await service.core.roster.auditTrail(fresh.app.organizationId, { limit: 2 })).map((row) => row.action),
    ).toEqual(['remove', 'deactivate']);
  });
});

describe('documentation', () => {
  it('lists the roster routes in the OpenAPI document', async () => {
    const doc = (await service.http.get('/api/v2/openapi.json')).body;
    for (const path of [
      '/api/sdk/members',
      '/api/sdk/members/resolve',
      '/api/sdk/members/{member_id}',
      '/api/sdk/members/{member_id}/invite',
      '/api/sdk/billing',
    ])
      expect(doc.paths[path], path).toBeTruthy();
  });
});
