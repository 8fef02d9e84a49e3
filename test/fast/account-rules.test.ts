// The accounts' rules on a fake store: one account per address, sealed identities reused only
// while their document is current, face references only from today's descriptor model, an older
// password hash upgraded once it proved right, and no raw identity in a profile. The SQL behind
// the store runs through sign-up, login, sessions and account-mode checks in the HTTP tests.
import { randomBytes, scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AccountService } from '../../src/core/accounts/service.js';
import { AccountRecovery } from '../../src/core/accounts/recovery.js';
import { newAccountRecord } from '../../src/core/accounts/store.js';
import type { MailMessage, MailService } from '../../src/core/mail/index.js';
import { ManualClock } from '../../src/core/clock.js';
import type { AccessTokenService } from '../../src/core/oidc/tokens.js';
import { isCurrentHash, Sealer } from '../../src/core/secrets.js';
import type { TenancyService } from '../../src/core/tenancy/service.js';
import { DESCRIPTOR_DIMENSIONS, FACE_DESCRIPTOR_KIND } from '../../src/ml/faces/match.js';
import { FakeAccountStore } from '../fakes/account-store.js';

function setUp() {
  const store = new FakeAccountStore();
  const clock = new ManualClock(new Date('2026-11-28T12:00:00Z'));
  const accounts = new AccountService({
    store,
    clock,
    sealer: new Sealer(Sealer.generateKey()),
    accessTokens: {} as AccessTokenService,
    tenancy: {} as TenancyService,
  });
  return { store, clock, accounts };
}

const identity = {
  fullName: 'Ada Lovelace',
  dateOfBirth: '1990-12-10',
  documentNumber: 'X1234567',
  documentExpiry: '2030-01-31',
};

/** An account straight into the store (no scrypt at today's cost: these rules do not need one). */
function seeded(store: FakeAccountStore, id = 'svc_ada') {
  store.rows.set(
    id,
    newAccountRecord({
      id,
      email: `${id}@example.com`,
      passwordHash: 'none',
      displayName: 'Ada',
      createdAt: new Date(),
    }),
  );
  return id;
}

describe('accounts on a fake store', () => {
  it('one account per address, whatever its case: a second sign-up is account_exists', async () => {
    const { accounts } = setUp();
    await accounts.createAccount({ email: 'Ada@Example.com', password: 'a long enough passphrase 1' });
    await expect(
      accounts.createAccount({ email: 'ada@example.com', password: 'another passphrase 22' }),
    ).rejects.toMatchObject({ code: 'account_exists' });
  });

  it('an older password hash is replaced by one at the current cost once the password proved right', async () => {
    const { store, accounts } = setUp();
    const id = seeded(store);
    const salt = randomBytes(16);
    store.rows.get(id)!.passwordHash =
      `scrypt$16384$8$1$${salt.toString('base64')}$${scryptSync('old passphrase here', salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64')}`;
    expect(await accounts.checkPassword(`${id}@example.com`, 'wrong passphrase')).toBeNull();
    expect(isCurrentHash(store.rows.get(id)!.passwordHash)).toBe(false);
    expect(await accounts.checkPassword(` ${id.toUpperCase()}@EXAMPLE.COM `, 'old passphrase here')).toMatchObject({
      svcId: id,
    });
    expect(isCurrentHash(store.rows.get(id)!.passwordHash)).toBe(true);
  });

  it('stores a verified identity sealed, and reuses it only while its document is current', async () => {
    const { store, clock, accounts } = setUp();
    const id = seeded(store);
    await expect(accounts.reusableIdentity(id, clock.now())).rejects.toMatchObject({ code: 'no_reusable_record' });
    await expect(accounts.recordVerifiedIdentity({ svcId: 'svc_nobody', ...identity })).rejects.toMatchObject({
      code: 'account_not_found',
    });
    expect(await accounts.recordVerifiedIdentity({ svcId: id, ...identity, humanVerified: true })).toMatchObject({
      idVerified: true,
      humanVerified: true,
    });
    expect(JSON.stringify([...store.rows.values()])).not.toContain('X1234567');
    expect(await accounts.reusableIdentity(id, clock.now())).toEqual({
      ...identity,
      verifiedAt: clock.now().toISOString(),
    });
    await expect(accounts.reusableIdentity(id, new Date('2030-02-01T00:00:00Z'))).rejects.toMatchObject({
      code: 'reuse_not_available',
    });
  });

  it('a profile names the verified person but never carries the date of birth, document or address', async () => {
    const { store, accounts } = setUp();
    const id = seeded(store);
    await accounts.recordVerifiedIdentity({ svcId: id, ...identity, address: '12 St James Sq' });
    const profile = await accounts.profile(id);
    expect(profile).toMatchObject({ svcId: id, idVerified: true, verifiedName: 'Ada Lovelace', emailVerified: false });
    expect(JSON.stringify(profile)).not.toMatch(/1990|X1234567|James/);
    expect(await accounts.profile('svc_nobody')).toBeNull();
  });

  it('a face reference made by another descriptor model is no reference: the person enrols again', async () => {
    const { store, accounts } = setUp();
    const id = seeded(store);
    await expect(
      accounts.setFaceReference('svc_nobody', new Float32Array(DESCRIPTOR_DIMENSIONS)),
    ).rejects.toMatchObject({ code: 'account_not_found' });
    await expect(accounts.requireFaceReference(id)).rejects.toMatchObject({
      code: 'face_not_enrolled',
      data: undefined,
    });
    await accounts.setFaceReference(
      id,
      Float32Array.from({ length: DESCRIPTOR_DIMENSIONS }, (_, i) => i / DESCRIPTOR_DIMENSIONS),
    );
    expect((await accounts.faceReference(id))?.[DESCRIPTOR_DIMENSIONS / 2]).toBeCloseTo(0.5);
    expect((await accounts.requireFaceReference(id))[DESCRIPTOR_DIMENSIONS / 2]).toBeCloseTo(0.5);
    expect(store.rows.get(id)!.faceDescriptorKind).toBe(FACE_DESCRIPTOR_KIND);
    // face-api's 128-d descriptor, the kind before this one
    store.rows.get(id)!.faceDescriptorKind = 'face-api-128';
    expect(await accounts.faceReference(id)).toBeNull();
    await expect(accounts.requireFaceReference(id)).rejects.toMatchObject({
      code: 'face_not_enrolled',
      data: { reason: 'reference_outdated' },
    });
  });
});

