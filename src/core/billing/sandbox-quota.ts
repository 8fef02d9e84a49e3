import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { preparedQuery } from '../db/prepared.js';
import { DomainError } from '../errors.js';

// A project's test calls that run real models, counted per UTC day in PostgreSQL (so every
// instance shares one count). One statement takes a unit only while the day has one left: two
// calls racing for the last unit cannot both get it.
const SPEND = `
insert into sandbox_usage (project_id, day, used) values ($1, $2::date, 1)
on conflict (project_id, day) do update set used = sandbox_usage.used + 1 where sandbox_usage.used < $3::int
returning used`;

/** The start of the next UTC day: when a spent sandbox quota is whole again. */
export function nextUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** What checks and sessions need of the quota (a fake in the fast tests). */
export interface SandboxAllowance {
  spend(projectId: string): Promise<void>;
}

export class SandboxQuota implements SandboxAllowance {
  constructor(
    private readonly deps: { orm: Orm; clock: Clock },
    /** Model runs a project's test keys get per UTC day. */
    readonly dailyLimit: number,
  ) {}

  /** Takes one unit of today's quota, or answers 429 `rate_limited` until the next UTC day. */
  async spend(projectId: string): Promise<void> {
    const now = this.deps.clock.now();
    const day = now.toISOString().slice(0, 10);
    const rows =
      this.dailyLimit > 0
        ? await preparedQuery<{ used: number }>(this.deps.orm, 'sandbox_quota_spend', SPEND, [
            projectId,
            day,
            this.dailyLimit,
          ])
        : [];
    if (rows.length > 0) return;
    const resetsAt = nextUtcDay(now);
    throw new DomainError(
      'rate_limited',
      `the sandbox's ${this.dailyLimit} checks with real models for today are used up: send Verity-Test-Outcome to force an outcome (free, unlimited), or use a live key`,
      {
        retryAfterSeconds: Math.max(1, Math.ceil((resetsAt.getTime() - now.getTime()) / 1000)),
        data: { reason: 'sandbox_quota', limit: this.dailyLimit, resets_at: resetsAt.toISOString() },
      },
    );
  }
}
