import { describe, expect, it } from 'vitest';
import type { NewMemberRecord, RosterStore } from '../../src/core/roster/store.js';

/** What a contract run needs: a store (each rule makes its own organizations through it). */
export interface RosterStoreSubject {
  store: RosterStore;
}

const at = new Date('2026-06-01T12:00:00.000Z');
const later = (ms: number) => new Date(at.getTime() + ms);
let serial = 0;
const newMember = (organizationId: number, email: string): NewMemberRecord => ({
  memberId: `mem_c${process.pid}_${++serial}`,
  organizationId,
  email,
  firstName: 'Ada',
  lastName: 'Lovelace',
  role: 'member',
  status: 'invited',
  activationDigest: null,
  activationExpiresAt: null,
  createdAt: at,
});

/**
 * The rules every RosterStore keeps, run against the in-memory fake (test/fast) and PgRosterStore
 * (test/store-contracts.test.ts): an address once per roster in any case, a transaction that throws leaves
 * nothing, an account once per roster, re-invites counted per minute, a period invoiced once among concurrent
 * closers, the audit trail newest first and the removals it remembers.
 */
export function rosterStoreContract(kind: string, subject: () => RosterStoreSubject): void {
  describe(`RosterStore contract: ${kind}`, () => {
    it('adds an address once per roster, whatever its case, in one call or across calls', async () => {
      const { store } = subject();
      const acme = await store.createOrganization('Acme', at);
      const other = await store.createOrganization('Other', at);
      const email = `ada.${process.pid}.${++serial}@example.com`;
      const first = newMember(acme, email);
      const added = await store.transaction((tx) => tx.addMembers([first, newMember(acme, email.toUpperCase())]));
      expect(added).toEqual([{ id: expect.any(Number), memberId: first.memberId }]);
      expect(await store.transaction((tx) => tx.addMembers([newMember(acme, email)]))).toEqual([]);
      expect(await store.transaction((tx) => tx.addMembers([newMember(other, email)]))).toHaveLength(1);
      expect(await store.member(acme, { column: 'email', value: email })).toEqual({
        ...first,
        id: added[0]!.id,
        svcId: null,
      });
    });

    it('leaves nothing of a transaction that throws', async () => {
      const { store } = subject();
      const acme = await store.createOrganization('Acme', at);
      const member = newMember(acme, `gone.${process.pid}.${++serial}@example.com`);
      await expect(
        store.transaction(async (tx) => {
          await tx.addMembers([member]);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await store.member(acme, { column: 'member_id', value: member.memberId })).toBeNull();
    });

    it('refuses an account a second member of the roster already has, as already_active', async () => {
      const { store } = subject();
      const acme = await store.createOrganization('Acme', at);
      const svcId = `svc_contract_${process.pid}_${++serial}`;
      const [first, second] = [
        newMember(acme, `one.${serial}@example.com`),
        newMember(acme, `two.${serial}@example.com`),
      ];
      await store.transaction((tx) => tx.addMembers([first!, second!]));
      const saveWithAccount = (memberId: string) =>
        store.transaction(async (tx) => {
          const member = (await tx.lockMember(acme, { column: 'member_id', value: memberId }))!;
          await tx.saveMember({ ...member, status: 'active', svcId });
        });
      await saveWithAccount(first!.memberId);
      await expect(saveWithAccount(second!.memberId)).rejects.toMatchObject({ code: 'already_active' });
      expect((await store.member(acme, { column: 'member_id', value: second!.memberId }))?.svcId).toBeNull();
      expect(await store.member(acme, { column: 'svc_id', value: svcId })).toMatchObject({ memberId: first!.memberId });
      expect(await store.activeSeats(acme)).toBe(1);
    });

    it("counts a member's re-invites per minute; the next minute starts again at one", async () => {
      const { store } = subject();
      const acme = await store.createOrganization('Acme', at);
      const [added] = await store.transaction((tx) => tx.addMembers([newMember(acme, `inv.${serial}@example.com`)]));
      expect(await store.countInvite(added!.id, at)).toBe(1);
      expect(await store.countInvite(added!.id, at)).toBe(2);
      expect(await store.countInvite(added!.id, later(60_000))).toBe(1);
      expect(await store.countInvite(added!.id, later(60_000))).toBe(2);
    });

    it('invoices a period once among concurrent closers, and lists invoices oldest period first', async () => {
      const { store } = subject();
      const acme = await store.createOrganization('Acme', at);
      const invoice = (period: string) => ({
        organizationId: acme,
        period,
        seats: 2,
        amountMinor: 1000,
        currency: 'USD',
        createdAt: at,
      });
      const outcomes = await Promise.all(Array.from({ length: 4 }, () => store.addInvoice(invoice('2026-05'))));
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      expect(await store.addInvoice(invoice('2026-04'))).toBe(true);
      expect(await store.invoices(acme)).toEqual([invoice('2026-04'), invoice('2026-05')]);
      expect(await store.lastInvoicedPeriod(acme)).toBe('2026-05');
    });

    it('keeps the audit trail newest first, of the roster or one member; remembers a removal by any reference', async () => {
      const { store } = subject();
      const acme = await store.createOrganization('Acme', at);
      const entry = (memberId: string | null, action: string, ms: number, before: object | null = null) => ({
        organizationId: acme,
        memberId,
        actor: 'org_app',
        action,
        before,
        after: null,
        createdAt: later(ms),
      });
      await store.transaction((tx) =>
        tx.appendAudit([
          entry('mem_a', 'add', 0),
          entry(null, 'plan', 1),
          entry('mem_a', 'remove', 2, { email: 'Ada@Example.com', svc_id: 'svc_ada' }),
        ]),
      );
      const trail = await store.auditTrail(acme, null, 10);
      expect(trail.map((record) => record.action)).toEqual(['remove', 'plan', 'add']);
      expect(trail[0]).toEqual({
        id: expect.any(Number),
        memberId: 'mem_a',
        actor: 'org_app',
        action: 'remove',
        before: { email: 'Ada@Example.com', svc_id: 'svc_ada' },
        after: null,
        createdAt: later(2),
      });
      expect((await store.auditTrail(acme, 'mem_a', 1)).map((record) => record.action)).toEqual(['remove']);
      for (const ref of ['mem_a', 'ada@example.com', 'svc_ada']) expect(await store.wasRemoved(acme, ref)).toBe(true);
      expect(await store.wasRemoved(acme, 'mem_b')).toBe(false);
    });
  });
}
