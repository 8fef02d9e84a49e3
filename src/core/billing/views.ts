import { z } from 'zod';
import type { ChargeRow } from './wallet-store.js';

// The billing objects the admin API returns, declared once: the view is typed by its schema and
// test/fast/graphql-wire.test.ts checks the GraphQL Charge type against it.

/** One debit of a project wallet for one billable call. */
export const chargeWire = z.object({
  id: z.string(),
  projectId: z.string(),
  item: z.string().describe('what was bought, e.g. check:age'),
  checkId: z.string().nullable().describe('the check record it paid for (its session_id)'),
  amount: z.number(),
  currency: z.string(),
  refunded: z.boolean(),
  createdAt: z.string(),
});
export type ChargeView = z.output<typeof chargeWire>;

export const chargeView = (charge: ChargeRow): ChargeView => ({
  id: charge.id,
  projectId: charge.projectId,
  item: charge.item,
  checkId: charge.checkId ?? null,
  amount: charge.amountMinor / 100,
  currency: charge.currency,
  refunded: charge.refunded,
  createdAt: charge.createdAt.toISOString(),
});
