import type { VerifiedIdentity } from '../accounts/service.js';
import type { LicenseBadgeRecord } from '../accounts/store.js';
import { ageOn, compareDates, parseCalendarDate, utcDate, type CalendarDate } from '../checks/dates.js';
import { licenseTypeKey } from '../oidc/resources.js';

// What a credential says about a person, as pure rules: which claims, from which stored facts,
// and until when every one of them holds. The date of birth itself is never a claim.

/** The age thresholds a credential answers, each as `age_over_<n>`. */
export const AGE_THRESHOLDS = [18, 21, 65] as const;

/** Longest life of a credential: a wallet asks for a new one (with a new proof of possession) after. */
export const CREDENTIAL_MAX_TTL_SECONDS = 30 * 24 * 3600;

/** A verified licence as a credential discloses it: no number, no name. */
export interface LicenseClaim {
  type: string;
  state: string | null;
  status: string;
  expire_at: string | null;
}

/** Every selectively disclosable claim of the identity credential. */
export interface IdentityClaims {
  age_over_18: boolean;
  age_over_21: boolean;
  age_over_65: boolean;
  given_name: string;
  family_name: string;
  nationality?: string;
  document_valid: boolean;
  licenses: LicenseClaim[];
}

/** The claim names a holder may disclose, in the order the type metadata lists them. */
export const DISCLOSABLE_CLAIMS = [
  'age_over_18',
  'age_over_21',
  'age_over_65',
  'given_name',
  'family_name',
  'nationality',
  'document_valid',
  'licenses',
] as const;
export type DisclosableClaim = (typeof DISCLOSABLE_CLAIMS)[number];

/**
 * Given and family name from the verified full name, which documents give as given names then
 * surname (MRZ and AAMVA readings both): the last word is the family name. A one-word name is
 * the family name with an empty given name.
 */
export function splitName(fullName: string): { given_name: string; family_name: string } {
  const words = fullName.trim().split(/\s+/).filter(Boolean);
  const family = words.pop() ?? '';
  return { given_name: words.join(' '), family_name: family };
}

/** The day a person born on `birth` turns `years` (29 February birthdays fall on 1 March in common years). */
export function birthdayAt(birth: CalendarDate, years: number): Date {
  const year = birth.year + years;
  const leapless = birth.month === 2 && birth.day === 29 && new Date(Date.UTC(year, 1, 29)).getUTCMonth() !== 1;
  return leapless ? new Date(Date.UTC(year, 2, 1)) : new Date(Date.UTC(year, birth.month - 1, birth.day));
}

/** The end of a calendar day (YYYY-MM-DD) in UTC: a document valid "until" that date is valid through it. */
function endOfDay(text: string): Date | null {
  const date = parseCalendarDate(text);
  return date ? new Date(Date.UTC(date.year, date.month - 1, date.day + 1)) : null;
}

/** Whether the verified document is still valid today: no expiry on file counts as valid (the session accepted it). */
export function documentValid(identity: Pick<VerifiedIdentity, 'documentExpiry'>, now: Date): boolean {
  const expiry = identity.documentExpiry ? parseCalendarDate(identity.documentExpiry) : null;
  return !expiry || compareDates(expiry, utcDate(now)) >= 0;
}

/** A licence badge as a claim: its type key (as /licenses answers it), state, status and expiry. */
export function licenseClaim(badge: LicenseBadgeRecord): LicenseClaim {
  return {
    type: licenseTypeKey(badge.type),
    state: badge.stateCode,
    status: badge.status,
    expire_at: badge.expireAt?.toISOString() ?? null,
  };
}

/** The nationality a document gave (ISO 3166-1 alpha-3, as the MRZ writes it), or none. */
function nationalityOf(identity: VerifiedIdentity): string | undefined {
  return identity.nationality && /^[A-Z]{3}$/.test(identity.nationality) ? identity.nationality : undefined;
}

/** The claims of a person's credential today, from their verified identity and verified licences. */
export function identityClaims(identity: VerifiedIdentity, badges: LicenseBadgeRecord[], now: Date): IdentityClaims {
  const birth = parseCalendarDate(identity.dateOfBirth);
  if (!birth) throw new Error('a verified identity always has a calendar date of birth');
  const age = ageOn(birth, utcDate(now));
  const nationality = nationalityOf(identity);
  return {
    age_over_18: age >= 18,
    age_over_21: age >= 21,
    age_over_65: age >= 65,
    ...splitName(identity.fullName),
    ...(nationality ? { nationality } : {}),
    document_valid: documentValid(identity, now),
    licenses: badges.filter((badge) => badge.verifiedFrom != null).map(licenseClaim),
  };
}

/**
 * When the credential expires: CREDENTIAL_MAX_TTL_SECONDS from now, or earlier when a claim
 * would stop holding: the document's expiry, a licence's, or the birthday that makes an
 * `age_over_<n>` that is false today true. So every claim it carries holds for its whole life.
 */
export function credentialExpiry(identity: VerifiedIdentity, badges: { expireAt: Date | null }[], now: Date): Date {
  const candidates: Date[] = [new Date(now.getTime() + CREDENTIAL_MAX_TTL_SECONDS * 1000)];
  const documentEnd = identity.documentExpiry ? endOfDay(identity.documentExpiry) : null;
  if (documentEnd) candidates.push(documentEnd);
  for (const badge of badges) if (badge.expireAt) candidates.push(badge.expireAt);
  const birth = parseCalendarDate(identity.dateOfBirth);
  if (birth)
    for (const years of AGE_THRESHOLDS) if (birthdayAt(birth, years) > now) candidates.push(birthdayAt(birth, years));
  return new Date(Math.min(...candidates.map((date) => date.getTime())));
}
