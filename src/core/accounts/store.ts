import type { EntityManager } from '@mikro-orm/core';
import type { AccountLinkPurpose } from './entities.js';
import type { Orm } from '../db/orm.js';
import { failedWith, preparedQuery, preparedQueryWith, SQLSTATE, sqlDate, sqlDateOrNull } from '../db/prepared.js';

/** An account as it is stored: identity and face reference sealed, the password hashed. */
export interface AccountRecord {
  id: string;
  email: string;
  passwordHash: string;
  emailVerifiedAt: Date | null;
  displayName: string | null;
  identitySealed: string | null;
  idVerified: boolean;
  humanVerified: boolean | null;
  identityVerifiedAt: Date | null;
  faceDescriptorSealed: string | null;
  faceDescriptorKind: string | null;
  createdAt: Date;
}

/** What `AccountStore.add` takes: the account's own fields, before any verification. */
export type NewAccount = Pick<AccountRecord, 'id' | 'email' | 'passwordHash' | 'displayName' | 'createdAt'>;

/** A new account as the store holds it once added: address unconfirmed, no identity, no face, not verified. */
export function newAccountRecord(account: NewAccount): AccountRecord {
  return {
    ...account,
    emailVerifiedAt: null,
    identitySealed: null,
    idVerified: false,
    humanVerified: null,
    identityVerifiedAt: null,
    faceDescriptorSealed: null,
    faceDescriptorKind: null,
  };
}

/** A licence badge as it is stored on an account. */
export interface LicenseBadgeRecord {
  type: string;
  number: string;
  status: string;
  issuer: string;
  expiresOn: string | null;
  verifiedFrom: string | null;
  expireAt: Date | null;
  /** The state whose board verified it (US postal code), as badged. */
  stateCode: string | null;
}

/** A single-use emailed link (verify an address, reset a password) as it is stored: its secret's digest only. */
export interface AccountLinkRecord {
  digest: string;
  purpose: AccountLinkPurpose;
  accountId: string;
  /** The address it was sent to: it proves only that one. */
  email: string;
  expiresAt: Date;
  usedAt: Date | null;
}

/**
 * People's accounts (`account`), their licence badges (`account_license`) and emailed links
 * (`account_link`): the only code that touches those tables. Writes that belong to a caller's transaction (an approved
 * session's
 * identity) take its unit of work, and run as a statement in it.
 */
export interface AccountStore {
  /**
   * A new account; false when its email is taken (the unique index decides, so two sign-ups of one address leave one).
   */
  add(account: NewAccount): Promise<boolean>;
  byId(id: string): Promise<AccountRecord | null>;
  /** By email, already lower-cased. */
  byEmail(email: string): Promise<AccountRecord | null>;
  emailOf(id: string, tx?: EntityManager): Promise<string | null>;
  /** Stores a verified identity (sealed); the account afterwards, or null when there is none. */
  setIdentity(
    id: string,
    identity: { sealed: string; humanVerified: boolean | undefined; at: Date },
    tx?: EntityManager,
  ): Promise<AccountRecord | null>;
  /** Stores the face reference (sealed) with the descriptor model that made it; false when there is no such account. */
  setFaceReference(id: string, sealed: string, kind: string): Promise<boolean>;
  /**
   * Replaces the password hash if it is still `was` (an upgrade of an older hash), or whatever it is when `was` is
   * null.
   */
  setPasswordHash(id: string, hash: string, was: string | null): Promise<void>;
  /** Marks the email verified if the account still has this address; whether it has it (verified now or before). */
  verifyEmail(id: string, email: string, at: Date): Promise<boolean>;
  /**
   * Adds a licence badge, or brings the account's badge of the same type and number up to date;
   * whether an existing badge's status, state or expiry changed.
   */
  badgeLicense(id: string, badge: LicenseBadgeRecord & { badgeId: string; createdAt: Date }): Promise<boolean>;
  /** Removes the verified identity (sealed data and flags); false when there is no such account. */
  clearIdentity(id: string): Promise<boolean>;
  /** The account's badges still served at `now`, oldest first. */
  licenseBadges(id: string, now: Date): Promise<LicenseBadgeRecord[]>;
  /**
   * The badges still served at `now` as a decision's reusable profile: the state that issued each (as badged), status
   * and expiry; no numbers.
   */
  licenseSummaries(
    id: string,
    now: Date,
  ): Promise<{ stateCode: string | null; status: string; expiresOn: string | null }[]>;
  addLink(link: Omit<AccountLinkRecord, 'usedAt'> & { createdAt: Date }): Promise<void>;
  /** The link with this digest and purpose, used or not, expired or not. */
  link(digest: string, purpose: AccountLinkPurpose): Promise<AccountLinkRecord | null>;
  /**
   * Uses a live link up, once (one winner when two arrive together): the link, or null when it is used, expired or
   * unknown.
   */
  useLink(digest: string, purpose: AccountLinkPurpose, now: Date): Promise<AccountLinkRecord | null>;
  /** Marks a link used unless it was already (following a verification link again changes nothing). */
  markLinkUsed(digest: string, now: Date): Promise<void>;
  /** How many links of this purpose the account was sent since `since`. */
  linksSentSince(accountId: string, purpose: AccountLinkPurpose, since: Date): Promise<number>;
  /** Uses up every unused link of this purpose of the account. */
  endLinks(accountId: string, purpose: AccountLinkPurpose, now: Date): Promise<void>;
}

