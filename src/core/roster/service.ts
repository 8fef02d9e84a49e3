import { LockMode, raw, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AccountService } from '../accounts/service.js';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { preparedQuery, sqlDate } from '../db/prepared.js';
import { DomainError } from '../errors.js';
import type { MailMessage, MailService } from '../mail/index.js';
import { digestSecret, newId, newSecret } from '../secrets.js';
import { parseInput, validationError } from '../validation.js';
import { billingView, closeFinishedPeriods, trialEnd } from './billing.js';
import { Member, RosterAudit, RosterPlan, RosterSeat, type MemberStatus } from './entities.js';
import { addMembersInput, listMembersQuery, removeMemberQuery, resolveMemberInput, setPlanInput } from './inputs.js';
import type { z } from 'zod';
import {
  memberView,
  type addedMembersWire,
  type CreatedMemberView,
  type invitedMemberWire,
  type memberAnswerWire,
  type MemberFields,
  type memberPageWire,
  type MemberView,
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

/** Checks a selfie for an account (live, and the account's face, enrolling it when the account has none); throws when it fails. */
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
  return new DomainError('access_denied', `this invitation was sent to ${invited}: sign in or create an account with that email`);
}

export interface RosterDeps {
  orm: Orm;
  /** Whose account a member is connected to. */
  accounts: AccountService;
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

/** Which column a member reference names: a member id, an email (matched case-insensitively) or an svc_id; null when it is none of them. */
function memberKey(ref: string): { column: 'member_id' | 'email' | 'svc_id'; value: string } | null {
  const value = ref.trim();
  if (/^mem_[0-9a-f]{24}$/.test(value)) return { column: 'member_id', value };
  if (value.includes('@') && value.length <= 320) return { column: 'email', value: value.toLowerCase() };
  if (/^svc_[0-9a-f]{24}$/.test(value)) return { column: 'svc_id', value };
  return null;
}

/** The ORM filter of a member reference within an organization. */
function memberWhere(organizationId: number, ref: string): object | null {
  const key = memberKey(ref);
  if (!key) return null;
  if (key.column === 'email') return { organization: organizationId, [raw((alias) => `lower(${alias}.email)`)]: key.value };
  return { organization: organizationId, [key.column === 'member_id' ? 'memberId' : 'svcId']: key.value };
}

/** The columns of a member's wire view, and the statement that finds one by each kind of reference. */
const MEMBER_VIEW_COLUMNS = 'id, member_id, first_name, last_name, email, role, status, svc_id, created_at';
const MEMBER_BY: Record<'member_id' | 'email' | 'svc_id', string> = {
  member_id: `select ${MEMBER_VIEW_COLUMNS} from member where organization_id = $1 and member_id = $2`,
  email: `select ${MEMBER_VIEW_COLUMNS} from member where organization_id = $1 and lower(email) = $2`,
  svc_id: `select ${MEMBER_VIEW_COLUMNS} from member where organization_id = $1 and svc_id = $2`,
};
interface MemberRow {
  id: number;
  member_id: string;
  first_name: string;
  last_name: string;
  email: string;
  role: Member['role'];
  status: MemberStatus;
  svc_id: string | null;
  created_at: Date | string;
}

/** Organization rosters: members, invitations, activation by face, seats, billing and the audit trail. */
/**
 * `notified`: the people were told, by mail, and every message went out. Nothing to send (only
 * re-added deactivated members, or duplicates) is not being notified, whatever `notify` asked.
 */
function notifiedEveryone(notify: boolean, messages: number, failed: number): boolean {
  return notify && messages > 0 && failed === 0;
}

export class RosterService {
  constructor(private readonly deps: RosterDeps) {}

  private em() {
    return this.deps.orm.em.fork();
  }

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

  private audit(em: EntityManager, entry: { organizationId: number; memberId: string | null; actor: Actor; action: string; before: MemberView | object | null; after: MemberView | object | null }) {
    em.create(RosterAudit, { ...entry, before: entry.before as Record<string, unknown> | null, after: entry.after as Record<string, unknown> | null, createdAt: this.now() });
  }

  private openSeat(em: EntityManager, member: Member) {
    em.create(RosterSeat, { organizationId: member.organization.id, memberId: member.memberId, startedAt: this.now(), endedAt: null });
  }

  private closeSeat(em: EntityManager, member: Member) {
    return em.nativeUpdate(RosterSeat, { memberId: member.memberId, endedAt: null }, { endedAt: this.now() });
  }

