import type { AccountLinkPurpose } from '../../src/core/accounts/entities.js';
import {
  newAccountRecord,
  type AccountLinkRecord,
  type AccountRecord,
  type AccountStore,
  type LicenseBadgeRecord,
  type NewAccount,
} from '../../src/core/accounts/store.js';

/** A link as the store answers it: when it was sent is kept for counting, not read back. */
const linkRecord = ({ createdAt: _, ...link }: AccountLinkRecord & { createdAt: Date }): AccountLinkRecord => link;

/**
 * AccountStore in memory, with the unique index on email, held to the same contract as PgAccountStore
 * (test/contracts/account-store.ts). No rule test reaches the licence badges: those methods throw rather than
 * answer what the store would not.
 */
export class FakeAccountStore implements AccountStore {
  rows = new Map<string, AccountRecord>();
  async add(account: NewAccount) {
    if ([...this.rows.values()].some((row) => row.email === account.email)) return false;
    this.rows.set(account.id, newAccountRecord(account));
    return true;
  }
  async byId(id: string) {
    const row = this.rows.get(id);
    return row ? { ...row } : null;
  }
  async byEmail(email: string) {
    const row = [...this.rows.values()].find((candidate) => candidate.email === email);
    return row ? { ...row } : null;
  }
  async emailOf(id: string) {
    return this.rows.get(id)?.email ?? null;
  }
  async setIdentity(id: string, identity: { sealed: string; humanVerified: boolean | undefined; at: Date }) {
    const row = this.rows.get(id);
    if (!row) return null;
    Object.assign(row, {
      identitySealed: identity.sealed,
      idVerified: true,
      humanVerified: identity.humanVerified ?? row.humanVerified,
      identityVerifiedAt: identity.at,
    });
    return { ...row };
  }
  async setFaceReference(id: string, sealed: string, kind: string) {
    const row = this.rows.get(id);
    if (row) Object.assign(row, { faceDescriptorSealed: sealed, faceDescriptorKind: kind });
    return !!row;
  }
  async setPasswordHash(id: string, hash: string, was: string | null) {
    const row = this.rows.get(id);
    if (row && (was === null || row.passwordHash === was)) row.passwordHash = hash;
  }
  async verifyEmail(id: string, email: string, at: Date) {
    const row = this.rows.get(id);
    if (row?.email !== email) return false;
    row.emailVerifiedAt ??= at;
    return true;
  }
  async badgeLicense(): Promise<boolean> {
    throw new Error('badgeLicense is not in the fake');
  }
  async clearIdentity(id: string) {
    const row = this.rows.get(id);
    if (row) Object.assign(row, { identitySealed: null, idVerified: false, identityVerifiedAt: null });
    return !!row;
  }
  async licenseBadges(): Promise<LicenseBadgeRecord[]> {
    throw new Error('licenseBadges is not in the fake');
  }
  async licenseSummaries(): Promise<{ stateCode: string | null; status: string; expiresOn: string | null }[]> {
    throw new Error('licenseSummaries is not in the fake');
  }
  links = new Map<string, AccountLinkRecord & { createdAt: Date }>();
  async addLink(link: Omit<AccountLinkRecord, 'usedAt'> & { createdAt: Date }) {
    this.links.set(link.digest, { ...link, usedAt: null });
  }
  async link(digest: string, purpose: AccountLinkPurpose) {
    const link = this.links.get(digest);
    return link?.purpose === purpose ? linkRecord(link) : null;
  }
  async useLink(digest: string, purpose: AccountLinkPurpose, now: Date) {
    const link = this.links.get(digest);
    if (link?.purpose !== purpose || link.usedAt || link.expiresAt <= now) return null;
    link.usedAt = now;
    return linkRecord(link);
  }
  async markLinkUsed(digest: string, now: Date) {
    const link = this.links.get(digest);
    if (link && !link.usedAt) link.usedAt = now;
  }
  async linksSentSince(accountId: string, purpose: AccountLinkPurpose, since: Date) {
    return [...this.links.values()].filter(
      (link) => link.accountId === accountId && link.purpose === purpose && link.createdAt > since,
    ).length;
  }
  async endLinks(accountId: string, purpose: AccountLinkPurpose, now: Date) {
    for (const link of this.links.values())
      if (link.accountId === accountId && link.purpose === purpose && !link.usedAt) link.usedAt = now;
  }
}
