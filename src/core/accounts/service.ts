import type { EntityManager } from '@mikro-orm/core';
import { z } from 'zod';
import type { TenancyService } from '../tenancy/service.js';
import type { Clock } from '../clock.js';
import { DomainError } from '../errors.js';
import { hashPassword, isCurrentHash, newId, verifyPassword, type Sealer } from '../secrets.js';
import { parseInput } from '../validation.js';
import { FACE_DESCRIPTOR_KIND } from '../../ml/faces/match.js';
import { newAccountRecord, type AccountRecord, type AccountStore, type LicenseBadgeRecord } from './store.js';
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
  .refine(
    (value) =>
      !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value),
    'not a calendar date',
  );

export const verifiedIdentityInput = z.object({
  svcId: z.string().min(1).max(40),
  fullName: z.string().trim().min(1).max(200),
  dateOfBirth: isoDate,
  documentNumber: z.string().trim().min(1).max(60).optional(),
  /** The verified document's expiry: past it, the identity can no longer be reused. */
  documentExpiry: isoDate.optional(),
  address: z.string().trim().min(1).max(500).optional(),
  /** The document's nationality (ISO 3166-1 alpha-3, as the MRZ writes it). */
  nationality: z
    .string()
    .regex(/^[A-Z]{3}$/, 'use the ISO 3166-1 alpha-3 code')
    .optional(),
  humanVerified: z.boolean().optional(),
});

/** Raw identity data: opened only inside core, never returned by account-mode answers. */
export interface VerifiedIdentity {
  fullName: string;
  dateOfBirth: string;
  documentNumber?: string;
  documentExpiry?: string;
  address?: string;
  nationality?: string;
}

