import { LockMode, type EntityManager } from '@mikro-orm/core';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { DomainError } from '../errors.js';
import { newId } from '../secrets.js';
import { Charge } from './entities.js';
import { chargeView } from './views.js';

/** How old an unsettled reservation must be before the sweep refunds it. */
export const ABANDONED_AFTER_MS = 5 * 60_000;

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

/** The project wallet: every billable call reserves its price up front and is refunded if we fail it. */
export class BillingService {
  constructor(private readonly deps: { orm: Orm; clock: Clock; prices: Record<string, number> }) {}

  priceOf(item: string): number {
    return this.deps.prices[item] ?? 0;
  }

  /**
   * Debits the price atomically (the balance can never go below zero, whatever runs at once) and
   * records the charge; 402 insufficient_balance before any work when the wallet cannot pay.
   * The call then runs outside any transaction and either settles or refunds the reservation; if
   * the process or the database goes away in between, `refundAbandoned` gives the money back.
   */
  async reserve(projectId: string, item: string): Promise<Reservation> {
    return this.deps.orm.em.fork().transactional((em) => this.debit(em, projectId, item));
  }

  /**
   * The debit inside the caller's transaction: for work that is written in the same transaction
   * (a session), so the charge and what it paid for exist together or not at all.
   */
  async debit(em: EntityManager, projectId: string, item: string, paidFor: string | null = null): Promise<Reservation> {
    const amountMinor = this.priceOf(item);
    const chargeId = newId('chg');
    const debited = await em
      .getConnection()
      .execute('update project set balance_minor = balance_minor - ? where id = ? and balance_minor >= ? returning currency', [amountMinor, projectId, amountMinor], 'all', em.getTransactionContext());
    if (debited.length === 0) {
      throw new DomainError('insufficient_balance', `wallet balance is below the price of this call (${(amountMinor / 100).toFixed(2)}); top up to continue`);
    }
    em.create(Charge, { id: chargeId, projectId, item, checkId: paidFor, amountMinor, currency: debited[0].currency, refunded: false, createdAt: this.deps.clock.now() });
    return { chargeId, amountMinor };
  }

  /** Ties the charge to the check it paid for, in the transaction that records the check. */
  async settle(em: EntityManager, reservation: Reservation, checkId: string): Promise<void> {
    await em.nativeUpdate(Charge, { id: reservation.chargeId }, { checkId });
  }

  /** Gives the money back: the call failed on bad input found late, or on our side. A settled charge stays. */
  async refund(reservation: Reservation): Promise<void> {
    await this.refundCharge(reservation.chargeId);
  }

  /**
   * Part of the maintenance sweep: refunds reservations that never settled (the process died, or
   * PostgreSQL went away, between the debit and the record). A check answers in well under a
   * minute, so after ABANDONED_AFTER_MS nothing can still settle them. Returns how many.
   */
  async refundAbandoned(): Promise<number> {
    const cutoff = new Date(this.deps.clock.now().getTime() - ABANDONED_AFTER_MS);
    const stale = await this.deps.orm.em.fork().find(Charge, { checkId: null, refunded: false, createdAt: { $lt: cutoff } }, { fields: ['id'], limit: 1000 });
    let refunded = 0;
    for (const { id } of stale) refunded += (await this.refundCharge(id)) ? 1 : 0;
    return refunded;
  }

  /**
   * Marks an unsettled charge refunded and credits its amount, once (a row lock makes one winner).
   * A settled one is left alone: what it paid for was recorded (e.g. a commit whose answer was lost).
   */
  private async refundCharge(chargeId: string): Promise<boolean> {
    return this.deps.orm.em.fork().transactional(async (em) => {
      const charge = await em.findOne(Charge, { id: chargeId, refunded: false, checkId: null }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!charge) return false;
      charge.refunded = true;
      await em.getConnection().execute('update project set balance_minor = balance_minor + ? where id = ?', [charge.amountMinor, charge.projectId], 'run', em.getTransactionContext());
      return true;
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
