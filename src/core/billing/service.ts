import { hostname } from 'node:os';
import type { EntityManager } from '@mikro-orm/core';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { transaction } from '../db/prepared.js';
import { DomainError } from '../errors.js';
import { newId } from '../secrets.js';
import { chargeView } from './views.js';
import {
  type CheckRecordRow,
  type KeyedAnswer,
  type LeasedCharge,
  PostgresWalletStore,
  type WalletStore,
} from './wallet-store.js';

/** How old an unsettled charge (written before wallet leases) must be before the sweep refunds it. */
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
  if (!parsed.success)
    throw new Error('VERITY_PRICES must be a JSON object of item -> non-negative integer minor units');
  return { ...DEFAULT_PRICES_MINOR, ...parsed.data };
}

/** The price of one call held from a lease until the call is recorded (spent) or fails (released). */
export interface Reservation {
  lease: OpenLease;
  item: string;
  amountMinor: number;
  /** Spent or released: a reservation ends once. */
  ended: boolean;
}

/** A lease as its holder sees it: what it holds, what is held by calls in flight or spent. */
interface OpenLease {
  id: string;
  projectId: string;
  currency: string;
  amountMinor: number;
  /** Held by calls in flight plus spent by recorded ones. */
  heldMinor: number;
  inFlight: number;
  /** No call draws from it after this (epoch ms); it closes when its last call ends. */
  drawUntil: number;
  openedAt: number;
  lastUsed: number;
  draining: boolean;
}

export interface WalletLeaseOptions {
  /** A lease holds this many calls at the price of the call that opens it (less if the balance is lower). */
  calls: number;
  /**
   * While an instance uses its leases up within a tenth of `drawSeconds`, each next lease holds
   * twice as many calls, up to this; one that lasts longer brings it back to `calls`.
   */
  maxCalls: number;
  /** Calls draw from a lease for this long; it then closes once its calls have ended. */
  drawSeconds: number;
  /** An unused lease is returned after this long. */
  idleSeconds: number;
  /**
   * Past drawing, how long its calls may still be recorded before the sweep closes it (a dead holder's money comes back
   * then).
   */
  graceSeconds: number;
}

export const DEFAULT_WALLET_LEASE: WalletLeaseOptions = {
  calls: 50,
  maxCalls: 800,
  drawSeconds: 10,
  idleSeconds: 2,
  graceSeconds: 60,
};

const insufficientBalance = (amountMinor: number) =>
  new DomainError(
    'insufficient_balance',
    `wallet balance is below the price of this call (${(amountMinor / 100).toFixed(2)}); top up to continue`,
  );

/**
 * The project wallet: every billable call holds its price before the work and is charged only if
 * its verdict is recorded. The balance is spent through leases: an instance takes a block of a
 * project's balance in one update of the project row and holds call prices from it in memory, so
 * calls do not queue on that row; each charge names its lease, and closing a lease returns what
 * its charges did not spend. A lease whose holder died is closed by the maintenance sweep once it
 * expires. The balance never goes below zero, and no call is charged twice or lost.
 */
