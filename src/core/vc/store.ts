import type { EntityManager } from '@mikro-orm/core';
import type { Orm } from '../db/orm.js';
import { failedWith, preparedQuery, preparedQueryWith, SQLSTATE, sqlDate } from '../db/prepared.js';

/** Why a credential's status bit was set (kept for operators; the list itself says only "invalid"). */
export type RevocationReason = 'holder_request' | 'identity_changed' | 'identity_withdrawn' | 'license_changed';

/** A credential as issued: its place in a status list and its life, never its claims. */
export interface IssuedCredentialRecord {
  id: string;
  accountId: string;
  clientId: string;
  holderJkt: string;
  listId: number;
  idx: number;
  issuedAt: Date;
  expiresAt: Date;
}

/**
 * Issued credentials (`issued_credential`), their status lists (`credential_status_list`) and
 * proof nonces (`credential_nonce`): the only code that touches those tables. Claims are never
 * stored: a credential is signed and handed to the wallet, and only its status entry stays here.
 */
export class PgCredentialStore {
  constructor(private readonly orm: Orm) {}

  /**
   * Records a nonce (its digest) as used, once: false when it was used before (one winner when two
   * proofs carry it). Kept until it expires, after which the nonce itself is refused.
   */
  async useNonce(digest: string, now: Date, expiresAt: Date): Promise<boolean> {
    const rows = await preparedQuery(
      this.orm,
      'credential_nonce_use',
      'insert into credential_nonce (digest, used_at, expires_at) values ($1, $2, $3) on conflict (digest) do nothing returning digest',
      [digest, now, expiresAt],
    );
    return rows.length > 0;
  }

  /** Forgets used nonces past their expiry; how many. */
  async purgeNonces(now: Date): Promise<number> {
    const rows = await preparedQuery(
      this.orm,
      'credential_nonce_purge',
      'delete from credential_nonce where expires_at <= $1 returning digest',
      [now],
    );
    return rows.length;
  }

  /**
   * The list new credentials go to: the newest one while fewer than `fill` of its `size` entries
   * are taken, else a new list. Kept below full so a random free index is found in a few tries.
   */
  async openList(size: number, fill: number, now: Date): Promise<number> {
    const [open] = await preparedQuery<{ id: number }>(
      this.orm,
      'credential_status_list_open',
      `select l.id from credential_status_list l
       where l.id = (select max(id) from credential_status_list)
         and (select count(*) from issued_credential c where c.list_id = l.id) < l.size * $1::float8`,
      [fill],
    );
    if (open) return open.id;
    const [created] = await preparedQuery<{ id: number }>(
      this.orm,
      'credential_status_list_add',
      'insert into credential_status_list (size, created_at) values ($1, $2) returning id',
      [size, now],
    );
    return created!.id;
  }

  /** Stores an issued credential at `idx` of its list; false when that index is taken (draw another). */
  async add(record: IssuedCredentialRecord): Promise<boolean> {
    try {
      await preparedQuery(
        this.orm,
        'issued_credential_add',
        `insert into issued_credential (id, account_id, client_id, holder_jkt, list_id, idx, issued_at, expires_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          record.id,
          record.accountId,
          record.clientId,
          record.holderJkt,
          record.listId,
          record.idx,
          record.issuedAt,
          record.expiresAt,
        ],
      );
      return true;
    } catch (error) {
      if (failedWith(error, SQLSTATE.uniqueViolation)) return false;
      throw error;
    }
  }

  /** A list's size, or null when there is no such list. */
  async listSize(listId: number): Promise<number | null> {
    const [row] = await preparedQuery<{ size: number }>(
      this.orm,
      'credential_status_list_size',
      'select size from credential_status_list where id = $1',
      [listId],
    );
    return row?.size ?? null;
  }

  /** The indexes of a list whose credentials are revoked. */
  async revokedIndexes(listId: number): Promise<number[]> {
    const rows = await preparedQuery<{ idx: number }>(
      this.orm,
      'issued_credential_revoked_in_list',
      'select idx from issued_credential where list_id = $1 and revoked_at is not null',
      [listId],
    );
    return rows.map((row) => row.idx);
  }

  /** Whether the credential at `idx` of a list is revoked; an index no credential holds is not. */
  async isRevoked(listId: number, idx: number): Promise<boolean> {
    const rows = await preparedQuery(
      this.orm,
      'issued_credential_is_revoked',
      'select 1 from issued_credential where list_id = $1 and idx = $2 and revoked_at is not null',
      [listId, idx],
    );
    return rows.length > 0;
  }

  /**
   * Revokes every live credential of an account (not yet revoked, not yet expired), in the
   * caller's transaction when given; how many.
   */
  async revokeForAccount(accountId: string, reason: RevocationReason, now: Date, tx?: EntityManager): Promise<number> {
    const rows = await preparedQueryWith(
      this.orm,
      tx,
      'issued_credential_revoke_for_account',
      `update issued_credential set revoked_at = $3, revoked_reason = $2
       where account_id = $1 and revoked_at is null and expires_at > $3 returning id`,
      [accountId, reason, now],
    );
    return rows.length;
  }

  /** The live credentials of an account: for the person's own view and for tests. */
  async liveFor(accountId: string, now: Date): Promise<IssuedCredentialRecord[]> {
    const rows = await preparedQuery<{
      id: string;
      account_id: string;
      client_id: string;
      holder_jkt: string;
      list_id: number;
      idx: number;
      issued_at: Date | string;
      expires_at: Date | string;
    }>(
      this.orm,
      'issued_credential_live_for',
      `select id, account_id, client_id, holder_jkt, list_id, idx, issued_at, expires_at from issued_credential
       where account_id = $1 and revoked_at is null and expires_at > $2 order by issued_at`,
      [accountId, now],
    );
    return rows.map((row) => ({
      id: row.id,
      accountId: row.account_id,
      clientId: row.client_id,
      holderJkt: row.holder_jkt,
      listId: row.list_id,
      idx: row.idx,
      issuedAt: sqlDate(row.issued_at),
      expiresAt: sqlDate(row.expires_at),
    }));
  }
}
