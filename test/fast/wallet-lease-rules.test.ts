// The wallet's lease rules on a fake store, in milliseconds: what one instance holds in memory
// never spends more than its leases, a lease returns exactly what its charges did not spend, an
// empty wallet answers 402, a call whose lease was closed under it pays from a new one, and a busy
// instance takes larger blocks. The fake is held to its store's contract (test/contracts/wallet-store.ts).
import { describe, expect, it } from 'vitest';
import { BillingService, type WalletLeaseOptions } from '../../src/core/billing/service.js';
import type { CheckRecordRow } from '../../src/core/billing/wallet-store.js';
import { ManualClock } from '../../src/core/clock.js';
import type { Orm } from '../../src/core/db/orm.js';
import { DomainError } from '../../src/core/errors.js';
import { FakeWalletStore } from '../fakes/wallet-store.js';

const prices = { 'check:age': 5, 'check:id_verification': 50 };

function wallet(balanceMinor: number, lease: Partial<WalletLeaseOptions> = {}) {
  const store = new FakeWalletStore();
  store.balance.set('prj_a', balanceMinor);
  const clock = new ManualClock(new Date('2026-11-27T12:00:00Z'));
  const billing = new BillingService({ orm: {} as Orm, clock, prices, store, lease });
  return { store, clock, billing };
}

const recordOf = (id: string): CheckRecordRow => ({
  id,
  projectId: 'prj_a',
  type: 'age',
  status: 'passed',
  mode: 'fresh',
  svcId: null,
  livemode: true,
  reason: null,
  durationMs: 1,
  createdAt: new Date(),
});

