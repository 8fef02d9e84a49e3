// The roster's rules on a fake store, in milliseconds: an address once per roster (any case, in
// one call or across calls), a deactivated member re-added comes back, deactivation idempotent and
// audited once with its seat closed, a permanent removal remembered, reactivation only from
// deactivated, re-invites refused for active and deactivated members and limited per minute, an
// activation link for the invited address only, once, until it expires, one account once per
// roster, plan changes audited and months closed once. The SQL behind the store (row locks, one
// winner among concurrent adds and closers) is exercised by roster.test.ts, tenancy.test.ts,
// admin-api.test.ts and oidc.test.ts over HTTP, and by the races in reliability/.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import type { MailMessage, MailService } from '../../src/core/mail/index.js';
import { ACTIVATION_TTL_MS, INVITES_PER_MINUTE, RosterService } from '../../src/core/roster/service.js';
import { FakeRosterStore } from '../fakes/roster-store.js';

const svc = (digit: string) => `svc_${digit.repeat(24)}`;

async function setUp() {
  const store = new FakeRosterStore();
  const clock = new ManualClock(new Date('2026-11-28T12:00:00Z'));
  /** Accounts by svc_id: their email. */
  const accounts = new Map<string, string>();
  const sent: MailMessage[] = [];
  const revoked: string[] = [];
  const roster = new RosterService({
    store,
    clock,
    accounts: { emailOf: async (svcId) => accounts.get(svcId) ?? null },
    mail: {
      send: async (messages: MailMessage[]) => {
        sent.push(...messages);
        return { failed: 0 };
      },
    } as unknown as MailService,
    baseUrl: 'https://verity.example',
    revokeLogins: async (svcId) => {
      revoked.push(svcId);
    },
    faceCheck: async () => {},
  });
  const caller = { organizationId: await roster.createOrganization('Acme'), clientId: 'org_app' };
  /** Adds one member with a face link handed back; the member and the link's token. */
  const addWithLink = async (email: string) => {
    const { created } = await roster.addMembers(caller, { members: [{ email }], notify: false, invite: 'face' });
    return { member: created[0]!, token: created[0]!.activation_link!.split('/activate/')[1]! };
  };
  /** Adds a member and activates them with an account of the same address. */
  const activeMember = async (email: string, svcId: string) => {
    const { token } = await addWithLink(email);
    accounts.set(svcId, email);
    return (await roster.activate(token, svcId, Buffer.alloc(0))).member;
  };
  const audited = (action: string) => store.tables.audits.filter((entry) => entry.action === action);
  const openSeats = (memberId: string) =>
    store.tables.seats.filter((seat) => seat.memberId === memberId && seat.endedAt === null);
  return { store, clock, accounts, sent, revoked, roster, caller, addWithLink, activeMember, audited, openSeats };
}

describe('adding members on a fake store', () => {
  it('skips an address given twice in one call, or already on the roster, as duplicate, whatever its case', async () => {
    const { roster, caller, audited } = await setUp();
    const first = await roster.addMembers(caller, {
      members: [{ email: 'ada@acme.example' }, { email: 'ADA@Acme.example' }, { email: 'grace@acme.example' }],
      notify: false,
    });
    expect(first.created.map((member) => member.email)).toEqual(['ada@acme.example', 'grace@acme.example']);
    expect(first.skipped).toEqual([{ email: 'ADA@Acme.example', reason: 'duplicate' }]);
    const second = await roster.addMembers(caller, {
      members: [{ email: 'Grace@ACME.example' }, { email: 'alan@acme.example' }],
      notify: false,
    });
    expect(second.created.map((member) => member.email)).toEqual(['alan@acme.example']);
    expect(second.skipped).toEqual([{ email: 'Grace@ACME.example', reason: 'duplicate' }]);
    expect(audited('add')).toHaveLength(3);
  });

  it('emails a link when notifying, adds without one for a later email otherwise, and with nothing to send says it notified no one', async () => {
    const { roster, caller, sent } = await setUp();
    const emailed = await roster.addMembers(caller, { members: [{ email: 'ada@acme.example', first_name: 'Ada' }] });
    expect(emailed).toMatchObject({
      created: [{ status: 'link_sent', invite_method: 'email', activation_link: null }],
      notified: true,
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ to: 'ada@acme.example', subject: 'Acme invites you to join its team on Verity' });
    expect((await roster.addMembers(caller, { members: [{ email: 'ada@acme.example' }] })).notified).toBe(false);
    const quiet = await roster.addMembers(caller, {
      members: [{ email: 'grace@acme.example' }],
      notify: false,
      invite: 'email',
    });
    expect(quiet.created[0]).toMatchObject({ status: 'invited', invite_method: 'none', activation_link: null });
  });

  it('re-adding a deactivated member reactivates them: active when the account exists, else invited without it', async () => {
    const { roster, caller, accounts, activeMember, openSeats } = await setUp();
    const kept = await activeMember('ada@acme.example', svc('a'));
    const gone = await activeMember('grace@acme.example', svc('b'));
    await roster.deactivate(caller, kept.member_id);
    await roster.deactivate(caller, gone.member_id);
    accounts.delete(svc('b'));
    const { created, skipped } = await roster.addMembers(caller, {
      members: [{ email: 'ADA@acme.example' }, { email: 'grace@acme.example' }],
      notify: false,
    });
    expect(skipped).toEqual([]);
    expect(created).toMatchObject([
      { member_id: kept.member_id, status: 'active', svc_id: svc('a'), reactivated: true, invite_method: 'none' },
      { member_id: gone.member_id, status: 'invited', svc_id: null, reactivated: true },
    ]);
    expect(openSeats(kept.member_id)).toHaveLength(1);
    expect(openSeats(gone.member_id)).toHaveLength(0);
  });
});