const LINK_COLUMNS = 'digest, purpose, account_id, email, expires_at, used_at';

interface LinkRow {
  digest: string;
  purpose: AccountLinkPurpose;
  account_id: string;
  email: string;
  expires_at: Date | string;
  used_at: Date | string | null;
}

const linkOf = (row: LinkRow): AccountLinkRecord => ({
  digest: row.digest,
  purpose: row.purpose,
  accountId: row.account_id,
  email: row.email,
  expiresAt: sqlDate(row.expires_at),
  usedAt: row.used_at === null ? null : sqlDate(row.used_at),
});

const ACCOUNT_COLUMNS =
  'id, email, password_hash, email_verified_at, display_name, identity_sealed, id_verified, human_verified, identity_verified_at, face_descriptor_sealed, face_descriptor_kind, created_at';

interface AccountRow {
  id: string;
  email: string;
  password_hash: string;
  email_verified_at: Date | string | null;
  display_name: string | null;
  identity_sealed: string | null;
  id_verified: boolean;
  human_verified: boolean | null;
  identity_verified_at: Date | string | null;
  face_descriptor_sealed: string | null;
  face_descriptor_kind: string | null;
  created_at: Date | string;
}

const recordOf = (row: AccountRow): AccountRecord => ({
  id: row.id,
  email: row.email,
  passwordHash: row.password_hash,
  emailVerifiedAt: sqlDateOrNull(row.email_verified_at),
  displayName: row.display_name,
  identitySealed: row.identity_sealed,
  idVerified: row.id_verified,
  humanVerified: row.human_verified,
  identityVerifiedAt: sqlDateOrNull(row.identity_verified_at),
  faceDescriptorSealed: row.face_descriptor_sealed,
  faceDescriptorKind: row.face_descriptor_kind,
  createdAt: sqlDate(row.created_at),
});

export class PgAccountStore implements AccountStore {
  constructor(private readonly orm: Orm) {}

  async add(account: NewAccount): Promise<boolean> {
    try {
      await preparedQuery(
        this.orm,
        'account_add',
        'insert into account (id, email, password_hash, display_name, id_verified, created_at) values ($1, $2, $3, $4, false, $5)',
        [account.id, account.email, account.passwordHash, account.displayName, account.createdAt],
      );
      return true;
    } catch (error) {
      if (failedWith(error, SQLSTATE.uniqueViolation)) return false; // the email is taken
      throw error;
    }
  }