describe('emailed links on a fake store', () => {
  function recovery() {
    const { store, clock, accounts } = setUp();
    const mail: MailMessage[] = [];
    const ended: string[] = [];
    const service = new AccountRecovery({
      clock,
      accounts,
      store,
      mail: { send: async (messages: MailMessage[]) => void mail.push(...messages) } as unknown as MailService,
      baseUrl: 'https://verity.test',
      afterPasswordReset: async (account) => void ended.push(account.svcId),
    });
    const secretIn = (message: MailMessage) => decodeURIComponent(/token=([^\s]+)/.exec(message.text)![1]!);
    return { store, clock, service, mail, ended, secretIn };
  }

  it('a reset link works once and ends every sign-in; at most one reset mail a minute', async () => {
    const { store, clock, service, mail, ended, secretIn } = recovery();
    const id = seeded(store);
    await service.requestReset({ email: `${id}@example.com` });
    await service.requestReset({ email: `${id}@example.com` });
    await service.requestReset({ email: 'nobody@example.com' });
    expect(mail).toHaveLength(1);
    const secret = secretIn(mail[0]!);
    expect(await service.resetLinkUsable(secret)).toBe(true);
    await expect(service.resetPassword(secret, { password: 'short' })).rejects.toMatchObject({
      code: 'validation_error',
    });
    expect(await service.resetLinkUsable(secret)).toBe(true); // a refused password leaves the link usable
    await service.resetPassword(secret, { password: 'a brand new passphrase 7' });
    expect(ended).toEqual([id]);
    expect(store.rows.get(id)!.passwordHash).toMatch(/^scrypt\$/);
    await expect(service.resetPassword(secret, { password: 'another new passphrase 8' })).rejects.toMatchObject({
      code: 'invalid_token',
    });
    clock.advance(61_000);
    await service.requestReset({ email: `${id}@example.com` });
    expect(mail).toHaveLength(2);
  });

  it('an expired reset link is refused', async () => {
    const { store, clock, service, mail, secretIn } = recovery();
    const id = seeded(store);
    await service.requestReset({ email: `${id}@example.com` });
    clock.advance(16 * 60_000);
    expect(await service.resetLinkUsable(secretIn(mail[0]!))).toBe(false);
    await expect(
      service.resetPassword(secretIn(mail[0]!), { password: 'a brand new passphrase 7' }),
    ).rejects.toMatchObject({ code: 'invalid_token' });
  });
});
