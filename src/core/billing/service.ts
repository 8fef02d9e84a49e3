import { z } from 'zod';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { DomainError } from '../errors.js';
import { newId } from '../secrets.js';
import { Charge } from './entities.js';

/** Default price per billable item, in minor units (cents). `VERITY_PRICES` overrides any of them. */
export const DEFAULT_PRICES_MINOR: Record<string, number> = {
  'check:id_verification': 50,
  'check:liveness': 20,
  'check:face_match': 20,
  'check:age': 5,
  'check:credential': 30,
  'check:kyc_credential': 100,
  'check:location': 2,
  'check:antispoof': 20,
  'check:face_uniqueness': 10,
  /** A hosted verification session, charged once at creation whatever it runs. */
  session: 150,
};

const pricesInput = z.record(z.string(), z.number().int().nonnegative());

/** Parses `VERITY_PRICES` (JSON: item -> minor units), merged over the defaults. */
export function parsePrices(json: string | undefined): Record<string, number> {
  if (!json) return { ...DEFAULT_PRICES_MINOR };
  const parsed = pricesInput.safeParse(JSON.parse(json));
  if (!parsed.success) throw new Error('VERITY_PRICES must be a JSON object of item -> non-negative integer minor units');
  return { ...DEFAULT_PRICES_MINOR, ...parsed.data };
}

export interface Reservation {
  chargeId: string;
  amountMinor: number;
}

export const chargeView = (charge: Charge) => ({
  id: charge.id,
  projectId: charge.projectId,
  item: charge.item,
  checkId: charge.checkId ?? null,
  amount: charge.amountMinor / 100,
  currency: charge.currency,
  refunded: charge.refunded,
  createdAt: charge.createdAt.toISOString(),
});
export type ChargeView = ReturnType<typeof chargeView>;

/** The project wallet: every billable call reserves its price up front and is refunded if we fail it. */
export class BillingService {
  constructor(private readonly deps: { orm: Orm; clock: Clock; prices: Record<string, number> }) {}

  priceOf(item: string): number {
    return this.deps.prices[item] ?? 0;
  }

  /**
   * Debits the price atomically (the balance can never go below zero, whatever runs at once) and
   * records the charge; 402 insufficient_balance before any work when the wallet cannot pay.
   */
  async reserve(projectId: string, item: string): Promise<Reservation> {
    const amountMinor = this.priceOf(item);
    const chargeId = newId('chg');
    await this.deps.orm.em.fork().transactional(async (em) => {
      const connection = em.getConnection();
      const debited = await connection.execute(
        'update project set balance_minor = balance_minor - ? where id = ? and balance_minor >= ? returning currency',
        [amountMinor, projectId, amountMinor],
        'all',
        em.getTransactionContext(),
      );
      if (debited.length === 0) {
        throw new DomainError('insufficient_balance', `wallet balance is below the price of this call (${(amountMinor / 100).toFixed(2)}); top up to continue`);
      }
      em.create(Charge, { id: chargeId, projectId, item, amountMinor, currency: debited[0].currency, refunded: false, createdAt: this.deps.clock.now() });
    });
    return { chargeId, amountMinor };
  }

  /** Ties the charge to the check it paid for. */
  async settle(reservation: Reservation, checkId: string): Promise<void> {
    await this.deps.orm.em.fork().nativeUpdate(Charge, { id: reservation.chargeId }, { checkId });
  }

  /** Gives the money back: the call failed on bad input found late, or on our side. */
  async refund(reservation: Reservation): Promise<void> {
    await this.deps.orm.em.fork().transactional(async (em) => {
      const charge = await em.findOne(Charge, { id: reservation.chargeId, refunded: false });
      if (!charge) return;
      charge.refunded = true;
      await em.getConnection().execute('update project set balance_minor = balance_minor + ? where id = ?', [charge.amountMinor, charge.projectId], 'run', em.getTransactionContext());
    });
  }

  /** Adds money to a wallet; returns the new balance in currency units. */
  async topUp(projectId: string, amount: number): Promise<number> {
    const minor = Math.round(amount * 100);
    if (!Number.isFinite(minor) || minor <= 0 || minor > 1e11) throw new DomainError('validation_error', 'amount must be a positive number of currency units');
    const rows = await this.deps.orm.em.getConnection().execute('update project set balance_minor = balance_minor + ? where id = ? returning balance_minor', [minor, projectId]);
    if (rows.length === 0) throw new DomainError('not_found', 'project not found');
    return Number(rows[0].balance_minor) / 100;
  }

  async listCharges(projectId: string, options: { limit?: number } = {}) {
    const charges = await this.deps.orm.em.fork().find(Charge, { projectId }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: Math.min(options.limit ?? 100, 500) });
    return charges.map(chargeView);
  }
}