  async byId(id: string): Promise<AccountRecord | null> {
    const [row] = await preparedQuery<AccountRow>(
      this.orm,
      'account_by_id',
      `select ${ACCOUNT_COLUMNS} from account where id = $1`,
      [id],
    );
    return row ? recordOf(row) : null;
  }

  async byEmail(email: string): Promise<AccountRecord | null> {
    const [row] = await preparedQuery<AccountRow>(
      this.orm,
      'account_by_email',
      `select ${ACCOUNT_COLUMNS} from account where email = $1`,
      [email],
    );
    return row ? recordOf(row) : null;
  }

  async emailOf(id: string, tx?: EntityManager): Promise<string | null> {
    const [row] = await preparedQueryWith<{ email: string }>(
      this.orm,
      tx,
      'account_email_of',
      'select email from account where id = $1',
      [id],
    );
    return row?.email ?? null;
  }

  async setIdentity(
    id: string,
    identity: { sealed: string; humanVerified: boolean | undefined; at: Date },
    tx?: EntityManager,
  ): Promise<AccountRecord | null> {
    const [row] = await preparedQueryWith<AccountRow>(
      this.orm,
      tx,
      'account_set_identity',
      `update account set identity_sealed = $2, id_verified = true, human_verified = coalesce($3, human_verified), identity_verified_at = $4
       where id = $1 returning ${ACCOUNT_COLUMNS}`,
      [id, identity.sealed, identity.humanVerified ?? null, identity.at],
    );
    return row ? recordOf(row) : null;
  }

  async setFaceReference(id: string, sealed: string, kind: string): Promise<boolean> {
    const rows = await preparedQuery(
      this.orm,
      'account_set_face_reference',
      'update account set face_descriptor_sealed = $2, face_descriptor_kind = $3 where id = $1 returning id',
      [id, sealed, kind],
    );
    return rows.length > 0;
  }

  async setPasswordHash(id: string, hash: string, was: string | null): Promise<void> {
    await preparedQuery(
      this.orm,
      'account_set_password_hash',
      'update account set password_hash = $2 where id = $1 and ($3::text is null or password_hash = $3)',
      [id, hash, was],
    );
  }

  async verifyEmail(id: string, email: string, at: Date): Promise<boolean> {
    const rows = await preparedQuery(
      this.orm,
      'account_verify_email',
      `with verified as (update account set email_verified_at = $3 where id = $1 and email = $2 and email_verified_at is null returning id)
       select id from verified union all select id from account where id = $1 and email = $2`,
      [id, email, at],
    );
    return rows.length > 0;
  }

  async badgeLicense(id: string, badge: LicenseBadgeRecord & { badgeId: string; createdAt: Date }): Promise<boolean> {
    const [row] = await preparedQuery<{ changed: boolean }>(
      this.orm,
      'account_license_badge_changed',
      `with previous as (
         select id, status, expires_on, expire_at, state_code from account_license
         where account_id = $2 and type = $3 and number = $9 for update
       ), updated as (
         update account_license set status = $4, issuer = $5, expires_on = $6, verified_from = $7, expire_at = $8, state_code = $11
         where id in (select id from previous) returning id
       ), inserted as (
         insert into account_license (id, account_id, type, number, status, issuer, expires_on, verified_from, expire_at, created_at, state_code)
         select $1, $2, $3, $9, $4, $5, $6, $7, $8, $10, $11 where not exists (select 1 from updated) returning id
       )
       select exists (
         select 1 from previous p where p.status is distinct from $4 or p.expires_on is distinct from $6
           or p.expire_at is distinct from $8::timestamptz or p.state_code is distinct from $11
       ) as changed`,
      [
        badge.badgeId,
        id,
        badge.type,
        badge.status,
        badge.issuer,
        badge.expiresOn,
        badge.verifiedFrom,
        badge.expireAt,
        badge.number,
        badge.createdAt,
        badge.stateCode,
      ],
    );
    return row?.changed ?? false;
  }

