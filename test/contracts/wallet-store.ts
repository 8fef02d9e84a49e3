import { describe, expect, it } from 'vitest';
import type { CheckRecordRow, LeasedCharge, WalletStore } from '../../src/core/billing/wallet-store.js';

/** What a contract run needs: a store, and a way to make a new project with an empty wallet. */
export interface WalletStoreSubject {
  store: WalletStore;
  newProject(): Promise<string>;
}

const at = new Date('2026-06-01T12:00:00.000Z');
const later = (ms: number) => new Date(at.getTime() + ms);
let serial = 0;
const unique = (prefix: string) => `${prefix}_ct_${process.pid}_${++serial}`;

const leaseOf = (projectId: string, wantMinor: number, minMinor: number, expiresAt = later(60_000)) => ({
  id: unique('wl'),
  projectId,
  wantMinor,
  minMinor,
  holder: 'contract',
  expiresAt,
  now: at,
});

const recordOf = (projectId: string, createdAt = at): CheckRecordRow => ({
  id: unique('chk'),
  projectId,
  type: 'age',
  status: 'passed',
  mode: 'fresh',
  svcId: null,
  livemode: true,
  reason: null,
  durationMs: 1,
  createdAt,
});

const chargeOf = (record: CheckRecordRow, leaseId: string, amountMinor: number): LeasedCharge => ({
  id: unique('chg'),
  leaseId,
  projectId: record.projectId,
  item: 'check:age',
  amountMinor,
  currency: 'USD',
  createdAt: record.createdAt,
});

/**
 * The rules every WalletStore keeps, run against the in-memory fake (test/fast) and PostgresWalletStore
 * (test/store-contracts.test.ts): a lease takes what the balance allows and never more among concurrent takers,
 * closing it returns what its charges did not spend, once, a closed lease takes no charge, and what a project can
 * spend counts its open leases.
 */
export function walletStoreContract(kind: string, subject: () => WalletStoreSubject): void {
  describe(`WalletStore contract: ${kind}`, () => {
    it('credits a project that exists only; its balance counts its open leases', async () => {
      const { store, newProject } = subject();
      const projectId = await newProject();
      expect(await store.balanceOf(projectId)).toBe(0);
      expect(await store.credit(projectId, 100)).toBe(true);
      expect(await store.credit(`${projectId}_unknown`, 100)).toBe(false);
      expect(await store.balanceOf(`${projectId}_unknown`)).toBeNull();
      expect(await store.openLease(leaseOf(projectId, 60, 5))).toEqual({ amountMinor: 60, currency: 'USD' });
      expect(await store.balanceOf(projectId)).toBe(100);
    });

    it('takes what is wanted, or what is left if that is at least the minimum, or nothing', async () => {
      const { store, newProject } = subject();
      const projectId = await newProject();
      await store.credit(projectId, 100);
      expect((await store.openLease(leaseOf(projectId, 60, 5)))?.amountMinor).toBe(60);
      expect((await store.openLease(leaseOf(projectId, 60, 40)))?.amountMinor).toBe(40);
      expect(await store.openLease(leaseOf(projectId, 60, 1))).toBeNull();
    });

    it('never leases more than the balance among concurrent takers', async () => {
      const { store, newProject } = subject();
      const projectId = await newProject();
      await store.credit(projectId, 100);
      const grants = await Promise.all(Array.from({ length: 6 }, () => store.openLease(leaseOf(projectId, 30, 30))));
      expect(grants.filter(Boolean)).toHaveLength(3);
      expect(await store.balanceOf(projectId)).toBe(100);
    });

    it('closes a lease once, returning what its charges did not spend; a closed lease takes no charge', async () => {
      const { store, newProject } = subject();
      const projectId = await newProject();
      await store.credit(projectId, 100);
      const lease = leaseOf(projectId, 50, 1);
      await store.openLease(lease);
      const paid = recordOf(projectId);
      expect(await store.recordPaidCheck(paid, chargeOf(paid, lease.id, 5))).toBe(true);
      expect(await store.balanceOf(projectId)).toBe(95);
      const closes = await Promise.all([store.closeLease(lease.id, at), store.closeLease(lease.id, at)]);
      expect(closes.sort()).toEqual([45, null]);
      const late = recordOf(projectId, later(1000));
      expect(await store.recordPaidCheck(late, chargeOf(late, lease.id, 5))).toBe(false);
      expect(await store.balanceOf(projectId)).toBe(95);
      expect((await store.charges(projectId, 10)).map((charge) => charge.checkId)).toEqual([paid.id]);
    });

    it("lists a project's charges newest first, with the check each paid for", async () => {
      const { store, newProject } = subject();
      const projectId = await newProject();
      const otherProjectId = await newProject();
      await store.credit(projectId, 100);
      await store.credit(otherProjectId, 100);
      const lease = leaseOf(projectId, 100, 1);
      const otherLease = leaseOf(otherProjectId, 100, 1);
      await store.openLease(lease);
      await store.openLease(otherLease);
      const records = [
        recordOf(projectId, later(1000)),
        recordOf(projectId, later(3000)),
        recordOf(projectId, later(2000)),
      ];
      const charges = records.map((record) => chargeOf(record, lease.id, 5));
      for (const [i, record] of records.entries()) await store.recordPaidCheck(record, charges[i]!);
      const other = recordOf(otherProjectId, later(4000));
      await store.recordPaidCheck(other, chargeOf(other, otherLease.id, 5));
      const { leaseId: _, ...newest } = charges[1]!;
      expect(await store.charges(projectId, 2)).toEqual([
        { ...newest, checkId: records[1]!.id, refunded: false },
        expect.objectContaining({ id: charges[2]!.id, checkId: records[2]!.id }),
      ]);
    });

    it('finds the open leases past their expiry (exclusive), oldest first, up to the limit', async () => {
      const { store, newProject } = subject();
      const projectId = await newProject();
      await store.credit(projectId, 100);
      // Expiries long past, which no other case uses: the sweep sees every project's leases.
      const deadline = new Date('1990-01-01T00:00:00.000Z');
      const past = (ms: number) => new Date(deadline.getTime() + ms);
      const second = leaseOf(projectId, 10, 1, past(-1000));
      const first = leaseOf(projectId, 10, 1, past(-2000));
      const closed = leaseOf(projectId, 10, 1, past(-3000));
      const atDeadline = leaseOf(projectId, 10, 1, deadline);
      for (const lease of [second, first, closed, atDeadline]) await store.openLease(lease);
      await store.closeLease(closed.id, at);
      expect(await store.expiredLeases(deadline, 10)).toEqual([first.id, second.id]);
      expect(await store.expiredLeases(deadline, 1)).toEqual([first.id]);
    });
  });
}
