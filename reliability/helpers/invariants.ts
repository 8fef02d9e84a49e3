import pg from 'pg';

// What "nothing half-written" means for sessions and the webhook outbox, read straight from
// PostgreSQL after a fault. Each query lists the offending ids, so a failure names them.

const TERMINAL = ['APPROVED', 'DECLINED', 'EXPIRED', 'ABANDONED'];

export interface SessionInvariants {
  sessions: number;
  terminal: number;
  /** Sessions without exactly one creation event (null -> NOT_STARTED). */
  withoutCreationEvent: string[];
  /** Sessions whose status is not the `to` of their latest timeline event. */
  statusNotInTimeline: string[];
  /** Terminal sessions without the outbox event announcing their status. */
  terminalWithoutWebhook: string[];
  /** Terminal sessions that still hold sealed work (portrait, read fields). */
  terminalWithWork: string[];
  /** Sessions with recorded checks but no move after creation (checks written without their step). */
  checksWithoutMove: string[];
}

export async function withDatabase<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const ids = async (client: pg.Client, sql: string, params: unknown[] = []) =>
  (await client.query<{ id: string }>(sql, params)).rows.map((row) => row.id);

export function sessionInvariants(databaseUrl: string): Promise<SessionInvariants> {
  return withDatabase(databaseUrl, async (client) => {
    const counts = await client.query<{ sessions: string; terminal: string }>(
      `select count(*) as sessions, count(*) filter (where status = any($1)) as terminal from verification_session`,
      [TERMINAL],
    );
    return {
      sessions: Number(counts.rows[0]!.sessions),
      terminal: Number(counts.rows[0]!.terminal),
      withoutCreationEvent: await ids(
        client,
        `
        select s.id from verification_session s
        where (select count(*) from session_event e where e.session_id = s.id and e.from_status is null and e.to_status = 'NOT_STARTED') <> 1`,
      ),
      statusNotInTimeline: await ids(
        client,
        `
        select s.id from verification_session s
        where s.status is distinct from (select e.to_status from session_event e where e.session_id = s.id order by e.id desc limit 1)`,
      ),
      terminalWithoutWebhook: await ids(
        client,
        `
        select s.id from verification_session s
        where s.status = any($1) and not exists (select 1 from webhook_event w where w.session_id = s.id and w.type = 'verification.' || lower(s.status))`,
        [TERMINAL],
      ),
      terminalWithWork: await ids(
        client,
        `select id from verification_session where status = any($1) and work_sealed is not null`,
        [TERMINAL],
      ),
      checksWithoutMove: await ids(
        client,
        `
        select s.id from verification_session s
        where exists (select 1 from session_check c where c.session_id = s.id) and s.status = 'NOT_STARTED'`,
      ),
    };
  });
}

/** Outbox events that have somewhere to go: id, session, state. */
export function outboxEvents(
  databaseUrl: string,
  where = 'true',
  params: unknown[] = [],
): Promise<{ id: string; session_id: string; state: string; attempts: number }[]> {
  return withDatabase(
    databaseUrl,
    async (client) =>
      (
        await client.query(
          `select id, session_id, state, attempts from webhook_event where url is not null and (${where}) order by created_at`,
          params,
        )
      ).rows,
  );
}

/** The problems found, as readable lines (empty when everything holds). */
export function violations(found: SessionInvariants): string[] {
  const lines: string[] = [];
  for (const [name, list] of Object.entries(found))
    if (Array.isArray(list) && list.length) lines.push(`${name}: ${list.length} (${list.slice(0, 5).join(', ')})`);
  return lines;
}

/**
 * A project's money, counted two ways that must agree: what it can spend (its row and the unspent
 * part of open wallet leases) plus every charge not refunded; the row's balance alone, never
 * below zero; and the open leases already past their expiry (a dead holder's, not yet swept).
 */
export function walletFacts(
  databaseUrl: string,
  projectId: string,
): Promise<{ total: number; rowBalance: number; openLeases: number; expiredOpenLeases: number }> {
  return withDatabase(databaseUrl, async (client) => {
    const { rows } = await client.query(
      `select (select balance_minor from wallet where project_id = $1) + (select coalesce(sum(amount_minor), 0) from charge where project_id = $1 and not refunded) as total,
              (select balance_minor from project where id = $1) as row_balance,
              (select count(*) from wallet_lease where project_id = $1 and closed_at is null) as open_leases,
              (select count(*) from wallet_lease where project_id = $1 and closed_at is null and expires_at < now()) as expired_open_leases`,
      [projectId],
    );
    return {
      total: Number(rows[0].total),
      rowBalance: Number(rows[0].row_balance),
      openLeases: Number(rows[0].open_leases),
      expiredOpenLeases: Number(rows[0].expired_open_leases),
    };
  });
}

/**
 * Charges a fault left unsettled: not refunded and not linked to what they paid for. A charge is
 * written with what it paid for (a session, a check record), so none may be left.
 */
export function unsettledCharges(databaseUrl: string): Promise<{ sessions: number; checks: number }> {
  return withDatabase(databaseUrl, async (client) => {
    const { rows } = await client.query(
      `select count(*) filter (where item = 'session') as sessions, count(*) filter (where item <> 'session') as checks from charge where not refunded and check_id is null`,
    );
    return { sessions: Number(rows[0].sessions), checks: Number(rows[0].checks) };
  });
}