  /** The organization's id and name; `not_found` when there is none. */
  private async organization(organizationId: number): Promise<{ id: number; name: string }> {
    const [organization] = await preparedQuery<{ id: number; name: string }>(this.deps.orm, 'organization_by_id', 'select id, name from organization where id = $1', [organizationId]);
    if (!organization) throw new DomainError('not_found', 'organization not found');
    return organization;
  }

  private invitationMail(member: Pick<Member, 'email' | 'firstName'>, organizationName: string, link: NewLink): MailMessage {
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
  async listMembers(organizationId: number, query: unknown = {}): Promise<z.output<typeof memberPageWire> & { nextCursor: string | null }> {
    const { limit, cursor } = parseRoster(listMembersQuery, query);
    const afterId = cursor === undefined ? 0 : memberIdOfCursor(cursor);
    const organization = await this.organization(organizationId);
    // Plain rows, not entities: a roster can hold 100,000 members and hydrating each costs.
    const rows = await preparedQuery<MemberFields>(
      this.deps.orm,
      'member_page',
      `select id, member_id as "memberId", first_name as "firstName", last_name as "lastName", email, role, status, svc_id as "svcId", created_at as "createdAt"
       from member where organization_id = $1 and role = 'member' and id > $2 order by id limit $3`,
      [organizationId, afterId, limit + 1],
    );
    const page = rows.slice(0, limit);
    const nextCursor = rows.length > limit ? cursorOfMemberId(page[page.length - 1]!.id) : null;
    return { members: page.map(memberView), organization: { id: organization.id, name: organization.name }, nextCursor };
  }

  // ---- organizations (tenancy's roster apps and OIDC clients name them by id) ----

  async organizationExists(organizationId: number): Promise<boolean> {
    return (await preparedQuery(this.deps.orm, 'organization_exists', 'select 1 from organization where id = $1', [organizationId])).length > 0;
  }

  /** A new organization, with no members yet; its id. */
  async createOrganization(name: string): Promise<number> {
    const [row] = await preparedQuery<{ id: number }>(this.deps.orm, 'organization_create', 'insert into organization (name, created_at) values ($1, $2) returning id', [name, this.now()]);
    return row!.id;
  }

  async organizationNames(organizationIds: readonly number[]): Promise<Map<number, string>> {
    if (organizationIds.length === 0) return new Map();
    const rows = await preparedQuery<{ id: number; name: string }>(this.deps.orm, 'organization_names', 'select id, name from organization where id = any($1::int[])', [organizationIds]);
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  /** Whether the person is a deactivated member of the organization (its apps refuse them a sign-in). */
  async isDeactivated(organizationId: number, svcId: string): Promise<boolean> {
    const rows = await preparedQuery(this.deps.orm, 'member_deactivated', "select 1 from member where organization_id = $1 and svc_id = $2 and status = 'deactivated' limit 1", [organizationId, svcId]);
    return rows.length > 0;
  }

  /** POST /members/resolve: by svc_id or email, any role. */
  async resolve(organizationId: number, body: unknown): Promise<z.output<typeof resolvedMemberWire>> {
    const input = parseRoster(resolveMemberInput, body);
    if (!input.svc_id && !input.email) throw new DomainError('missing_identifier', 'give svc_id or email');
    const key = input.svc_id ? { column: 'svc_id' as const, value: input.svc_id } : memberKey(input.email!);
    // A per-call lookup of org apps: one named statement, no entity built.
    const [row] = key ? await preparedQuery<MemberRow>(this.deps.orm, `member_by_${key.column}`, MEMBER_BY[key.column], [organizationId, key.value]) : [];
    const member = row
      ? memberView({ id: row.id, memberId: row.member_id, firstName: row.first_name, lastName: row.last_name, email: row.email, role: row.role, status: row.status, svcId: row.svc_id, createdAt: sqlDate(row.created_at) })
      : null;
    return { found: member !== null, member };
  }

  /** The audit trail of an organization (newest first), optionally of one member. */
  async auditTrail(organizationId: number, options: { memberId?: string; limit?: number } = {}) {
    const rows = await preparedQuery<{ id: number | string; member_id: string | null; actor: string; action: string; before: unknown; after: unknown; created_at: Date | string }>(
      this.deps.orm,
      'roster_audit_trail',
      `select id, member_id, actor, action, before, after, created_at from roster_audit
       where organization_id = $1 and ($2::varchar is null or member_id = $2) order by id desc limit $3`,
      [organizationId, options.memberId ?? null, Math.min(options.limit ?? 100, 1000)],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      member_id: row.member_id,
      actor: row.actor,
      action: row.action,
      before: row.before ?? null,
      after: row.after ?? null,
      created_at: sqlDate(row.created_at).toISOString(),
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
    const em = this.em();
    const organization = await this.organization(caller.organizationId);
    const now = this.now();
    const created: CreatedMemberView[] = [];
    const { firsts, repeats } = firstOfEachEmail(input.members);
    const skipped: { email: string; reason: string }[] = repeats.map((repeat) => ({ email: repeat.email, reason: 'duplicate' }));
    const mail: MailMessage[] = [];

    await em.transactional(async (tx) => {
      const emails = firsts.map((member) => member.email.toLowerCase());
      const existing = new Map<string, Member>();
      for (const member of await tx.find(Member, { organization: organization.id, [raw((alias) => `lower(${alias}.email)`)]: { $in: emails } })) {
        existing.set(member.email.toLowerCase(), member);
      }
      const fresh: { row: Record<string, unknown>; link: NewLink | null; inviteMethod: InviteMethod }[] = [];
      for (const wanted of firsts) {
        const current = existing.get(wanted.email.toLowerCase());
        if (current?.status === 'deactivated') {
          // Lock and re-read: of two concurrent re-adds only the first finds it still deactivated.
          const locked = await tx.refresh(current, { lockMode: LockMode.PESSIMISTIC_WRITE });
          const reactivated = locked !== null && (await this.reactivateLocked(tx, current, caller.clientId));
          if (reactivated) created.push({ ...memberView(current), activation_link: null, invite_method: 'none', reactivated: true });
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
          row: {
            member_id: newId('mem'),
            organization_id: organization.id,
            email: wanted.email,
            first_name: wanted.first_name ?? '',
            last_name: wanted.last_name ?? '',
            role: wanted.role,
            status,
            svc_id: null,
            activation_digest: link?.digest ?? null,
            activation_expires_at: link?.expiresAt ?? null,
            created_at: now,
          },
        });
      }
      if (!fresh.length) return;
      const inserted = (await tx
        .getKnex()
        .table('member')
        .insert(fresh.map((entry) => entry.row))
        .onConflict()
        .ignore()
        .returning(['id', 'member_id'])
        .transacting(tx.getTransactionContext()!)) as { id: number; member_id: string }[];
      const ids = new Map(inserted.map((row) => [row.member_id, row.id]));
      const audits: Record<string, unknown>[] = [];
      for (const entry of fresh) {
        const id = ids.get(entry.row.member_id as string);
        const row = entry.row;
        if (id === undefined) {
          skipped.push({ email: row.email as string, reason: 'duplicate' });
          continue;
        }
        const view = memberView({
          id,
          memberId: row.member_id as string,
          firstName: row.first_name as string,
          lastName: row.last_name as string,
          email: row.email as string,
          role: row.role as Member['role'],
          status: row.status as MemberStatus,
          svcId: null,
          createdAt: now,
        });
        created.push({ ...view, activation_link: entry.link && !input.notify ? this.activationUrl(entry.link.token) : null, invite_method: entry.inviteMethod });
        if (entry.link && input.notify) mail.push(this.invitationMail({ email: view.email, firstName: view.first_name }, organization.name, entry.link));
        audits.push({ organization_id: organization.id, member_id: view.member_id, actor: caller.clientId, action: 'add', before: null, after: JSON.stringify(view), created_at: now });
      }
      if (audits.length) await tx.getKnex().table('roster_audit').insert(audits).transacting(tx.getTransactionContext()!);
    });
    const { failed } = mail.length ? await this.deps.mail.send(mail) : { failed: 0 };
    return { created, skipped, notified: notifiedEveryone(input.notify, mail.length, failed) };
  }

  // ---- state changes on one member ----

  /** Runs `work` on one member under a row lock; 404 `not_found` when it is not on this roster. */
  private async withMember<T>(organizationId: number, ref: string, work: (tx: EntityManager, member: Member) => Promise<T>): Promise<T> {
    const where = memberWhere(organizationId, ref);
    if (!where) throw new DomainError('not_found', 'no such member in this organization');
    return this.em().transactional(async (tx) => {
      const member = await tx.findOne(Member, where, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!member) throw new DomainError('not_found', 'no such member in this organization');
      return work(tx, member);
    });
  }

  /** Applies `change` to a locked member and records it in the audit trail (when something changed). */
  private async record(tx: EntityManager, member: Member, actor: Actor, action: string, change: () => Promise<boolean> | boolean): Promise<boolean> {
    const before = memberView(member);
    if (!(await change())) return false;
    this.audit(tx, { organizationId: member.organization.id, memberId: member.memberId, actor, action, before, after: memberView(member) });
    await tx.flush();
    return true;
  }

  private async deactivateLocked(tx: EntityManager, member: Member, actor: Actor) {
    await this.record(tx, member, actor, 'deactivate', async () => {
      if (member.status === 'deactivated') return false;
      if (member.status === 'active') await this.closeSeat(tx, member);
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
    let member: Member;
    try {
      member = await this.withMember(caller.organizationId, ref, async (tx, member) => {
        if (!permanent) {
          await this.deactivateLocked(tx, member, caller.clientId);
          return member;
        }
        const before = memberView(member);
        if (member.status === 'active') await this.closeSeat(tx, member);
        tx.remove(member);
        this.audit(tx, { organizationId: caller.organizationId, memberId: member.memberId, actor: caller.clientId, action: 'remove', before, after: null });
        await tx.flush();
        return member;
      });
    } catch (error) {
      if (error instanceof DomainError && error.code === 'not_found' && (await this.wasRemoved(caller.organizationId, ref))) return { member: null, already_removed: true };
      throw error;
    }
    if (member.svcId) await this.deps.revokeLogins(member.svcId, caller.organizationId);
    return permanent ? { member: null, removed: true } : { member: memberView(member) };
  }

  /** True when this organization permanently removed a member known by `ref` (the audit trail is the tombstone). */
  private async wasRemoved(organizationId: number, ref: string): Promise<boolean> {
    const rows = await preparedQuery(
      this.deps.orm,
      'roster_was_removed',
      `select 1 from roster_audit where organization_id = $1 and action = 'remove'
         and (member_id = $2 or lower(before->>'email') = lower($2) or before->>'svc_id' = $2) limit 1`,
      [organizationId, ref.trim()],
    );
    return rows.length > 0;
  }

  /**
   * A deactivated member back on the roster: active when their account still exists, else
   * invited (they activate by face again). Returns false when the member was not deactivated.
   */
  private async reactivateLocked(tx: EntityManager, member: Member, actor: Actor): Promise<boolean> {
    return this.record(tx, member, actor, 'reactivate', async () => {
      if (member.status !== 'deactivated') return false;
      const accountExists = member.svcId ? (await this.deps.accounts.emailOf(member.svcId, tx)) !== null : false;
      member.status = accountExists ? 'active' : 'invited';
      if (!accountExists) member.svcId = null;
      if (accountExists) this.openSeat(tx, member);
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
    // This minute's count, and the member's earlier minutes dropped, in one statement.
    const [row] = await preparedQuery<{ count: number }>(
      this.deps.orm,
      'roster_count_invite',
      `with earlier as (delete from roster_invite_window where member_pk = $1 and window_start < $2)
       insert into roster_invite_window (member_pk, window_start, count) values ($1, $2, 1)
       on conflict (member_pk, window_start) do update set count = roster_invite_window.count + 1 returning count`,
      [memberPk, windowStart],
    );
    if (Number(row!.count) > INVITES_PER_MINUTE) {
      const retryAfterSeconds = Math.max(1, Math.ceil((windowStart.getTime() + 60_000 - now.getTime()) / 1000));
      throw new DomainError('rate_limited', `at most ${INVITES_PER_MINUTE} invitations per minute for one member; retry in ${retryAfterSeconds} s`, { retryAfterSeconds });
    }
  }

  /** POST /members/{member_id}/invite: a new face link (the old one stops working), emailed and returned. */
  async invite(caller: RosterCaller, ref: string): Promise<z.output<typeof invitedMemberWire>> {
    const where = memberWhere(caller.organizationId, ref);
    const target = where ? await this.em().findOne(Member, where, { fields: ['id'] }) : null;
    if (!target) throw new DomainError('not_found', 'no such member in this organization');
    await this.countInvite(target.id);
    const link = this.newLink();
    const { member, organizationName } = await this.withMember(caller.organizationId, ref, async (tx, member) => {
      if (member.status === 'active') throw new DomainError('already_active', 'the member is already active');
      if (member.status === 'deactivated') throw new DomainError('deactivated', 'the member is deactivated: reactivate them first');
      await this.record(tx, member, caller.clientId, 'invite', () => {
        member.status = 'link_sent';
        member.activationDigest = link.digest;
        member.activationExpiresAt = link.expiresAt;
        return true;
      });
      return { member, organizationName: (await this.organization(caller.organizationId)).name };
    });
    await this.deps.mail.send([this.invitationMail(member, organizationName, link)]);
    return { member: memberView(member), activation_link: this.activationUrl(link.token) };
  }

  // ---- activation by face ----

  /** The member an activation link is for: 404 `invalid_activation` (unknown, used, superseded), 410 `code_expired`. */
  async activationTarget(token: string) {
    const [member] =
      token && token.length <= 100
        ? await preparedQuery<{ member_id: string; email: string; first_name: string; status: MemberStatus; activation_expires_at: Date | string | null; organization_name: string }>(
            this.deps.orm,
            'member_by_activation_digest',
            `select m.member_id, m.email, m.first_name, m.status, m.activation_expires_at, o.name as organization_name
               from member m join organization o on o.id = m.organization_id where m.activation_digest = $1`,
            [digestSecret(token)],
          )
        : [];
    if (!member || !['invited', 'link_sent'].includes(member.status)) throw new DomainError('invalid_activation');
    if (!member.activation_expires_at || sqlDate(member.activation_expires_at) <= this.now()) throw new DomainError('code_expired', 'this activation link expired: ask your organization for a new one');
    return { memberId: member.member_id, email: member.email, firstName: member.first_name, organizationName: member.organization_name };
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
    const digest = digestSecret(token);
    try {
      return await this.em().transactional(async (tx) => {
        const member = await tx.findOne(Member, { activationDigest: digest }, { lockMode: LockMode.PESSIMISTIC_WRITE });
        // Used or superseded while the face was being checked.
        if (!member || !['invited', 'link_sent'].includes(member.status)) throw new DomainError('invalid_activation');
        if (!member.activationExpiresAt || member.activationExpiresAt <= this.now()) throw new DomainError('code_expired');
        await this.record(tx, member, 'activation', 'activate', () => {
          member.status = 'active';
          member.svcId = svcId;
          member.activationDigest = null;
          member.activationExpiresAt = null;
          this.openSeat(tx, member);
          return true;
        });
        return { member: memberView(member) };
      });
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) throw new DomainError('already_active', "this account is already on the organization's roster");
      throw error;
    }
  }

  // ---- billing ----

  billing(organizationId: number) {
    return billingView(this.em(), organizationId, this.now());
  }

  /** Sets an organization's plan (operators: CLI, GraphQL, tRPC). A trial counts from the first plan. */
  async setPlan(body: unknown, actor: Actor = 'operator') {
    const input = parseInput(setPlanInput, body);
    const em = this.em();
    await this.organization(input.organizationId);
    const now = this.now();
    const existing = await em.findOne(RosterPlan, { organizationId: input.organizationId });
    const before = existing ? { plan: existing.plan, price_per_seat: existing.pricePerSeatMinor / 100, currency: existing.currency, trial_ends_at: existing.trialEndsAt?.toISOString() ?? null } : null;
    const plan = existing ?? em.create(RosterPlan, { organizationId: input.organizationId, plan: input.plan, pricePerSeatMinor: 0, currency: input.currency, startedAt: now, updatedAt: now });
    plan.plan = input.plan;
    plan.pricePerSeatMinor = Math.round(input.pricePerSeat * 100);
    plan.currency = input.currency;
    plan.trialEndsAt = trialEnd(plan.startedAt, input.trialDays);
    plan.updatedAt = now;
    const after = { plan: plan.plan, price_per_seat: plan.pricePerSeatMinor / 100, currency: plan.currency, trial_ends_at: plan.trialEndsAt?.toISOString() ?? null };
    this.audit(em, { organizationId: input.organizationId, memberId: null, actor, action: 'plan_set', before, after });
    await em.flush();
    return { organizationId: input.organizationId, plan: plan.plan, pricePerSeat: after.price_per_seat, currency: plan.currency, trialEndsAt: after.trial_ends_at, startedAt: plan.startedAt.toISOString() };
  }

  /** Closes every finished monthly period once (idempotent; safe to run concurrently). Scheduled monthly. */
  async closeBillingPeriods(now: Date = this.now()) {
    return { closed: await closeFinishedPeriods(this.em(), now) };
  }
}

/** A member page cursor: the last member's row id, opaque to callers. */
function cursorOfMemberId(id: number): string {
  return Buffer.from(`m${id}`).toString('base64url');
}

function memberIdOfCursor(cursor: string): number {
  const match = /^m(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  if (!match) throw new DomainError('invalid_request', 'cursor is not one this API gave out', { data: { errors: { cursor: 'invalid cursor' } } });
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
