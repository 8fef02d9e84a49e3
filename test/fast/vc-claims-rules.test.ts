import { describe, expect, it } from 'vitest';
import {
  birthdayAt,
  CREDENTIAL_MAX_TTL_SECONDS,
  credentialExpiry,
  documentValid,
  identityClaims,
  splitName,
} from '../../src/core/vc/claims.js';

// The claim rules of a verifiable credential, without a database: what is claimed from the
// stored identity, and until when every claim holds.

const NOW = new Date('2026-12-02T10:00:00Z');
const identity = {
  fullName: 'Dana Marie Whitfield',
  dateOfBirth: '1990-04-12',
  documentExpiry: '2031-05-01',
  nationality: 'USA',
};
const badge = {
  type: 'Registered Nurse',
  number: 'RN-1',
  status: 'active',
  issuer: 'CA BRN',
  expiresOn: '2030-01-31',
  verifiedFrom: 'CA BRN',
  expireAt: new Date('2030-01-31T23:59:59Z'),
  stateCode: 'CA',
};

describe('credential claims', () => {
  it('answers thresholds, never the date of birth, and licences without their numbers', () => {
    const claims = identityClaims(identity, [badge, { ...badge, number: 'RN-2', verifiedFrom: null }], NOW);
    expect(claims).toEqual({
      age_over_18: true,
      age_over_21: true,
      age_over_65: false,
      given_name: 'Dana Marie',
      family_name: 'Whitfield',
      nationality: 'USA',
      document_valid: true,
      licenses: [{ type: 'nurse_licenses', state: 'CA', status: 'active', expire_at: '2030-01-31T23:59:59.000Z' }],
    });
    expect(JSON.stringify(claims)).not.toContain('1990');
  });

  it('counts a birthday on the day itself, and 29 February on 1 March in common years', () => {
    expect(identityClaims({ ...identity, dateOfBirth: '2008-12-02' }, [], NOW).age_over_18).toBe(true);
    expect(identityClaims({ ...identity, dateOfBirth: '2008-12-03' }, [], NOW).age_over_18).toBe(false);
    expect(birthdayAt({ year: 2004, month: 2, day: 29 }, 21)).toEqual(new Date('2025-03-01T00:00:00Z'));
    expect(birthdayAt({ year: 2004, month: 2, day: 29 }, 24)).toEqual(new Date('2028-02-29T00:00:00Z'));
  });

  it('splits the name at its last word, and leaves out a nationality that is not a code', () => {
    expect(splitName('  Cher ')).toEqual({ given_name: '', family_name: 'Cher' });
    expect(splitName('Ana Maria de Souza')).toEqual({ given_name: 'Ana Maria de', family_name: 'Souza' });
    expect(identityClaims({ ...identity, nationality: undefined }, [], NOW)).not.toHaveProperty('nationality');
  });

  it('says a document is valid through its expiry day, and with no expiry on file', () => {
    expect(documentValid({ documentExpiry: '2026-12-02' }, NOW)).toBe(true);
    expect(documentValid({ documentExpiry: '2026-12-01' }, NOW)).toBe(false);
    expect(documentValid({}, NOW)).toBe(true);
  });
});

describe('credential expiry: no claim outlives it', () => {
  it('is 30 days when nothing ends sooner', () => {
    expect(credentialExpiry(identity, [badge], NOW).getTime() - NOW.getTime()).toBe(CREDENTIAL_MAX_TTL_SECONDS * 1000);
  });

  it('is the end of the document expiry day, or a licence expiry, when sooner', () => {
    expect(credentialExpiry({ ...identity, documentExpiry: '2026-12-10' }, [], NOW)).toEqual(
      new Date('2026-12-11T00:00:00Z'),
    );
    expect(credentialExpiry(identity, [{ expireAt: new Date('2026-12-05T12:00:00Z') }], NOW)).toEqual(
      new Date('2026-12-05T12:00:00Z'),
    );
  });

  it('is the birthday that turns a false age claim true, when sooner', () => {
    expect(credentialExpiry({ ...identity, dateOfBirth: '2005-12-20' }, [], NOW)).toEqual(
      new Date('2026-12-20T00:00:00Z'),
    );
    expect(credentialExpiry({ ...identity, dateOfBirth: '1961-12-24' }, [], NOW)).toEqual(
      new Date('2026-12-24T00:00:00Z'),
    );
  });
});