describe('member state changes on a fake store', () => {
  it('deactivation closes the seat, revokes the logins, is audited once and is idempotent', async () => {
    const { roster, caller, revoked, activeMember, audited, openSeats } = await setUp();
    const member = await activeMember('ada@acme.example', svc('a'));
    expect(openSeats(member.member_id)).toHaveLength(1);
    expect((await roster.deactivate(caller, 'ADA@ACME.EXAMPLE')).member).toMatchObject({
      status: 'deactivated',
      active: false,
    });
    expect((await roster.deactivate(caller, member.member_id)).member.status).toBe('deactivated');
    expect(openSeats(member.member_id)).toHaveLength(0);
    expect(audited('deactivate')).toHaveLength(1);
    expect(revoked).toContain(svc('a'));
    expect(await roster.isDeactivated(caller.organizationId, svc('a'))).toBe(true);
  });

  it('a permanent removal deletes the row and closes the seat; again it is already_removed, by any reference', async () => {
    const { roster, caller, store, activeMember, audited, openSeats } = await setUp();
    const member = await activeMember('ada@acme.example', svc('a'));
    expect(await roster.remove(caller, member.member_id, { permanent: 'true' })).toEqual({
      member: null,
      removed: true,
    });
    expect(store.tables.members).toHaveLength(0);
    expect(openSeats(member.member_id)).toHaveLength(0);
    for (const ref of [member.member_id, 'Ada@Acme.Example', svc('a')])
      expect(await roster.remove(caller, ref, { permanent: 'true' })).toEqual({ member: null, already_removed: true });
    expect(audited('remove')).toHaveLength(1);
    await expect(roster.remove(caller, 'nobody@acme.example', {})).rejects.toMatchObject({ code: 'not_found' });
  });

  it('reactivates only a deactivated member', async () => {
    const { roster, caller, addWithLink, activeMember, audited } = await setUp();
    const { member: invited } = await addWithLink('ada@acme.example');
    expect((await roster.reactivate(caller, invited.member_id)).member.status).toBe('link_sent');
    const active = await activeMember('grace@acme.example', svc('b'));
    expect((await roster.reactivate(caller, active.member_id)).member.status).toBe('active');
    expect(audited('reactivate')).toHaveLength(0);
    await roster.deactivate(caller, active.member_id);
    expect((await roster.reactivate(caller, active.member_id)).member).toMatchObject({
      status: 'active',
      svc_id: svc('b'),
    });
    expect(audited('reactivate')).toHaveLength(1);
  });
});

