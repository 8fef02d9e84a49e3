import type {
  ChargeRow,
  CheckRecordRow,
  LeasedCharge,
  LeaseGrant,
  WalletStore,
} from '../../src/core/billing/wallet-store.js';

interface FakeLease {
  projectId: string;
  amountMinor: number;
  expiresAt: Date;
  closed: boolean;
}

/** A charge as written: with the check record it paid for. */
type PaidCharge = LeasedCharge & { checkId: string };

/**
 * The wallet tables in memory, with the same rules as the SQL (a closed lease takes no charge), held to the same
 * contract as PostgresWalletStore (test/contracts/wallet-store.ts). A project exists once `balance` has it; every
 * project is in USD, as every project is created.
 */
export class FakeWalletStore implements WalletStore {
  balance = new Map<string, number>();
  leases = new Map<string, FakeLease>();
  paid: PaidCharge[] = [];
  records: CheckRecordRow[] = [];

  async openLease(lease: {
    id: string;
    projectId: string;
    wantMinor: number;
    minMinor: number;
    expiresAt: Date;
  }): Promise<LeaseGrant | null> {
    const balance = this.balance.get(lease.projectId);
    if (balance === undefined || balance < lease.minMinor) return null;
    const amountMinor = Math.min(balance, lease.wantMinor);
    this.balance.set(lease.projectId, balance - amountMinor);
    this.leases.set(lease.id, { projectId: lease.projectId, amountMinor, expiresAt: lease.expiresAt, closed: false });
    return { amountMinor, currency: 'USD' };
  }

  async closeLease(leaseId: string): Promise<number | null> {
    const lease = this.leases.get(leaseId);
    if (!lease || lease.closed) return null;
    lease.closed = true;
    const unspent = lease.amountMinor - this.spentFrom(leaseId);
    this.balance.set(lease.projectId, (this.balance.get(lease.projectId) ?? 0) + unspent);
    return unspent;
  }

  async expiredLeases(now: Date, limit: number): Promise<string[]> {
    return [...this.leases]
      .filter(([, lease]) => !lease.closed && lease.expiresAt < now)
      .sort(([, a], [, b]) => a.expiresAt.getTime() - b.expiresAt.getTime())
      .slice(0, limit)
      .map(([id]) => id);
  }

  async recordPaidCheck(record: CheckRecordRow, charge: LeasedCharge | null): Promise<boolean> {
    if (charge && this.leases.get(charge.leaseId)?.closed !== false) return false;
    this.records.push(record);
    if (charge) this.paid.push({ ...charge, checkId: record.id });
    return true;
  }

  async chargeInTransaction(): Promise<boolean> {
    throw new Error('chargeInTransaction is not in the fake');
  }

  async balanceOf(projectId: string): Promise<number | null> {
    const balance = this.balance.get(projectId);
    if (balance === undefined) return null;
    const open = [...this.leases].filter(([, lease]) => lease.projectId === projectId && !lease.closed);
    return balance + open.reduce((sum, [id, lease]) => sum + lease.amountMinor - this.spentFrom(id), 0);
  }

  async credit(projectId: string, amountMinor: number): Promise<boolean> {
    if (!this.balance.has(projectId)) return false;
    this.balance.set(projectId, this.balance.get(projectId)! + amountMinor);
    return true;
  }

  async charges(projectId: string, limit: number): Promise<ChargeRow[]> {
    return this.paid
      .filter((charge) => charge.projectId === projectId)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .slice(0, limit)
      .map(({ leaseId: _, ...charge }) => ({ ...charge, refunded: false }));
  }

  async abandonedCharges(): Promise<string[]> {
    throw new Error('abandonedCharges is not in the fake');
  }

  async refundCharge(): Promise<boolean> {
    throw new Error('refundCharge is not in the fake');
  }

  spentFrom(leaseId: string): number {
    return this.paid
      .filter((charge) => charge.leaseId === leaseId)
      .reduce((sum, charge) => sum + charge.amountMinor, 0);
  }

  openLeases(): number {
    return [...this.leases.values()].filter((lease) => !lease.closed).length;
  }
}
