import type { AccountService } from '../accounts/service.js';
import type { Clock } from '../clock.js';
import { DomainError } from '../errors.js';
import type { MailMessage, MailService } from '../mail/index.js';
import { digestSecret, newId, newSecret } from '../secrets.js';
import { parseInput, validationError } from '../validation.js';
import { billingView, closeFinishedPeriods, trialEnd } from './billing.js';
import { addMembersInput, listMembersQuery, removeMemberQuery, resolveMemberInput, setPlanInput } from './inputs.js';
import type {
  AuditEntry,
  MemberKey,
  MemberRecord,
  MemberStatus,
  NewMemberRecord,
  PlanRecord,
  RosterStore,
  RosterTransaction,
} from './store.js';
import type { z } from 'zod';
import {
  memberView,
  type addedMembersWire,
  type CreatedMemberView,
  type invitedMemberWire,
  type memberAnswerWire,
  type memberPageWire,
  type RemovedMemberView,
  type resolvedMemberWire,
} from './views.js';

/** Activation links live 7 days and work once; a newer link for the member supersedes the older. */
export const ACTIVATION_TTL_MS = 7 * 86_400_000;
/** Re-invites per member per minute (spec: Limits). */
export const INVITES_PER_MINUTE = 10;

/** Who changes a roster: an org app's client id, `activation` (the person, by face) or `operator`. */
export type Actor = string;

/** The org app calling the roster API. */
export interface RosterCaller {
  organizationId: number;
  clientId: string;
}

/**
 * Checks a selfie for an account (live, and the account's face, enrolling it when the account has none); throws when it
 * fails.
 */
export type FaceActivationCheck = (svcId: string, selfie: Buffer) => Promise<void>;

/**
 * An activation link belongs to the person it was sent to: only an account with the invited email
 * may use it (else anyone holding the link, or signed in when opening it, would take the seat and
 * give their face as the invited person's reference). Emails compare case-insensitively.
 */
export function invitedEmailMatches(invited: string, email: string): boolean {
  return invited.trim().toLowerCase() === email.trim().toLowerCase();
}

export function invitationForAnotherEmail(invited: string): DomainError {
  return new DomainError(
    'access_denied',
    `this invitation was sent to ${invited}: sign in or create an account with that email`,
  );
}

export interface RosterDeps {
  /** The roster's tables. */
  store: RosterStore;
  /** Whose account a member is connected to (asked inside the roster's transaction when it belongs to the change). */
  accounts: Pick<AccountService, 'emailOf'>;
  clock: Clock;
  mail: MailService;
  /** The public base URL: activation links point at `<baseUrl>/activate/<token>`. */
  baseUrl: string;
  /** Revokes a person's access and refresh tokens for the organization's OIDC clients. */
  revokeLogins: (svcId: string, organizationId: number) => Promise<void>;
  /** The live and face-match check of the activation page. */
  faceCheck: FaceActivationCheck;
}

type InviteMethod = CreatedMemberView['invite_method'];

interface NewLink {
  token: string;
  digest: string;
  expiresAt: Date;
}

/**
 * Which column a member reference names: a member id, an email (matched case-insensitively) or an svc_id; null when it
 * is none of them.
 */
function memberKey(ref: string): MemberKey | null {
  const value = ref.trim();
  if (/^mem_[0-9a-f]{24}$/.test(value)) return { column: 'member_id', value };
  if (value.includes('@') && value.length <= 320) return { column: 'email', value: value.toLowerCase() };
  if (/^svc_[0-9a-f]{24}$/.test(value)) return { column: 'svc_id', value };
  return null;
}

/**
 * `notified`: the people were told, by mail, and every message went out. Nothing to send (only
 * re-added deactivated members, or duplicates) is not being notified, whatever `notify` asked.
 */
function notifiedEveryone(notify: boolean, messages: number, failed: number): boolean {
  return notify && messages > 0 && failed === 0;
}

/** Organization rosters: members, invitations, activation by face, seats, billing and the audit trail. */
export class RosterService {
  constructor(private readonly deps: RosterDeps) {}

  private now(): Date {
    return this.deps.clock.now();
  }

