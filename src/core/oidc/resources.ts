import type { AccountProfile, LicenseBadge } from '../accounts/service.js';
import { DomainError } from '../errors.js';
import type { OidcDeps } from './context.js';
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
  constructor(private readonly deps: Pick<OidcDeps, 'clock' | 'accounts'>) {}

  private requireScope(grant: ResourceGrant, scope: string | null): void {
    if (!grant.scopes.includes('openid'))
      throw new DomainError('insufficient_scope', 'the token lacks the openid scope', { data: { scope: 'openid' } });
    if (scope && !grant.scopes.includes(scope))
      throw new DomainError('insufficient_scope', `the token lacks the ${scope} scope`, { data: { scope } });
  }

  async userinfo(grant: ResourceGrant): Promise<UserinfoWire> {
    this.requireScope(grant, 'profile');
    const account = await this.profileOf(grant);
    return {
      sub: account.svcId,
      svc_id: account.svcId,
      preferred_username: account.email,
      email: account.email,
      email_verified: account.emailVerified,
      name: account.verifiedName ?? account.displayName ?? account.email,
      id_verified: account.idVerified,
    };
  }

  /** The token's account (tokens go with their account, so it exists while its tokens verify). */
  private async profileOf(grant: ResourceGrant): Promise<AccountProfile> {
    const account = await this.deps.accounts.profile(grant.svcId);
    if (!account) throw new DomainError('invalid_token', 'the account of this access token no longer exists');
    return account;
  }

  private currentLicenses(svcId: string): Promise<LicenseBadge[]> {
    return this.deps.accounts.licenseBadges(svcId, this.deps.clock.now());
  }

  async licenses(grant: ResourceGrant): Promise<LicensesWire> {
    this.requireScope(grant, null);
    const rows = await this.currentLicenses(grant.svcId);
    return {
      licenses: rows.map((row) => ({
        type: licenseTypeKey(row.type),
        number: row.number,
        status: row.status,
        expires_on: row.expiresOn ?? null,
        issuer: row.issuer,
      })),
    };
  }

  async verifications(grant: ResourceGrant): Promise<VerificationsWire> {
    this.requireScope(grant, 'verifications');
    const [account, rows] = await Promise.all([this.profileOf(grant), this.currentLicenses(grant.svcId)]);
    return {
      verifications: {
        human_verified: account.humanVerified ?? account.idVerified,
        id_verified: account.idVerified,
        licenses: rows.map((row) => ({
          license_type: row.type,
          verified: row.verifiedFrom != null,
          verified_from: row.verifiedFrom ?? null,
          expire_at: row.expireAt?.toISOString() ?? null,
        })),
      },
    };
  }
}
