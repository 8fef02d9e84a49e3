import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import { z } from 'zod';
import type { AccessTokenService } from '../oidc/tokens.js';
import type { TenancyService } from '../tenancy/service.js';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { preparedQuery, sqlDate } from '../db/prepared.js';
import { DomainError } from '../errors.js';
import { hashPassword, isCurrentHash, newId, verifyPassword, type Sealer } from '../secrets.js';
import { parseInput } from '../validation.js';
import { FACE_DESCRIPTOR_KIND } from '../../ml/faces/match.js';
import { Account } from './entities.js';
import { passwordProblem } from './password-policy.js';

export const createAccountInput = z.object({
  email: z.string().trim().toLowerCase().pipe(z.email()),
  password: z
    .string()
    .max(200)
    .superRefine((password, ctx) => {
      const problem = passwordProblem(password);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  displayName: z.string().trim().min(1).max(200).optional(),
});

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'use YYYY-MM-DD')
  .refine((value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value), 'not a calendar date');

export const verifiedIdentityInput = z.object({
  svcId: z.string().min(1).max(40),
  fullName: z.string().trim().min(1).max(200),
  dateOfBirth: isoDate,
  documentNumber: z.string().trim().min(1).max(60).optional(),
  /** The verified document's expiry: past it, the identity can no longer be reused. */
  documentExpiry: isoDate.optional(),
  address: z.string().trim().min(1).max(500).optional(),
  humanVerified: z.boolean().optional(),
});

/** Raw identity data: opened only inside core, never returned by account-mode answers. */
export interface VerifiedIdentity {
  fullName: string;
  dateOfBirth: string;
  documentNumber?: string;
  documentExpiry?: string;
  address?: string;
}

export const accountView = (account: Account) => ({
  svcId: account.id,
  email: account.email,
  displayName: account.displayName ?? null,
  idVerified: account.idVerified,
  humanVerified: account.humanVerified ?? account.idVerified,
  createdAt: account.createdAt.toISOString(),
});
export type AccountView = ReturnType<typeof accountView>;

/** An account as its resource endpoints read it: never the date of birth, document number or address. */
export interface AccountProfile {
  svcId: string;
  email: string;
  emailVerified: boolean;
  displayName: string | null;
  idVerified: boolean;
  humanVerified: boolean | null;
  /** The verified identity's full name, when the account has one. */
  verifiedName: string | null;
}

/** A licence on an account, as its board verified it. */
export interface LicenseBadge {
  type: string;
  number: string;
  status: string;
  issuer: string;
  expiresOn: string | null;
  verifiedFrom: string | null;
  expireAt: Date | null;
}

/** People's accounts: sign-up and password checks. Identity data arrives with the login issue. */
export class AccountService {
  constructor(private readonly deps: { orm: Orm; clock: Clock; sealer: Sealer; accessTokens: AccessTokenService; tenancy: TenancyService }) {}

  async createAccount(input: unknown) {
    const { email, password, displayName } = parseInput(createAccountInput, input);
    const em = this.deps.orm.em.fork();
    const account = em.create(Account, {
      id: newId('svc'),
      email,
      passwordHash: await hashPassword(password),
      displayName: displayName ?? null,
      idVerified: false,
      createdAt: this.deps.clock.now(),
    });
    try {
      await em.flush();
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) throw new DomainError('account_exists');
      throw error;
    }
    return accountView(account);
  }

  /** Stores a verified identity on an account (operators; approved sessions pass their transaction's `em`). */
  async recordVerifiedIdentity(input: unknown, em: EntityManager = this.deps.orm.em.fork()) {
    const { svcId, humanVerified, ...identity } = parseInput(verifiedIdentityInput, input);
    const account = await em.findOne(Account, { id: svcId });
    if (!account) throw new DomainError('account_not_found', 'no account with that svc_id');
    account.identitySealed = this.deps.sealer.seal(JSON.stringify(identity satisfies VerifiedIdentity));
    account.idVerified = true;
    if (humanVerified !== undefined) account.humanVerified = humanVerified;
    account.identityVerifiedAt = this.deps.clock.now();
    await em.flush();
    return accountView(account);
  }

  /** The account's email, or null when there is no such account; read in the caller's transaction when given. */
  async emailOf(svcId: string, em: EntityManager = this.deps.orm.em.fork()): Promise<string | null> {
    return (await em.findOne(Account, { id: svcId }, { fields: ['email'] }))?.email ?? null;
  }

  async view(svcId: string) {
    const account = await this.deps.orm.em.fork().findOne(Account, { id: svcId });
    if (!account) throw new DomainError('account_not_found');
    return { ...accountView(account), identityVerifiedAt: account.identityVerifiedAt?.toISOString() ?? null };
  }

  /** Stores the account's face reference: the 128-d descriptor only, sealed; never an image. */
  async setFaceReference(svcId: string, descriptor: Float32Array): Promise<void> {
    const em = this.deps.orm.em.fork();
    const account = await em.findOne(Account, { id: svcId });
    if (!account) throw new DomainError('account_not_found');
    account.faceDescriptorSealed = this.deps.sealer.seal(JSON.stringify(Array.from(descriptor)));
    account.faceDescriptorKind = FACE_DESCRIPTOR_KIND;
    await em.flush();
  }

  /** The account's face reference; null when none is on file or it was made by another descriptor model (the person enrols again). */
  async faceReference(svcId: string): Promise<Float32Array | null> {
    const account = await this.deps.orm.em.fork().findOne(Account, { id: svcId });
    if (!account?.faceDescriptorSealed || account.faceDescriptorKind !== FACE_DESCRIPTOR_KIND) return null;
    return Float32Array.from(JSON.parse(this.deps.sealer.open(account.faceDescriptorSealed)) as number[]);
  }

  /** The verified identity of an account, or null when none is on file. */
  async verifiedIdentity(svcId: string): Promise<VerifiedIdentity | null> {
    const account = await this.deps.orm.em.fork().findOne(Account, { id: svcId });
    if (!account?.idVerified || !account.identitySealed) return null;
    return JSON.parse(this.deps.sealer.open(account.identitySealed)) as VerifiedIdentity;
  }

  /**
   * The identity an account-mode check may reuse: none on file is `no_reusable_record`; one whose
   * document has expired since is `reuse_not_available` (the person must verify fully again).
   */
  async reusableIdentity(svcId: string, today: Date): Promise<VerifiedIdentity> {
    const identity = await this.verifiedIdentity(svcId);
    if (!identity) throw new DomainError('no_reusable_record');
    if (identity.documentExpiry && identity.documentExpiry < today.toISOString().slice(0, 10)) {
      throw new DomainError('reuse_not_available', `the document on file expired on ${identity.documentExpiry}: verify fully with a current document`);
    }
    return identity;
  }

  /**
   * The account an account-mode check is about. A token must be live and issued to one of the
   * project's own clients; an `svc_id` must belong to someone who signed in to one of them.
   * Anything else is `account_not_found`: a project never learns about other projects' users.
   */
  async resolveForProject(projectId: string, ref: { svcAccessToken?: string; svcId?: string }): Promise<string> {
    if (ref.svcAccessToken !== undefined) {
      const grant = await this.deps.accessTokens.verify(ref.svcAccessToken);
      if (!grant) throw new DomainError('invalid_token', 'svc_access_token is invalid or expired');
      if ((await this.deps.tenancy.oidcClient(grant.clientId))?.projectId !== projectId) throw new DomainError('account_not_found');
      return grant.svcId;
    }
    const svcId = ref.svcId ?? '';
    const linked = await this.deps.accessTokens.issuedToAny(svcId, await this.deps.tenancy.oidcClientIdsOf(projectId));
    if (!linked) throw new DomainError('account_not_found', 'no account with that svc_id has signed in to this project');
    return svcId;
  }

  /**
   * A licence its board verified, badged on the account (served until `expireAt`): the account's
   * badge for the same type and number is brought up to date, else a new one is added.
   */
  async badgeLicense(svcId: string, badge: { type: string; number: string; status: string; issuer: string; expiresOn: string | null; verifiedFrom: string; expireAt: Date }, now: Date): Promise<void> {
    await preparedQuery(
      this.deps.orm,
      'account_license_badge',
      `with updated as (
         update account_license set status = $4, issuer = $5, expires_on = $6, verified_from = $7, expire_at = $8
         where account_id = $2 and type = $3 and number = $9 returning id
       )
       insert into account_license (id, account_id, type, number, status, issuer, expires_on, verified_from, expire_at, created_at)
       select $1, $2, $3, $9, $4, $5, $6, $7, $8, $10 where not exists (select 1 from updated)`,
      [newId('lic'), svcId, badge.type, badge.status, badge.issuer, badge.expiresOn, badge.verifiedFrom, badge.expireAt, badge.number, now],
    );
  }

  /** What the account's resource endpoints answer (userinfo, verifications), by one statement; null when there is no such account. */
  async profile(svcId: string): Promise<AccountProfile | null> {
    const [row] = await preparedQuery<{ email: string; email_verified_at: unknown; display_name: string | null; id_verified: boolean; human_verified: boolean | null; identity_sealed: string | null }>(
      this.deps.orm,
      'account_profile',
      'select email, email_verified_at, display_name, id_verified, human_verified, identity_sealed from account where id = $1',
      [svcId],
    );
    if (!row) return null;
    const identity = row.id_verified && row.identity_sealed ? (JSON.parse(this.deps.sealer.open(row.identity_sealed)) as VerifiedIdentity) : null;
    return {
      svcId,
      email: row.email,
      emailVerified: row.email_verified_at !== null,
      displayName: row.display_name,
      idVerified: row.id_verified,
      humanVerified: row.human_verified,
      verifiedName: identity?.fullName ?? null,
    };
  }

  /** The account's licence badges still served at `now` (a badge is never served past its expire_at), oldest first. */
  async licenseBadges(svcId: string, now: Date): Promise<LicenseBadge[]> {
    const rows = await preparedQuery<{ type: string; number: string; status: string; issuer: string; expires_on: string | null; verified_from: string | null; expire_at: Date | string | null }>(
      this.deps.orm,
      'account_license_badges',
      'select type, number, status, issuer, expires_on, verified_from, expire_at from account_license where account_id = $1 and (expire_at is null or expire_at > $2) order by created_at',
      [svcId, now],
    );
    return rows.map((row) => ({
      type: row.type,
      number: row.number,
      status: row.status,
      issuer: row.issuer,
      expiresOn: row.expires_on,
      verifiedFrom: row.verified_from,
      expireAt: row.expire_at === null ? null : sqlDate(row.expire_at),
    }));
  }

  /** The account's licence badges as a decision's reusable profile: state, status, expiry; no numbers. */
  async licenseSummaries(svcId: string): Promise<{ license_state: string | null; status: string; expire_date: string | null }[]> {
    const rows: { state_code: string | null; status: string; expires_on: string | null }[] = await this.deps.orm.em.getConnection().execute(
      `select p.state_code, l.status, l.expires_on from account_license l
         left join credential_provider p on p.credential_name = l.type and p.provider_display_name = l.issuer
        where l.account_id = ? and (l.expire_at is null or l.expire_at > ?) order by l.created_at`,
      [svcId, this.deps.clock.now()],
    );
    return rows.map((row) => ({ license_state: row.state_code, status: row.status, expire_date: row.expires_on }));
  }

  /**
   * The account for an email and password, or null; wrong email and wrong password cost the same.
   * A password hashed at an older cost is hashed again at today's once it proved right.
   */
  async checkPassword(email: string, password: string) {
    const em = this.deps.orm.em.fork();
    const account = await em.findOne(Account, { email: email.trim().toLowerCase() });
    const ok = await verifyPassword(password, account?.passwordHash ?? (await dummyHash()));
    if (!account || !ok) return null;
    if (!isCurrentHash(account.passwordHash)) {
      await em.nativeUpdate(Account, { id: account.id, passwordHash: account.passwordHash }, { passwordHash: await hashPassword(password) });
    }
    return accountView(account);
  }
}

// A real scrypt hash at today's cost, so an unknown email takes as long as a known one.
let dummy: Promise<string> | undefined;
const dummyHash = () => (dummy ??= hashPassword(newId('dummy')));
