import { describe, expect, it } from 'vitest';
import { AccountService, SANDBOX_ACCOUNT } from '../../src/core/accounts/service.js';
import type { AccountStore } from '../../src/core/accounts/store.js';
import { registerKey } from '../../src/core/faces/face-index.js';
import { Sealer } from '../../src/core/secrets.js';

// The rules that keep test mode apart from live mode (issue #46 items 1 and 2), without a
// database: what a test key may read and write of an account, and which face register it uses.
// Through HTTP: test/sandbox-accounts.test.ts, test/face-uniqueness.test.ts, reliability/sandbox-isolation.test.ts.

/** An AccountService whose store records every call (and has nothing). */
function accountsWithSpyStore() {
  const calls: string[] = [];
  const store = new Proxy({} as AccountStore, {
    get: (_target, name) => async () => {
      calls.push(String(name));
      return null;
    },
  });
  const accounts = new AccountService({
    store,
    clock: { now: () => new Date('2026-12-02T00:00:00Z') },
    sealer: new Sealer(Sealer.generateKey()),
    accessTokens: {} as never,
    tenancy: {} as never,
  });
  return { accounts, calls };
}

describe('AccountService.stateFor', () => {
  it('gives a live caller the account itself and a test caller the sandbox account', () => {
    const { accounts } = accountsWithSpyStore();
    expect(accounts.stateFor({ livemode: true })).toBe(accounts);
    expect(accounts.stateFor({ livemode: false })).toBe(SANDBOX_ACCOUNT);
  });

  it('the sandbox account has nothing on file, answered as an account without any, and never reaches the store', async () => {
    const { accounts, calls } = accountsWithSpyStore();
    const sandbox = accounts.stateFor({ livemode: false });
    expect(await sandbox.faceReference('svc_1')).toBeNull();
    expect(await sandbox.verifiedIdentity('svc_1')).toBeNull();
    expect(await sandbox.licenseSummaries('svc_1')).toEqual([]);
    await expect(sandbox.requireFaceReference('svc_1')).rejects.toMatchObject({ code: 'face_not_enrolled' });
    await expect(sandbox.reusableIdentity('svc_1', new Date())).rejects.toMatchObject({ code: 'no_reusable_record' });
    await sandbox.recordVerifiedIdentity({ svcId: 'svc_1', fullName: 'Ada Lovelace', dateOfBirth: '1990-12-10' });
    await sandbox.badgeLicense(
      'svc_1',
      {
        type: 'RN',
        number: '1',
        status: 'active',
        issuer: 'Board',
        stateCode: 'CA',
        expiresOn: null,
        verifiedFrom: 'Board (CA)',
        expireAt: new Date(),
      },
      new Date(),
    );
    expect(calls).toEqual([]);
    // The live state reads and writes the account.
    await expect(
      accounts
        .stateFor({ livemode: true })
        .recordVerifiedIdentity({ svcId: 'svc_1', fullName: 'Ada Lovelace', dateOfBirth: '1990-12-10' }),
    ).rejects.toMatchObject({ code: 'account_not_found' });
    expect(calls).toEqual(['setIdentity']);
  });
});

describe('registerKey', () => {
  it('names a register by project, purpose and mode: test and live never share one', () => {
    const live = registerKey({ projectId: 'prj_1', purpose: 'uniqueness', livemode: true });
    expect(registerKey({ projectId: 'prj_1', purpose: 'uniqueness', livemode: false })).not.toBe(live);
    expect(registerKey({ projectId: 'prj_1', purpose: 'identity', livemode: true })).not.toBe(live);
    expect(registerKey({ projectId: 'prj_2', purpose: 'uniqueness', livemode: true })).not.toBe(live);
    expect(registerKey({ projectId: 'prj_1', purpose: 'uniqueness', livemode: true })).toBe(live);
  });
});