export const accountView = (account: AccountRecord) => ({
  svcId: account.id,
  email: account.email,
  displayName: account.displayName,
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
export type LicenseBadge = LicenseBadgeRecord;

/** A verified identity an account-mode check may reuse, with when it was verified. */
export type ReusableIdentity = VerifiedIdentity & { verifiedAt: string | null };

/** A licence badge as a decision's reusable profile: state, status, expiry; no numbers. */
export interface LicenseSummary {
  license_state: string | null;
  status: string;
  expire_date: string | null;
}

/** A licence a board verified, to badge on an account. */
export interface VerifiedLicense {
  type: string;
  number: string;
  status: string;
  issuer: string;
  stateCode: string;
  expiresOn: string | null;
  verifiedFrom: string;
  expireAt: Date;
}

/**
 * What checks and sessions read and write of an account's stored state: its verified identity,
 * face reference and licence badges. A live caller gets the account itself; a test-mode caller
 * gets SANDBOX_ACCOUNT (see AccountService.stateFor).
 */
export interface AccountState {
  faceReference(svcId: string): Promise<Float32Array | null>;
  requireFaceReference(svcId: string): Promise<Float32Array>;
  verifiedIdentity(svcId: string): Promise<VerifiedIdentity | null>;
  reusableIdentity(svcId: string, today: Date): Promise<ReusableIdentity>;
  licenseSummaries(svcId: string): Promise<LicenseSummary[]>;
  recordVerifiedIdentity(input: unknown, em?: EntityManager): Promise<unknown>;
  badgeLicense(svcId: string, badge: VerifiedLicense, now: Date): Promise<void>;
}

/**
 * An account as test mode sees it: nothing on file, and nothing kept. What a test key proves is
 * no proof of the person (an outcome may be forced), and live data is not for test keys: so a
 * sandbox check or session reads no live identity, face reference or licence (it is answered as
 * an account that has none: `no_reusable_record`, `face_not_enrolled`, ...) and writes none (an
 * approved sandbox session leaves the account as it was).
 */
export const SANDBOX_ACCOUNT: AccountState = {
  faceReference: async () => null,
  requireFaceReference: async () => {
    throw new DomainError('face_not_enrolled', 'no face enrolled on account (test mode never reads the live account)');
  },
  verifiedIdentity: async () => null,
  reusableIdentity: async () => {
    throw new DomainError(
      'no_reusable_record',
      'no reusable verification on file (test mode never reads the live account)',
    );
  },
  licenseSummaries: async () => [],
  recordVerifiedIdentity: async () => undefined,
  badgeLicense: async () => undefined,
};

/** People's accounts: sign-up, password checks, verified identities, face references and licence badges. */
/**
 * What accounts ask of the login's access tokens (AccessTokenService answers it). Declared here,
 * by the side that asks, so accounts/ does not import oidc/, which imports accounts/.
 */
export interface AccountTokens {
  /** The live grant of an access token: whose, and to which client; null when unknown or expired. */
  verify(token: string): Promise<{ svcId: string; clientId: string } | null>;
  /** Whether a token was ever issued for the person to one of these clients. */
  issuedToAny(svcId: string, clientIds: string[]): Promise<boolean>;
}

/**
 * Why the person's credentials are revoked when their identity changes (the credential store's reasons include these).
 */
export type IdentityChange = 'identity_changed' | 'identity_withdrawn' | 'license_changed';

export class AccountService implements AccountState {
  constructor(
    private readonly deps: {
      store: AccountStore;
      clock: Clock;
      sealer: Sealer;
      accessTokens: AccountTokens;
      tenancy: TenancyService;
      /** Sets the status bit of the account's live verifiable credentials (their claims no longer hold); how many. */
      revokeCredentials?: (svcId: string, reason: IdentityChange, tx?: EntityManager) => Promise<number>;
    },
  ) {}

  /**
   * The account state a caller of this mode may read and write: the account's own for live keys, none for test keys.
   */
  stateFor(caller: { livemode: boolean }): AccountState {
    return caller.livemode ? this : SANDBOX_ACCOUNT;
  }

  async createAccount(input: unknown) {
    const { email, password, displayName } = parseInput(createAccountInput, input);
    const account = {
      id: newId('svc'),
      email,
      passwordHash: await hashPassword(password),
      displayName: displayName ?? null,
      createdAt: this.deps.clock.now(),
    };
    if (!(await this.deps.store.add(account))) throw new DomainError('account_exists');
    return accountView(newAccountRecord(account));
  }

  /** Stores a verified identity on an account (operators; approved sessions pass their transaction's `em`). */
  async recordVerifiedIdentity(input: unknown, em?: EntityManager) {
    const { svcId, humanVerified, ...identity } = parseInput(verifiedIdentityInput, input);
    const sealed = this.deps.sealer.seal(JSON.stringify(identity satisfies VerifiedIdentity));
    const account = await this.deps.store.setIdentity(svcId, { sealed, humanVerified, at: this.deps.clock.now() }, em);
    if (!account) throw new DomainError('account_not_found', 'no account with that svc_id');
    // Credentials issued from the identity it replaces may say something this one does not.
    await this.deps.revokeCredentials?.(svcId, 'identity_changed', em);
    return accountView(account);
  }

  /**
   * Withdraws an account's verified identity (an operator found it wrong, or the person asked):
   * it is no longer on file or reusable, and every credential issued from it is revoked.
   */
  async withdrawIdentity(svcId: string): Promise<{ svcId: string; revokedCredentials: number }> {
    if (!(await this.deps.store.clearIdentity(svcId)))
      throw new DomainError('account_not_found', 'no account with that svc_id');
    return { svcId, revokedCredentials: (await this.deps.revokeCredentials?.(svcId, 'identity_withdrawn')) ?? 0 };
  }

  /** The account's email, or null when there is no such account; read in the caller's transaction when given. */
  emailOf(svcId: string, em?: EntityManager): Promise<string | null> {
    return this.deps.store.emailOf(svcId, em);
  }

  async view(svcId: string) {
    const account = await this.deps.store.byId(svcId);
    if (!account) throw new DomainError('account_not_found');
    return { ...accountView(account), identityVerifiedAt: account.identityVerifiedAt?.toISOString() ?? null };
  }

  /** Stores the account's face reference: the descriptor only, sealed, with its kind; never an image. */
  async setFaceReference(svcId: string, descriptor: Float32Array): Promise<void> {
    const sealed = this.deps.sealer.seal(JSON.stringify(Array.from(descriptor)));
    if (!(await this.deps.store.setFaceReference(svcId, sealed, FACE_DESCRIPTOR_KIND)))
      throw new DomainError('account_not_found');
  }

  /**
   * The account's face reference; null when none is on file or it was made by another descriptor model (the person
   * enrols again).
   */
  async faceReference(svcId: string): Promise<Float32Array | null> {
    return this.referenceOf(await this.deps.store.byId(svcId));
  }

  /**
   * The account's face reference for an account-mode check; 409 face_not_enrolled when there is
   * none, saying so (data.reason 'reference_outdated') when the one on file was made by an earlier
   * descriptor model: it cannot be compared, and the person enrols again (roster activation).
   */
  async requireFaceReference(svcId: string): Promise<Float32Array> {
    const account = await this.deps.store.byId(svcId);
    const reference = this.referenceOf(account);
    if (reference) return reference;
    if (account?.faceDescriptorSealed)
      throw new DomainError(
        'face_not_enrolled',
        'the face on file was enrolled with an earlier face model and cannot be compared: the person enrols their face again',
        { data: { reason: 'reference_outdated' } },
      );
    throw new DomainError('face_not_enrolled');
  }

  /** The verified identity of an account, or null when none is on file. */
  async verifiedIdentity(svcId: string): Promise<VerifiedIdentity | null> {
    return this.identityOf(await this.deps.store.byId(svcId));
  }

  /** A reference of the current descriptor kind, opened; null for none or another kind. */
  private referenceOf(account: AccountRecord | null): Float32Array | null {
    if (!account?.faceDescriptorSealed || account.faceDescriptorKind !== FACE_DESCRIPTOR_KIND) return null;
    return Float32Array.from(JSON.parse(this.deps.sealer.open(account.faceDescriptorSealed)) as number[]);
  }

  private identityOf(account: AccountRecord | null): VerifiedIdentity | null {
    if (!account?.idVerified || !account.identitySealed) return null;
    return JSON.parse(this.deps.sealer.open(account.identitySealed)) as VerifiedIdentity;
  }

  /**
   * The identity an account-mode check may reuse: none on file is `no_reusable_record`; one whose
   * document has expired since is `reuse_not_available` (the person must verify fully again).
   */
  async reusableIdentity(svcId: string, today: Date): Promise<ReusableIdentity> {
    const account = await this.deps.store.byId(svcId);
    const identity = this.identityOf(account);
    if (!identity) throw new DomainError('no_reusable_record');
    if (identity.documentExpiry && identity.documentExpiry < today.toISOString().slice(0, 10)) {
      throw new DomainError(
        'reuse_not_available',
        `the document on file expired on ${identity.documentExpiry}: verify fully with a current document`,
      );
    }
    return { ...identity, verifiedAt: account?.identityVerifiedAt?.toISOString() ?? null };
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
      if ((await this.deps.tenancy.oidcClient(grant.clientId))?.projectId !== projectId)
        throw new DomainError('account_not_found');
      return grant.svcId;
    }
    const svcId = ref.svcId ?? '';
    const linked = await this.deps.accessTokens.issuedToAny(svcId, await this.deps.tenancy.oidcClientIdsOf(projectId));
    if (!linked)
      throw new DomainError('account_not_found', 'no account with that svc_id has signed in to this project');
    return svcId;
  }

  /**
   * A licence its board verified, badged on the account (served until `expireAt`): the account's
   * badge for the same type and number is brought up to date, else a new one is added.
   */
  async badgeLicense(svcId: string, badge: VerifiedLicense, now: Date): Promise<void> {
    const changed = await this.deps.store.badgeLicense(svcId, { ...badge, badgeId: newId('lic'), createdAt: now });
    // A licence whose status or expiry changed: credentials that disclose the old one say what no longer holds.
    if (changed) await this.deps.revokeCredentials?.(svcId, 'license_changed');
  }

  /**
   * What the account's resource endpoints answer (userinfo, verifications), by one statement; null when there is no
   * such account.
   */
  async profile(svcId: string): Promise<AccountProfile | null> {
    const account = await this.deps.store.byId(svcId);
    if (!account) return null;
    return {
      svcId,
      email: account.email,
      emailVerified: account.emailVerifiedAt !== null,
      displayName: account.displayName,
      idVerified: account.idVerified,
      humanVerified: account.humanVerified,
      verifiedName: this.identityOf(account)?.fullName ?? null,
    };
  }

  /** The account's licence badges still served at `now` (a badge is never served past its expire_at), oldest first. */
  licenseBadges(svcId: string, now: Date): Promise<LicenseBadge[]> {
    return this.deps.store.licenseBadges(svcId, now);
  }

  /** The account's licence badges as a decision's reusable profile: state, status, expiry; no numbers. */
  async licenseSummaries(svcId: string): Promise<LicenseSummary[]> {
    const summaries = await this.deps.store.licenseSummaries(svcId, this.deps.clock.now());
    return summaries.map((summary) => ({
      license_state: summary.stateCode,
      status: summary.status,
      expire_date: summary.expiresOn,
    }));
  }

  /**
   * The account for an email and password, or null; wrong email and wrong password cost the same.
   * A password hashed at an older cost is hashed again at today's once it proved right.
   */
  async checkPassword(email: string, password: string) {
    const account = await this.deps.store.byEmail(email.trim().toLowerCase());
    const ok = await verifyPassword(password, account?.passwordHash ?? (await dummyHash()));
    if (!account || !ok) return null;
    if (!isCurrentHash(account.passwordHash))
      await this.deps.store.setPasswordHash(account.id, await hashPassword(password), account.passwordHash);
    return accountView(account);
  }
}

// A real scrypt hash at today's cost, so an unknown email takes as long as a known one.
let dummy: Promise<string> | undefined;
const dummyHash = () => (dummy ??= hashPassword(newId('dummy')));
