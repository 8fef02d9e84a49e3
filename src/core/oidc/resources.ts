import { Account, AccountLicense } from '../accounts/entities.js';
import { DomainError } from '../errors.js';
import { forkEm, type OidcDeps } from './context.js';
import type { AccessGrant } from './tokens.js';
import type { LicensesWire, UserinfoWire, VerificationsWire } from './views.js';

/**
 * The `type` key `/licenses` answers (the spec's examples: `nurse_licenses`, `cpr_certification`)
 * for a badge stored under its board's credential name: every nursing licence is
 * `nurse_licenses`, a CPR card `cpr_certification`, anything else its name in snake_case
 * (`Physician and Surgeon` -> `physician_and_surgeon`).
 */
export function licenseTypeKey(credentialName: string): string {
  if (/nurs(e|ing)/i.test(credentialName)) return 'nurse_licenses';
  if (/\bcpr\b|cardiopulmonary/i.test(credentialName)) return 'cpr_certification';
  return (
    credentialName
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '') || 'license'
  );
}

/** Who a resource call is for, as the bearer-token check found it. */
export type ResourceGrant = Pick<AccessGrant, 'svcId' | 'scopes'>;

/** Account reads with an access token (no check runs here; no date of birth, document number or address). */
export class AccountResources {
  constructor(private readonly deps: Pick<OidcDeps, 'orm' | 'clock' | 'accounts'>) {}

  private requireScope(grant: ResourceGrant, scope: string | null): void {
    if (!grant.scopes.includes('openid')) throw new DomainError('insufficient_scope', 'the token lacks the openid scope', { data: { scope: 'openid' } });
    if (scope && !grant.scopes.includes(scope)) throw new DomainError('insufficient_scope', `the token lacks the ${scope} scope`, { data: { scope } });
  }

  async userinfo(grant: ResourceGrant): Promise<UserinfoWire> {
    this.requireScope(grant, 'profile');
    const account = await forkEm(this.deps).findOneOrFail(Account, { id: grant.svcId });
    const identity = await this.deps.accounts.verifiedIdentity(account.id);
    return {
      sub: account.id,
      svc_id: account.id,
      preferred_username: account.email,
      email: account.email,
      email_verified: account.emailVerifiedAt != null,
      name: identity?.fullName ?? account.displayName ?? account.email,
      id_verified: account.idVerified,
    };
  }

  private async currentLicenses(svcId: string): Promise<AccountLicense[]> {
    const now = this.deps.clock.now();
    const rows = await forkEm(this.deps).find(AccountLicense, { accountId: svcId }, { orderBy: { createdAt: 'asc' } });
    // A stored licence is never served past its expire_at.
    return rows.filter((row) => !row.expireAt || row.expireAt > now);
  }

  async licenses(grant: ResourceGrant): Promise<LicensesWire> {
    this.requireScope(grant, null);
    const rows = await this.currentLicenses(grant.svcId);
    return { licenses: rows.map((row) => ({ type: licenseTypeKey(row.type), number: row.number, status: row.status, expires_on: row.expiresOn ?? null, issuer: row.issuer })) };
  }

  async verifications(grant: ResourceGrant): Promise<VerificationsWire> {
    this.requireScope(grant, 'verifications');
    const account = await forkEm(this.deps).findOneOrFail(Account, { id: grant.svcId });
    const rows = await this.currentLicenses(grant.svcId);
    return {
      verifications: {
        human_verified: account.humanVerified ?? account.idVerified,
        id_verified: account.idVerified,
        licenses: rows.map((row) => ({ license_type: row.type, verified: row.verifiedFrom != null, verified_from: row.verifiedFrom ?? null, expire_at: row.expireAt?.toISOString() ?? null })),
      },
    };
  }
}