export class BillingService {
  private readonly leases = new Map<string, OpenLease>();
  /** How many calls the next lease of a project holds, while more than `calls` (see leaseUsedUp). */
  private readonly leaseCalls = new Map<string, number>();
  private readonly opening = new Map<string, Promise<OpenLease>>();
  private readonly draining = new Set<OpenLease>();
  private readonly closing = new Set<Promise<void>>();
  private readonly holder = `${hostname()}:${process.pid}:${newId('inst').slice(-8)}`;
  private readonly lease: WalletLeaseOptions;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: {
      orm: Orm;
      clock: Clock;
      prices: Record<string, number>;
      store?: WalletStore;
      lease?: Partial<WalletLeaseOptions>;
      logger?: { warn(object: object, message: string): void };
    },
  ) {
    this.store = deps.store ?? new PostgresWalletStore(deps.orm);
    this.lease = { ...DEFAULT_WALLET_LEASE, ...deps.lease };
  }

  private readonly store: WalletStore;

  priceOf(item: string): number {
    return this.deps.prices[item] ?? 0;
  }

  /** Holds the price of a call before its work; 402 insufficient_balance when the wallet cannot pay it. */
  async reserve(projectId: string, item: string): Promise<Reservation> {
    const amountMinor = this.priceOf(item);
    let lease = this.leases.get(projectId);
    if (lease && Date.now() >= lease.drawUntil) this.drainUnused(lease);
    for (;;) {
      // A lease opened for this call is drawn from whatever the time: it was opened just now.
      if (lease && this.canDraw(lease, amountMinor)) {
        lease.heldMinor += amountMinor;
        lease.inFlight += 1;
        lease.lastUsed = Date.now();
        return { lease, item, amountMinor, ended: false };
      }
      if (lease && !lease.draining) this.leaseUsedUp(lease);
      if (lease) this.drain(lease);
      lease = await this.openLease(projectId, amountMinor);
    }
  }

  /** The call failed (late-found bad input, or our side): its price goes back to the lease. */
  async refund(reservation: Reservation): Promise<void> {
    this.end(reservation, 'released');
  }

  /**
   * Records a standalone check's verdict and its charge in one statement (a test key's, unpaid,
   * alone), with the answer of its Idempotency-Key when it has one. If the lease was closed meanwhile (its holder was
   * cut from the database for longer
   * than its grace), the charge is held again from a new lease.
   */
  async recordCheck(
    record: CheckRecordRow,
    reservation: Reservation | null,
    answer: KeyedAnswer | null = null,
  ): Promise<void> {
    if (!reservation) {
      await this.store.recordPaidCheck(record, null, answer);
      return;
    }
    let current = reservation;
    for (;;) {
      // Unknown until the statement answers: a failure may have come after its commit, so the
      // price stays held (closing the lease returns it if no charge was written after all).
      let written: boolean | undefined;
      try {
        written = await this.store.recordPaidCheck(record, this.chargeOf(current), answer);
      } finally {
        this.end(current, written === false ? 'released' : 'spent');
      }
      if (written) return;
      this.drain(current.lease);
      current = await this.reserve(record.projectId, current.item);
    }
  }

  /**
   * Charges a call inside the caller's transaction, for work written in that same transaction (a
   * session), so the charge and what it paid for exist together or not at all.
   */
  async chargedTransaction<T>(
    projectId: string | null,
    item: string,
    paidFor: string,
    work: (em: EntityManager) => Promise<T>,
  ): Promise<T> {
    if (projectId === null) return transaction(this.deps.orm, work);
    for (;;) {
      const reservation = await this.reserve(projectId, item);
      // Released only when nothing was certainly written: the lease was closed, or the work threw
      // (the transaction rolls back, its charge with it). A failed commit may have committed.
      let how: 'spent' | 'released' = 'spent';
      try {
        const outcome = await transaction(this.deps.orm, async (em) => {
          if (!(await this.store.chargeInTransaction(em, this.chargeOf(reservation), paidFor)))
            return { paid: false as const };
          try {
            return { paid: true as const, value: await work(em) };
          } catch (error) {
            how = 'released';
            throw error;
          }
        });
        if (outcome.paid) return outcome.value;
        how = 'released';
        this.drain(reservation.lease);
      } finally {
        this.end(reservation, how);
      }
    }
  }

  /** What the project can spend now: its balance and the unspent part of open leases. */
  async balanceOf(projectId: string): Promise<number | null> {
    return this.store.balanceOf(projectId);
  }

  /**
   * Part of the maintenance sweep: closes leases whose holder died (past their expiry), returning what they did not
   * spend.
   */
  async returnExpiredLeases(): Promise<number> {
    let closed = 0;
    for (const id of await this.store.expiredLeases(this.deps.clock.now(), 1000))
      closed += (await this.store.closeLease(id, this.deps.clock.now())) === null ? 0 : 1;
    return closed;
  }

  /** On shutdown: returns every lease this instance holds (calls still in flight return theirs as they end). */
  async returnLeases(): Promise<void> {
    for (const lease of [...this.leases.values()]) this.drain(lease);
    await Promise.all(this.closing);
  }

  private canDraw(lease: OpenLease, amountMinor: number): boolean {
    return !lease.draining && lease.amountMinor - lease.heldMinor >= amountMinor;
  }

  private chargeOf(reservation: Reservation): LeasedCharge {
    const { lease } = reservation;
    return {
      id: newId('chg'),
      leaseId: lease.id,
      projectId: lease.projectId,
      item: reservation.item,
      amountMinor: reservation.amountMinor,
      currency: lease.currency,
      createdAt: this.deps.clock.now(),
    };
  }

  /** One lease opens at a time per project; calls arriving meanwhile wait for it. */
  private async openLease(projectId: string, minMinor: number): Promise<OpenLease> {
    const pending = this.opening.get(projectId);
    if (pending) return pending;
    const opening = (async () => {
      const id = newId('lse');
      const now = this.deps.clock.now();
      const expiresAt = new Date(now.getTime() + (this.lease.drawSeconds + this.lease.graceSeconds) * 1000);
      const calls = this.leaseCalls.get(projectId) ?? this.lease.calls;
      const grant = await this.store.openLease({
        id,
        projectId,
        wantMinor: Math.max(minMinor, minMinor * calls),
        minMinor,
        holder: this.holder,
        expiresAt,
        now,
      });
      if (!grant) throw insufficientBalance(minMinor);
      const started = Date.now();
      const lease: OpenLease = {
        id,
        projectId,
        currency: grant.currency,
        amountMinor: grant.amountMinor,
        heldMinor: 0,
        inFlight: 0,
        drawUntil: started + this.lease.drawSeconds * 1000,
        openedAt: started,
        lastUsed: started,
        draining: false,
      };
      this.leases.set(projectId, lease);
      this.watchIdle();
      return lease;
    })().finally(() => this.opening.delete(projectId));
    this.opening.set(projectId, opening);
    return opening;
  }

  /**
   * A lease ran out of calls. Used up within a tenth of its drawing time, the next one holds twice
   * as many (up to maxCalls): a busy instance then takes a block every second or so instead of
   * one per 50 calls, and a quiet project's money is not tied up in large blocks.
   */
  private leaseUsedUp(lease: OpenLease): void {
    if (Date.now() - lease.openedAt >= this.lease.drawSeconds * 100) {
      this.drainUnused(lease);
      return;
    }
    const calls = this.leaseCalls.get(lease.projectId) ?? this.lease.calls;
    this.leaseCalls.set(lease.projectId, Math.min(this.lease.maxCalls, calls * 2));
  }

  /** A lease that lasted (idle, or past its drawing time): the next one holds `calls` again. */
  private drainUnused(lease: OpenLease): void {
    this.leaseCalls.delete(lease.projectId);
    this.drain(lease);
  }

  /** No more calls draw from it; it closes once the last one ends. */
  private drain(lease: OpenLease): void {
    if (lease.draining) return;
    lease.draining = true;
    if (this.leases.get(lease.projectId) === lease) this.leases.delete(lease.projectId);
    this.draining.add(lease);
    if (lease.inFlight === 0) this.close(lease);
  }

  /**
   * A call's price is spent (its charge was written, or may have been) or released back to the
   * lease (certainly not written); once. Holding too much only returns it when the lease closes,
   * which counts the charges in the database; releasing too much could spend it twice.
   */
  private end(reservation: Reservation, how: 'spent' | 'released'): void {
    if (reservation.ended) return;
    reservation.ended = true;
    const { lease } = reservation;
    if (how === 'released') lease.heldMinor -= reservation.amountMinor;
    lease.inFlight -= 1;
    if (lease.draining && lease.inFlight === 0) this.close(lease);
  }

  /** Returns a lease's unspent part; if the database is away, the sweep returns it once it expires. */
  private close(lease: OpenLease): void {
    if (!this.draining.delete(lease)) return;
    const closing = this.store
      .closeLease(lease.id, this.deps.clock.now())
      .then(() => undefined)
      .catch((error: unknown) =>
        this.deps.logger?.warn(
          { err: error, lease: lease.id },
          'returning a wallet lease failed; the sweep returns it when it expires',
        ),
      )
      .finally(() => this.closing.delete(closing));
    this.closing.add(closing);
  }

  /** Returns leases unused for `idleSeconds` or past drawing, so money does not sit in an idle instance. */
  private watchIdle(): void {
    if (this.idleTimer) return;
    this.idleTimer = setInterval(() => {
      const now = Date.now();
      for (const lease of [...this.leases.values()]) {
        if (lease.inFlight === 0 && (now - lease.lastUsed >= this.lease.idleSeconds * 1000 || now >= lease.drawUntil))
          this.drainUnused(lease);
      }
      if (this.leases.size === 0) {
        clearInterval(this.idleTimer);
        this.idleTimer = undefined;
      }
    }, 500);
    this.idleTimer.unref();
  }

  /**
   * Part of the maintenance sweep: refunds charges that never settled, which only versions before
   * wallet leases wrote (a debit before the work; the process died before the record). Kept so an
   * upgrade over such a crash still gives the money back. Returns how many.
   */
  async refundAbandoned(): Promise<number> {
    const cutoff = new Date(this.deps.clock.now().getTime() - ABANDONED_AFTER_MS);
    let refunded = 0;
    // A settled charge is left alone: what it paid for was recorded (e.g. a commit whose answer was lost).
    for (const id of await this.store.abandonedCharges(cutoff, 1000))
      refunded += (await this.store.refundCharge(id)) ? 1 : 0;
    return refunded;
  }

  /** Adds money to a wallet; returns the new balance in currency units. */
  async topUp(projectId: string, amount: number): Promise<number> {
    const minor = Math.round(amount * 100);
    if (!Number.isFinite(minor) || minor <= 0 || minor > 1e11)
      throw new DomainError('validation_error', 'amount must be a positive number of currency units');
    if (!(await this.store.credit(projectId, minor))) throw new DomainError('not_found', 'project not found');
    return ((await this.store.balanceOf(projectId)) ?? 0) / 100;
  }

  async listCharges(projectId: string, options: { limit?: number } = {}) {
    const charges = await this.store.charges(projectId, Math.min(options.limit ?? 100, 500));
    return charges.map(chargeView);
  }
}
