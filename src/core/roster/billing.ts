import type { InvoiceRecord, PlanRecord, RosterStore } from './store.js';
import type { BillingView } from './views.js';

// Seats and billing of a roster. A seat is billed for the time its member is active (seat-time),
// so a member deactivated mid-month costs only the days they were active; trial days are free.
// A month is closed once into an invoice (unique per organization and period).

const DAY_MS = 86_400_000;

/** `YYYY-MM` of a moment, in UTC. */
export function periodOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

/** Start (inclusive) and end (exclusive) of a `YYYY-MM` period, in UTC. */
export function periodBounds(period: string): { start: Date; end: Date } {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return { start: new Date(Date.UTC(year, month - 1, 1)), end: new Date(Date.UTC(year, month, 1)) };
}

const nextPeriod = (period: string) => periodOf(periodBounds(period).end);

export function trialEnd(startedAt: Date, trialDays: number): Date | null {
  return trialDays > 0 ? new Date(startedAt.getTime() + trialDays * DAY_MS) : null;
}

/** Seat-time of a period as seats held and the amount: price x (seat-time / length of the month). */
export async function chargeForPeriod(
  store: RosterStore,
  plan: PlanRecord,
  period: string,
): Promise<{ seats: number; amountMinor: number }> {
  const { start, end } = periodBounds(period);
  const billedFrom = new Date(Math.max(start.getTime(), plan.trialEndsAt?.getTime() ?? 0, plan.startedAt.getTime()));
  const stretches = await store.seatStretches(plan.organizationId, end, billedFrom);
  let seatMs = 0;
  const members = new Set<string>();
  for (const stretch of stretches) {
    const from = Math.max(stretch.startedAt.getTime(), billedFrom.getTime());
    const to = Math.min(stretch.endedAt?.getTime() ?? end.getTime(), end.getTime());
    if (to <= from) continue;
    seatMs += to - from;
    members.add(stretch.memberId);
  }
  return {
    seats: members.size,
    amountMinor: Math.round((plan.pricePerSeatMinor * seatMs) / (end.getTime() - start.getTime())),
  };
}

/** Closes every finished month of every plan that has no invoice yet; returns the invoices made. */
export async function closeFinishedPeriods(
  store: RosterStore,
  now: Date,
): Promise<{ organizationId: number; period: string }[]> {
  const closed: { organizationId: number; period: string }[] = [];
  for (const plan of await store.plans()) {
    const last = await store.lastInvoicedPeriod(plan.organizationId);
    for (
      let period = last ? nextPeriod(last) : periodOf(plan.startedAt);
      periodBounds(period).end <= now;
      period = nextPeriod(period)
    ) {
      const { seats, amountMinor } = await chargeForPeriod(store, plan, period);
      // Two closers at once: the unique (organization, period) lets exactly one insert win.
      if (
        await store.addInvoice({
          organizationId: plan.organizationId,
          period,
          seats,
          amountMinor,
          currency: plan.currency,
          createdAt: now,
        })
      )
        closed.push({ organizationId: plan.organizationId, period });
    }
  }
  return closed;
}

/** The spec's Billing object: the plan, its active seats and its invoices (oldest first) at `now`. */
export function billingView(
  plan: PlanRecord | null,
  seats: number,
  invoices: readonly InvoiceRecord[],
  now: Date,
): BillingView {
  const price = plan ? plan.pricePerSeatMinor / 100 : 0;
  const inTrial = Boolean(plan?.trialEndsAt && plan.trialEndsAt > now);
  return {
    subscription: plan
      ? {
          plan: plan.plan,
          status: inTrial ? 'trialing' : 'active',
          price_per_seat: price,
          in_trial: inTrial,
          trial_ends_at: plan.trialEndsAt?.toISOString() ?? null,
          current_period_end: periodBounds(periodOf(now)).end.toISOString(),
        }
      : null,
    seats,
    estimated_next_charge: Math.round(seats * price * 100) / 100,
    currency: plan?.currency ?? 'USD',
    // What is owed: every closed period (payments are not taken through this service).
    balance: invoices.reduce((sum, invoice) => sum + invoice.amountMinor, 0) / 100,
    invoices: invoices.map((invoice) => ({
      period: invoice.period,
      seats: invoice.seats,
      amount: invoice.amountMinor / 100,
      created_at: invoice.createdAt.toISOString(),
    })),
  };
}