  private newLink(): NewLink {
    const token = newSecret('act', 24);
    return { token, digest: digestSecret(token), expiresAt: new Date(this.now().getTime() + ACTIVATION_TTL_MS) };
  }

  activationUrl(token: string): string {
    return `${this.deps.baseUrl}/activate/${token}`;
  }

  /** An entry of the audit trail for a change made now. */
  private auditEntry(entry: Omit<AuditEntry, 'createdAt'>): AuditEntry {
    return { ...entry, createdAt: this.now() };
  }

  /** The organization's id and name; `not_found` when there is none. */
  private async organization(organizationId: number): Promise<{ id: number; name: string }> {
    const organization = await this.deps.store.organization(organizationId);
    if (!organization) throw new DomainError('not_found', 'organization not found');
    return organization;
  }

  private invitationMail(
    member: Pick<MemberRecord, 'email' | 'firstName'>,
    organizationName: string,
    link: NewLink,
  ): MailMessage {
    const hello = member.firstName ? `Hello ${member.firstName},` : 'Hello,';
    const expires = link.expiresAt.toISOString().slice(0, 10);
    const url = this.activationUrl(link.token);
    return {
      to: member.email,
      subject: `${organizationName} invites you to join its team on Verity`,
      text: `${hello}\n\n${organizationName} added you to its team on Verity. Open this link to connect your Verity account (sign in or create one, then take a selfie):\n\n${url}\n\nThe link works once and expires on ${expires}. If you did not expect this, ignore this email.\n`,
    };
  }

  // ---- reads ----

  /**
   * GET /members: one page of members with the `member` role, oldest first, with the organization.
   * `nextCursor` (null on the last page) continues after the page's last member.
   */
  async listMembers(
    organizationId: number,
    query: unknown = {},
  ): Promise<z.output<typeof memberPageWire> & { nextCursor: string | null }> {
    const { limit, cursor } = parseRoster(listMembersQuery, query);
    const afterId = cursor === undefined ? 0 : memberIdOfCursor(cursor);
    const organization = await this.organization(organizationId);
    const rows = await this.deps.store.memberPage(organizationId, afterId, limit + 1);
    const page = rows.slice(0, limit);
    const nextCursor = rows.length > limit ? cursorOfMemberId(page[page.length - 1]!.id) : null;
    return {
      members: page.map(memberView),
      organization: { id: organization.id, name: organization.name },
      nextCursor,
    };
  }

  // ---- organizations (tenancy's roster apps and OIDC clients name them by id) ----

  organizationExists(organizationId: number): Promise<boolean> {
    return this.deps.store.organizationExists(organizationId);
  }

  /** A new organization, with no members yet; its id. */
  createOrganization(name: string): Promise<number> {
    return this.deps.store.createOrganization(name, this.now());
  }