/** Reserves and records one paid age check; the 402 comes back as its error. */
async function paidCall(billing: BillingService, id: string): Promise<'paid' | string> {
  try {
    const held = await billing.reserve('prj_a', 'check:age');
    await billing.recordCheck(recordOf(id), held);
    return 'paid';
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}

describe('wallet leases', () => {
  it('a lease takes a block of the balance, calls spend it in memory, and closing returns what was not spent', async () => {
    const { store, billing } = wallet(10_000, { calls: 10 });
    for (let i = 0; i < 3; i++) expect(await paidCall(billing, `chk_${i}`)).toBe('paid');
    expect(store.leases.size).toBe(1); // one lease paid for the three calls
    expect(store.balance.get('prj_a')).toBe(10_000 - 50); // ten calls' worth taken off the row
    expect(await store.balanceOf('prj_a')).toBe(10_000 - 15);
    await billing.returnLeases();
    expect(store.openLeases()).toBe(0);
    expect(store.balance.get('prj_a')).toBe(10_000 - 15);
  });

  it('a top-up adds to the balance in currency units; a non-positive amount or an unknown project is refused', async () => {
    const { billing } = wallet(1_000);
    expect(await billing.topUp('prj_a', 2.5)).toBe(12.5);
    await expect(billing.topUp('prj_a', 0)).rejects.toMatchObject({ code: 'validation_error' });
    await expect(billing.topUp('prj_a', Number.NaN)).rejects.toMatchObject({ code: 'validation_error' });
    await expect(billing.topUp('prj_missing', 1)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('lists the charges of a project newest first, in currency units', async () => {
    const { billing } = wallet(10_000);
    for (let i = 0; i < 3; i++) await paidCall(billing, `chk_${i}`);
    const charges = await billing.listCharges('prj_a', { limit: 2 });
    expect(charges.map((charge) => [charge.item, charge.amount])).toEqual([
      ['check:age', 0.05],
      ['check:age', 0.05],
    ]);
    expect(await billing.listCharges('prj_other')).toEqual([]);
  });

  it('many calls at once never spend more than the wallet, and every paid call has exactly one charge', async () => {
    const { store, billing } = wallet(103, { calls: 4 }); // 20 calls of 5, and 3 left over
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => paidCall(billing, `chk_${i}`)));
    expect(answers.filter((answer) => answer === 'paid')).toHaveLength(20);
    expect(answers.filter((answer) => answer !== 'paid').every((answer) => answer === 'insufficient_balance')).toBe(
      true,
    );
    expect(store.paid).toHaveLength(20);
    expect(new Set(store.paid.map((charge) => charge.id)).size).toBe(20);
    await billing.returnLeases();
    expect(store.balance.get('prj_a')).toBe(3);
    expect(store.openLeases()).toBe(0);
  });

  it('answers 402 insufficient_balance when the wallet cannot pay the call, and takes a lease smaller than wanted when that is all there is', async () => {
    const { store, billing } = wallet(7);
    expect(await paidCall(billing, 'chk_1')).toBe('paid');
    expect(store.leases.size).toBe(1);
    expect([...store.leases.values()][0]!.amountMinor).toBe(7);
    expect(await paidCall(billing, 'chk_2')).toBe('insufficient_balance');
    await billing.returnLeases();
    expect(store.balance.get('prj_a')).toBe(2);
  });

  it('a call that fails gives its price back to the lease: nothing charged', async () => {
    const { store, billing } = wallet(1_000, { calls: 2 });
    const held = await billing.reserve('prj_a', 'check:age');
    await billing.refund(held);
    await billing.refund(held); // ends once
    expect(await paidCall(billing, 'chk_1')).toBe('paid');
    expect(await paidCall(billing, 'chk_2')).toBe('paid');
    expect(store.leases.size).toBe(1); // the refunded price was spent by a later call of the same lease
    await billing.returnLeases();
    expect(store.balance.get('prj_a')).toBe(990);
  });

  it('a charge whose statement failed after committing is never spent again: the wallet never goes below zero', async () => {
    const { store, billing } = wallet(10, { calls: 2 });
    const write = store.recordPaidCheck.bind(store);
    let lostAnswers = 1;
    // The connection drops after the commit: the charge is written, the caller sees an error.
    store.recordPaidCheck = async (record, charge) => {
      const written = await write(record, charge);
      if (lostAnswers-- > 0) throw new Error('Connection terminated unexpectedly');
      return written;
    };
    await expect(paidCall(billing, 'chk_lost_answer')).rejects.toThrow('Connection terminated');
    expect(await paidCall(billing, 'chk_2')).toBe('paid');
    expect(await paidCall(billing, 'chk_3')).toBe('insufficient_balance');
    await billing.returnLeases();
    expect(store.paid).toHaveLength(2);
    expect(store.balance.get('prj_a')).toBe(0);
  });

  it('a call whose lease was closed under it (swept as expired) is charged once, from a new lease', async () => {
    const { store, billing } = wallet(1_000, { calls: 10 });
    const held = await billing.reserve('prj_a', 'check:age');
    const [firstLease] = store.leases.keys();
    await store.closeLease(firstLease!);
    await billing.recordCheck(recordOf('chk_late'), held);
    expect(store.paid).toHaveLength(1);
    expect(store.paid[0]!.leaseId).not.toBe(firstLease);
    expect(store.records.map((record) => record.id)).toEqual(['chk_late']);
    await billing.returnLeases();
    expect(store.balance.get('prj_a')).toBe(995);
  });

  it('the sweep closes only leases past their expiry, once', async () => {
    const { store, clock, billing } = wallet(1_000, { drawSeconds: 10, graceSeconds: 60 });
    const dead = new BillingService({ orm: {} as Orm, clock, prices, store });
    expect(await paidCall(dead, 'chk_dead')).toBe('paid');
    expect(await billing.returnExpiredLeases()).toBe(0);
    clock.advance(71_000);
    expect(await billing.returnExpiredLeases()).toBe(1);
    expect(await billing.returnExpiredLeases()).toBe(0);
    expect(store.balance.get('prj_a')).toBe(995);
  });

  it('a lease past its drawing time is not drawn from: the next call opens a new one and the old one is returned', async () => {
    const { store, billing } = wallet(1_000, { drawSeconds: 0.02 });
    expect(await paidCall(billing, 'chk_1')).toBe('paid');
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(await paidCall(billing, 'chk_2')).toBe('paid');
    expect(store.leases.size).toBe(2);
    expect(store.openLeases()).toBe(1);
    await billing.returnLeases();
    expect(store.openLeases()).toBe(0);
    expect(store.balance.get('prj_a')).toBe(990);
  });

  it('leases used up quickly grow twice as large up to maxCalls, and one that sits idle brings them back to calls', async () => {
    const { store, billing } = wallet(100_000, { calls: 10, maxCalls: 40, idleSeconds: 0.05 });
    const sizes = () => [...store.leases.values()].map((lease) => lease.amountMinor / 5);
    for (let i = 0; i < 120; i++) expect(await paidCall(billing, `chk_${i}`)).toBe('paid');
    expect(sizes()).toEqual([10, 20, 40, 40, 40]);
    await new Promise((resolve) => setTimeout(resolve, 700)); // the idle watch runs every 500 ms
    expect(store.openLeases()).toBe(0);
    expect(await paidCall(billing, 'chk_after_idle')).toBe('paid');
    expect(sizes().at(-1)).toBe(10);
    await billing.returnLeases();
    expect(store.balance.get('prj_a')).toBe(100_000 - 121 * 5);
  });
});