describe('invitations and activation on a fake store', () => {
  it('re-invites: refuses active (already_active) and deactivated (deactivated) members; a new link supersedes the old', async () => {
    const { roster, caller, sent, addWithLink, activeMember } = await setUp();
    const active = await activeMember('ada@acme.example', svc('a'));
    await expect(roster.invite(caller, active.member_id)).rejects.toMatchObject({ code: 'already_active' });
    await roster.deactivate(caller, active.member_id);
    await expect(roster.invite(caller, active.member_id)).rejects.toMatchObject({ code: 'deactivated' });
    const { member, token: old } = await addWithLink('grace@acme.example');
    const { activation_link } = await roster.invite(caller, member.member_id);
    expect(sent.at(-1)?.text).toContain(activation_link);
    await expect(roster.activationTarget(old)).rejects.toMatchObject({ code: 'invalid_activation' });
    expect(await roster.activationTarget(activation_link.split('/activate/')[1]!)).toMatchObject({
      email: 'grace@acme.example',
      organizationName: 'Acme',
    });
  });

  it(`re-invites a member at most ${INVITES_PER_MINUTE} times a minute, then rate_limited until the next minute`, async () => {
    const { roster, caller, clock, addWithLink } = await setUp();
    const { member } = await addWithLink('ada@acme.example');
    for (let i = 0; i < INVITES_PER_MINUTE; i++) await roster.invite(caller, member.member_id);
    await expect(roster.invite(caller, member.member_id)).rejects.toMatchObject({
      code: 'rate_limited',
      retryAfterSeconds: 60,
    });
    clock.advance(60_000);
    expect((await roster.invite(caller, member.member_id)).member.status).toBe('link_sent');
  });

  it("an activation link is the invited address's only (any case); then the member is active with a seat", async () => {
    const { roster, accounts, addWithLink, openSeats } = await setUp();
    const { member, token } = await addWithLink('ada@acme.example');
    accounts.set(svc('e'), 'eve@acme.example');
    await expect(roster.activate(token, svc('e'), Buffer.alloc(0))).rejects.toMatchObject({ code: 'access_denied' });
    accounts.set(svc('a'), 'ADA@acme.example');
    expect((await roster.activate(token, svc('a'), Buffer.alloc(0))).member).toMatchObject({
      status: 'active',
      svc_id: svc('a'),
    });
    expect(openSeats(member.member_id)).toHaveLength(1);
  });

  it('an activation link works once (then invalid_activation) and expires after 7 days (code_expired)', async () => {
    const { roster, clock, accounts, addWithLink } = await setUp();
    const { token } = await addWithLink('ada@acme.example');
    accounts.set(svc('a'), 'ada@acme.example');
    await roster.activate(token, svc('a'), Buffer.alloc(0));
    await expect(roster.activate(token, svc('a'), Buffer.alloc(0))).rejects.toMatchObject({
      code: 'invalid_activation',
    });
    const { token: late } = await addWithLink('grace@acme.example');
    clock.advance(ACTIVATION_TTL_MS);
    await expect(roster.activationTarget(late)).rejects.toMatchObject({ code: 'code_expired' });
    await expect(roster.activationTarget('act_unknown')).rejects.toMatchObject({ code: 'invalid_activation' });
  });

  it('one account is on a roster once: a second activation is already_active and leaves its link usable', async () => {
    const { roster, accounts, addWithLink, activeMember, audited } = await setUp();
    await activeMember('ada@acme.example', svc('a'));
    const { member, token } = await addWithLink('ada.lovelace@acme.example');
    accounts.set(svc('a'), 'ada.lovelace@acme.example');
    await expect(roster.activate(token, svc('a'), Buffer.alloc(0))).rejects.toMatchObject({ code: 'already_active' });
    expect(audited('activate')).toHaveLength(1);
    expect(await roster.activationTarget(token)).toMatchObject({ memberId: member.member_id });
  });
});

describe('plans and billing on a fake store', () => {
  it('audits each plan change with its terms before and after; a trial counts from the first plan', async () => {
    const { roster, caller, clock, store, audited } = await setUp();
    const first = await roster.setPlan({
      organizationId: caller.organizationId,
      plan: 'team',
      pricePerSeat: 5,
      trialDays: 14,
    });
    expect(first).toMatchObject({
      plan: 'team',
      pricePerSeat: 5,
      currency: 'USD',
      trialEndsAt: '2026-12-12T12:00:00.000Z',
    });
    clock.advance(86_400_000);
    const second = await roster.setPlan(
      { organizationId: caller.organizationId, plan: 'business', pricePerSeat: 7.5, currency: 'eur', trialDays: 14 },
      'admin',
    );
    expect(second).toMatchObject({
      plan: 'business',
      currency: 'EUR',
      trialEndsAt: first.trialEndsAt,
      startedAt: first.startedAt,
    });
    expect(
      audited('plan_set').map(({ actor, memberId, before, after }) => ({ actor, memberId, before, after })),
    ).toEqual([
      {
        actor: 'operator',
        memberId: null,
        before: null,
        after: { plan: 'team', price_per_seat: 5, currency: 'USD', trial_ends_at: first.trialEndsAt },
      },
      {
        actor: 'admin',
        memberId: null,
        before: { plan: 'team', price_per_seat: 5, currency: 'USD', trial_ends_at: first.trialEndsAt },
        after: { plan: 'business', price_per_seat: 7.5, currency: 'EUR', trial_ends_at: first.trialEndsAt },
      },
    ]);
    expect(store.tables.plans).toHaveLength(1);
    await expect(roster.setPlan({ organizationId: 999, plan: 'team', pricePerSeat: 5 })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('bills seat-time after the trial and closes each finished month once', async () => {
    const { roster, caller, clock, activeMember } = await setUp();
    clock.set(new Date('2026-03-01T00:00:00Z'));
    await roster.setPlan({ organizationId: caller.organizationId, plan: 'team', pricePerSeat: 31, trialDays: 0 });
    await activeMember('ada@acme.example', svc('a'));
    clock.set(new Date('2026-03-16T00:00:00Z'));
    await activeMember('grace@acme.example', svc('b'));
    expect(await roster.billing(caller.organizationId)).toMatchObject({
      seats: 2,
      estimated_next_charge: 62,
      balance: 0,
      invoices: [],
    });
    clock.set(new Date('2026-04-02T00:00:00Z'));
    expect((await roster.closeBillingPeriods()).closed).toEqual([
      { organizationId: caller.organizationId, period: '2026-03' },
    ]);
    expect((await roster.closeBillingPeriods()).closed).toEqual([]);
    // A whole month of one seat and 16 of 31 days of another, at 31 a seat.
    expect((await roster.billing(caller.organizationId)).invoices).toMatchObject([
      { period: '2026-03', seats: 2, amount: 47 },
    ]);
  });
});