  async organizationNames(organizationIds: readonly number[]): Promise<Map<number, string>> {
    if (organizationIds.length === 0) return new Map();
    const rows = await this.deps.store.organizationNames(organizationIds);
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  /** Whether the person is a deactivated member of the organization (its apps refuse them a sign-in). */
  isDeactivated(organizationId: number, svcId: string): Promise<boolean> {
    return this.deps.store.isDeactivated(organizationId, svcId);
  }

  /** POST /members/resolve: by svc_id or email, any role. */
  async resolve(organizationId: number, body: unknown): Promise<z.output<typeof resolvedMemberWire>> {
    const input = parseRoster(resolveMemberInput, body);
    if (!input.svc_id && !input.email) throw new DomainError('missing_identifier', 'give svc_id or email');
    const key = input.svc_id ? { column: 'svc_id' as const, value: input.svc_id } : memberKey(input.email!);
    const member = key ? await this.deps.store.member(organizationId, key) : null;
    return { found: member !== null, member: member ? memberView(member) : null };
  }

  /** The audit trail of an organization (newest first), optionally of one member. */
  async auditTrail(organizationId: number, options: { memberId?: string; limit?: number } = {}) {
    const entries = await this.deps.store.auditTrail(
      organizationId,
      options.memberId ?? null,
      Math.min(options.limit ?? 100, 1000),
    );
    return entries.map((entry) => ({
      id: entry.id,
      member_id: entry.memberId,
      actor: entry.actor,
      action: entry.action,
      before: entry.before ?? null,
      after: entry.after ?? null,
      created_at: entry.createdAt.toISOString(),
    }));
  }

  // ---- add ----

  /**
   * POST /members. Each address becomes one outcome: created (new, or a deactivated member
   * reactivated), or skipped as `duplicate` (already on the roster, or added by a concurrent call
   * a moment earlier: the unique index on (organization, lower(email)) decides).
   */
  async addMembers(caller: RosterCaller, body: unknown): Promise<z.output<typeof addedMembersWire>> {
    const input = parseRoster(addMembersInput, body);
    // `auto`: an emailed invitation when we notify, else a face link handed back to the caller.
    const method = input.invite === 'auto' ? (input.notify ? 'email' : 'face') : input.invite;
    const organization = await this.organization(caller.organizationId);
    const now = this.now();
    const created: CreatedMemberView[] = [];
    const { firsts, repeats } = firstOfEachEmail(input.members);
    const skipped: { email: string; reason: string }[] = repeats.map((repeat) => ({
      email: repeat.email,
      reason: 'duplicate',
    }));
    const mail: MailMessage[] = [];

    await this.deps.store.transaction(async (tx) => {
      const existing = new Map<string, MemberRecord>();
      for (const member of await tx.membersByEmail(
        organization.id,
        firsts.map((member) => member.email.toLowerCase()),
      )) {
        existing.set(member.email.toLowerCase(), member);
      }
      const fresh: { member: NewMemberRecord; link: NewLink | null; inviteMethod: InviteMethod }[] = [];
      for (const wanted of firsts) {
        const current = existing.get(wanted.email.toLowerCase());
        if (current?.status === 'deactivated') {
          // Lock and re-read: of two concurrent re-adds only the first finds it still deactivated.
          const locked = await tx.lockMember(organization.id, { column: 'member_id', value: current.memberId });
          const reactivated = locked !== null && (await this.reactivateLocked(tx, locked, caller.clientId));
          if (reactivated)
            created.push({ ...memberView(locked), activation_link: null, invite_method: 'none', reactivated: true });
          else skipped.push({ email: wanted.email, reason: 'duplicate' });
          continue;
        }
        if (current) {
          skipped.push({ email: wanted.email, reason: 'duplicate' });
          continue;
        }
        // face: a link, emailed when notifying, else returned; email: a link by email, or nothing yet.
        const sendsLink = method === 'face' || input.notify;
        const link = sendsLink ? this.newLink() : null;
        const status: MemberStatus = link ? 'link_sent' : 'invited';
        fresh.push({
          link,
          inviteMethod: link ? method : 'none',
          member: {
            memberId: newId('mem'),
            organizationId: organization.id,
            email: wanted.email,
            firstName: wanted.first_name ?? '',
            lastName: wanted.last_name ?? '',
            role: wanted.role,
            status,
            activationDigest: link?.digest ?? null,
            activationExpiresAt: link?.expiresAt ?? null,
            createdAt: now,
          },
        });
      }
      if (!fresh.length) return;
      const ids = new Map(
        (await tx.addMembers(fresh.map((entry) => entry.member))).map((row) => [row.memberId, row.id]),
      );
      const audits: AuditEntry[] = [];
      for (const entry of fresh) {
        const id = ids.get(entry.member.memberId);
        if (id === undefined) {
          skipped.push({ email: entry.member.email, reason: 'duplicate' });
          continue;
        }
        const view = memberView({ ...entry.member, id, svcId: null });
        created.push({
          ...view,
          activation_link: entry.link && !input.notify ? this.activationUrl(entry.link.token) : null,
          invite_method: entry.inviteMethod,
        });
        if (entry.link && input.notify) mail.push(this.invitationMail(entry.member, organization.name, entry.link));
        audits.push({
          organizationId: organization.id,
          memberId: view.member_id,
          actor: caller.clientId,
          action: 'add',
          before: null,
          after: view,
          createdAt: now,
        });
      }
      await tx.appendAudit(audits);
    });
    const { failed } = mail.length ? await this.deps.mail.send(mail) : { failed: 0 };
    return { created, skipped, notified: notifiedEveryone(input.notify, mail.length, failed) };
  }

  // ---- state changes on one member ----

  /** Runs `work` on one member under a row lock; 404 `not_found` when it is not on this roster. */
  private async withMember<T>(
    organizationId: number,
    ref: string,
    work: (tx: RosterTransaction, member: MemberRecord) => Promise<T>,
  ): Promise<T> {
    const key = memberKey(ref);
    if (!key) throw new DomainError('not_found', 'no such member in this organization');
    return this.deps.store.transaction(async (tx) => {
      const member = await tx.lockMember(organizationId, key);
      if (!member) throw new DomainError('not_found', 'no such member in this organization');
      return work(tx, member);
    });
  }

  /** Applies `change` to a locked member, writes it and records it in the audit trail (when something changed). */
  private async record(
    tx: RosterTransaction,
    member: MemberRecord,
    actor: Actor,
    action: string,
    change: () => Promise<boolean> | boolean,
  ): Promise<boolean> {
    const before = memberView(member);
    if (!(await change())) return false;
    await tx.saveMember(member);
    await tx.appendAudit([
      this.auditEntry({
        organizationId: member.organizationId,
        memberId: member.memberId,
        actor,
        action,
        before,
        after: memberView(member),
      }),
    ]);
    return true;
  }

  private async deactivateLocked(tx: RosterTransaction, member: MemberRecord, actor: Actor) {
    await this.record(tx, member, actor, 'deactivate', async () => {
      if (member.status === 'deactivated') return false;
      if (member.status === 'active') await tx.closeSeat(member.memberId, this.now());
      member.status = 'deactivated';
      member.activationDigest = null;
      member.activationExpiresAt = null;
      return true;
    });
  }

  /** PATCH /members/{member_id}/deactivate: billing stops, app logins revoked, the row kept. */
  async deactivate(caller: RosterCaller, ref: string): Promise<z.output<typeof memberAnswerWire>> {
    const member = await this.withMember(caller.organizationId, ref, async (tx, member) => {
      await this.deactivateLocked(tx, member, caller.clientId);
      return member;
    });
    if (member.svcId) await this.deps.revokeLogins(member.svcId, caller.organizationId);
    return { member: memberView(member) };
  }

  /** DELETE /members/{member_id}: deactivates, or with `permanent` deletes the row; idempotent. */
  async remove(caller: RosterCaller, ref: string, query: unknown): Promise<RemovedMemberView> {
    const permanent = ['true', '1'].includes(parseRoster(removeMemberQuery, query).permanent ?? 'false');
    let member: MemberRecord;
    try {
      member = await this.withMember(caller.organizationId, ref, async (tx, member) => {
        if (!permanent) {
          await this.deactivateLocked(tx, member, caller.clientId);
          return member;
        }
        const before = memberView(member);
        if (member.status === 'active') await tx.closeSeat(member.memberId, this.now());
        await tx.deleteMember(member.id);
        await tx.appendAudit([
          this.auditEntry({
            organizationId: caller.organizationId,
            memberId: member.memberId,
            actor: caller.clientId,
            action: 'remove',
            before,
            after: null,
          }),
        ]);
        return member;
      });
    } catch (error) {
      if (
        error instanceof DomainError &&
        error.code === 'not_found' &&
        (await this.wasRemoved(caller.organizationId, ref))
      )
        return { member: null, already_removed: true };
      throw error;
    }
    if (member.svcId) await this.deps.revokeLogins(member.svcId, caller.organizationId);
    return permanent ? { member: null, removed: true } : { member: memberView(member) };
  }

  /** True when this organization permanently removed a member known by `ref` (the audit trail is the tombstone). */
  private wasRemoved(organizationId: number, ref: string): Promise<boolean> {
    return this.deps.store.wasRemoved(organizationId, ref.trim());
  }

  /**
   * A deactivated member back on the roster: active when their account still exists, else
   * invited (they activate by face again). Returns false when the member was not deactivated.
   */
  private async reactivateLocked(tx: RosterTransaction, member: MemberRecord, actor: Actor): Promise<boolean> {
    return this.record(tx, member, actor, 'reactivate', async () => {
      if (member.status !== 'deactivated') return false;
      const accountExists = member.svcId ? (await this.deps.accounts.emailOf(member.svcId, tx.tx)) !== null : false;
      member.status = accountExists ? 'active' : 'invited';
      if (!accountExists) member.svcId = null;
      if (accountExists) await tx.openSeat(member.organizationId, member.memberId, this.now());
      return true;
    });
  }

  /** PATCH /members/{member_id}/reactivate. */
  async reactivate(caller: RosterCaller, ref: string): Promise<z.output<typeof memberAnswerWire>> {
    const member = await this.withMember(caller.organizationId, ref, async (tx, member) => {
      await this.reactivateLocked(tx, member, caller.clientId);
      return member;
    });
    return { member: memberView(member) };
  }

  /** Counts one re-invite request of a member in the current minute; 429 past the limit. */
  private async countInvite(memberPk: number): Promise<void> {
    const now = this.now();
    const windowStart = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
    if ((await this.deps.store.countInvite(memberPk, windowStart)) > INVITES_PER_MINUTE) {
      const retryAfterSeconds = Math.max(1, Math.ceil((windowStart.getTime() + 60_000 - now.getTime()) / 1000));
      throw new DomainError(
        'rate_limited',
        `at most ${INVITES_PER_MINUTE} invitations per minute for one member; retry in ${retryAfterSeconds} s`,
        { retryAfterSeconds },
      );
    }
  }

  /** POST /members/{member_id}/invite: a new face link (the old one stops working), emailed and returned. */
  async invite(caller: RosterCaller, ref: string): Promise<z.output<typeof invitedMemberWire>> {
    const key = memberKey(ref);
    const target = key ? await this.deps.store.member(caller.organizationId, key) : null;
    if (!target) throw new DomainError('not_found', 'no such member in this organization');
    await this.countInvite(target.id);
    const link = this.newLink();
    // Read before the member is locked: no second connection is awaited while the lock is held.
    const organizationName = (await this.organization(caller.organizationId)).name;
    const member = await this.withMember(caller.organizationId, ref, async (tx, member) => {
      if (member.status === 'active') throw new DomainError('already_active', 'the member is already active');
      if (member.status === 'deactivated')
        throw new DomainError('deactivated', 'the member is deactivated: reactivate them first');
      await this.record(tx, member, caller.clientId, 'invite', () => {
        member.status = 'link_sent';
        member.activationDigest = link.digest;
        member.activationExpiresAt = link.expiresAt;
        return true;
      });
      return member;
    });
    await this.deps.mail.send([this.invitationMail(member, organizationName, link)]);
    return { member: memberView(member), activation_link: this.activationUrl(link.token) };
  }

  // ---- activation by face ----

  /** The member an activation link is for: 404 `invalid_activation` (unknown, used, superseded), 410 `code_expired`. */
  async activationTarget(token: string) {
    const member = token && token.length <= 100 ? await this.deps.store.activationTarget(digestSecret(token)) : null;
    refuseUnusableLink(member, this.now());
    return {
      memberId: member.memberId,
      email: member.email,
      firstName: member.firstName,
      organizationName: member.organizationName,
    };
  }

  /**
   * The person behind an activation link, signed in as `svcId`, sends a selfie: it must be live
   * and match the account's face (or becomes it, for an account without one). The link is then
   * used up and the member becomes active with the account connected.
   */
  async activate(token: string, svcId: string, selfie: Buffer) {
    const target = await this.activationTarget(token);
    const email = await this.deps.accounts.emailOf(svcId);
    if (email === null || !invitedEmailMatches(target.email, email)) throw invitationForAnotherEmail(target.email);
    await this.deps.faceCheck(svcId, selfie);
    return this.deps.store.transaction(async (tx) => {
      const member = await tx.lockMemberByActivation(digestSecret(token));
      // Used or superseded while the face was being checked.
      refuseUnusableLink(member, this.now());
      // An account already on this roster: saving it answers `already_active` (the unique (organization, svc_id)).
      await this.record(tx, member, 'activation', 'activate', async () => {
        member.status = 'active';
        member.svcId = svcId;
        member.activationDigest = null;
        member.activationExpiresAt = null;
        await tx.openSeat(member.organizationId, member.memberId, this.now());
        return true;
      });
      return { member: memberView(member) };
    });
  }

  // ---- billing ----

  async billing(organizationId: number) {
    const now = this.now();
    const plan = await this.deps.store.plan(organizationId);
    const seats = await this.deps.store.activeSeats(organizationId);
    return billingView(plan, seats, await this.deps.store.invoices(organizationId), now);
  }

  /** Sets an organization's plan (operators: CLI, GraphQL, tRPC). A trial counts from the first plan. */
  async setPlan(body: unknown, actor: Actor = 'operator') {
    const input = parseInput(setPlanInput, body);
    await this.organization(input.organizationId);
    const now = this.now();
    const plan = await this.deps.store.transaction(async (tx) => {
      const existing = await tx.lockPlan(input.organizationId);
      const startedAt = existing?.startedAt ?? now;
      const saved = await tx.savePlan({
        organizationId: input.organizationId,
        plan: input.plan,
        pricePerSeatMinor: Math.round(input.pricePerSeat * 100),
        currency: input.currency,
        trialEndsAt: trialEnd(startedAt, input.trialDays),
        startedAt,
        updatedAt: now,
      });
      await tx.appendAudit([
        {
          organizationId: input.organizationId,
          memberId: null,
          actor,
          action: 'plan_set',
          before: existing && planTerms(existing),
          after: planTerms(saved),
          createdAt: now,
        },
      ]);
      return saved;
    });
    const terms = planTerms(plan);
    return {
      organizationId: input.organizationId,
      plan: plan.plan,
      pricePerSeat: terms.price_per_seat,
      currency: plan.currency,
      trialEndsAt: terms.trial_ends_at,
      startedAt: plan.startedAt.toISOString(),
    };
  }

  /** Closes every finished monthly period once (idempotent; safe to run concurrently). Scheduled monthly. */
  async closeBillingPeriods(now: Date = this.now()) {
    return { closed: await closeFinishedPeriods(this.deps.store, now) };
  }
}

/** A plan's terms as the audit trail records them. */
function planTerms(plan: PlanRecord) {
  return {
    plan: plan.plan,
    price_per_seat: plan.pricePerSeatMinor / 100,
    currency: plan.currency,
    trial_ends_at: plan.trialEndsAt?.toISOString() ?? null,
  };
}

/**
 * An activation link works once, until it expires: 404 `invalid_activation` when no member holds
 * it or theirs was used or superseded, 410 `code_expired` past its expiry.
 */
function refuseUnusableLink<M extends { status: MemberStatus; activationExpiresAt: Date | null }>(
  member: M | null,
  now: Date,
): asserts member is M {
  if (!member || !['invited', 'link_sent'].includes(member.status)) throw new DomainError('invalid_activation');
  if (!member.activationExpiresAt || member.activationExpiresAt <= now)
    throw new DomainError('code_expired', 'this activation link expired: ask your organization for a new one');
}

/** A member page cursor: the last member's row id, opaque to callers. */
function cursorOfMemberId(id: number): string {
  return Buffer.from(`m${id}`).toString('base64url');
}

function memberIdOfCursor(cursor: string): number {
  const match = /^m(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  if (!match)
    throw new DomainError('invalid_request', 'cursor is not one this API gave out', {
      data: { errors: { cursor: 'invalid cursor' } },
    });
  return Number(match[1]);
}

/** The same address twice in one call (any case): the first counts, the later ones are skipped as `duplicate`. */
function firstOfEachEmail<M extends { email: string }>(members: M[]): { firsts: M[]; repeats: M[] } {
  const seen = new Set<string>();
  const firsts: M[] = [];
  const repeats: M[] = [];
  for (const member of members) {
    const key = member.email.toLowerCase();
    (seen.has(key) ? repeats : firsts).push(member);
    seen.add(key);
  }
  return { firsts, repeats };
}

/** Roster bodies answer 400 `invalid_request` with `data.errors` naming each field (e.g. `members[3].email`). */
function parseRoster<S extends Parameters<typeof parseInput>[0]>(schema: S, body: unknown) {
  const result = schema.safeParse(body ?? {});
  if (!result.success) throw validationError(result.error, 'invalid_request');
  return result.data as ReturnType<typeof parseInput<S>>;
}