  async clearIdentity(id: string): Promise<boolean> {
    const rows = await preparedQuery(
      this.orm,
      'account_clear_identity',
      'update account set identity_sealed = null, id_verified = false, identity_verified_at = null where id = $1 returning id',
      [id],
    );
    return rows.length > 0;
  }

  async licenseSummaries(
    id: string,
    now: Date,
  ): Promise<{ stateCode: string | null; status: string; expiresOn: string | null }[]> {
    const rows = await preparedQuery<{ state_code: string | null; status: string; expires_on: string | null }>(
      this.orm,
      'account_license_summaries_as_badged',
      'select state_code, status, expires_on from account_license where account_id = $1 and (expire_at is null or expire_at > $2) order by created_at',
      [id, now],
    );
    return rows.map((row) => ({ stateCode: row.state_code, status: row.status, expiresOn: row.expires_on }));
  }

  async licenseBadges(id: string, now: Date): Promise<LicenseBadgeRecord[]> {
    const rows = await preparedQuery<{
      type: string;
      number: string;
      status: string;
      issuer: string;
      expires_on: string | null;
      verified_from: string | null;
      expire_at: Date | string | null;
      state_code: string | null;
    }>(
      this.orm,
      'account_license_badges_with_state',
      'select type, number, status, issuer, expires_on, verified_from, expire_at, state_code from account_license where account_id = $1 and (expire_at is null or expire_at > $2) order by created_at',
      [id, now],
    );
    return rows.map((row) => ({
      type: row.type,
      number: row.number,
      status: row.status,
      issuer: row.issuer,
      expiresOn: row.expires_on,
      verifiedFrom: row.verified_from,
      expireAt: sqlDateOrNull(row.expire_at),
      stateCode: row.state_code,
    }));
  }

  async addLink(link: Omit<AccountLinkRecord, 'usedAt'> & { createdAt: Date }): Promise<void> {
    await preparedQuery(
      this.orm,
      'account_link_add',
      'insert into account_link (digest, purpose, account_id, email, created_at, expires_at) values ($1, $2, $3, $4, $5, $6)',
      [link.digest, link.purpose, link.accountId, link.email, link.createdAt, link.expiresAt],
    );
  }

  async link(digest: string, purpose: AccountLinkPurpose): Promise<AccountLinkRecord | null> {
    const [row] = await preparedQuery<LinkRow>(
      this.orm,
      'account_link_by_digest',
      `select ${LINK_COLUMNS} from account_link where digest = $1 and purpose = $2`,
      [digest, purpose],
    );
    return row ? linkOf(row) : null;
  }

  async useLink(digest: string, purpose: AccountLinkPurpose, now: Date): Promise<AccountLinkRecord | null> {
    const [row] = await preparedQuery<LinkRow>(
      this.orm,
      'account_link_use',
      `update account_link set used_at = $3 where digest = $1 and purpose = $2 and used_at is null and expires_at > $3 returning ${LINK_COLUMNS}`,
      [digest, purpose, now],
    );
    return row ? linkOf(row) : null;
  }

  async markLinkUsed(digest: string, now: Date): Promise<void> {
    await preparedQuery(
      this.orm,
      'account_link_mark_used',
      'update account_link set used_at = $2 where digest = $1 and used_at is null',
      [digest, now],
    );
  }

  async linksSentSince(accountId: string, purpose: AccountLinkPurpose, since: Date): Promise<number> {
    const [row] = await preparedQuery<{ sent: number }>(
      this.orm,
      'account_links_sent_since',
      'select count(*)::int as sent from account_link where account_id = $1 and purpose = $2 and created_at > $3',
      [accountId, purpose, since],
    );
    return row?.sent ?? 0;
  }

  async endLinks(accountId: string, purpose: AccountLinkPurpose, now: Date): Promise<void> {
    await preparedQuery(
      this.orm,
      'account_links_end',
      'update account_link set used_at = $3 where account_id = $1 and purpose = $2 and used_at is null',
      [accountId, purpose, now],
    );
  }
}
