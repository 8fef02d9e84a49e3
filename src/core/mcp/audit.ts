import type { Orm } from '../db/orm.js';
import { preparedQuery, sqlDate } from '../db/prepared.js';

/** One audited tool call, as the account page lists it. */
export interface ToolCallEntry {
  clientId: string;
  clientName: string;
  tool: string;
  outcome: string;
  detail: Record<string, unknown> | null;
  durationMs: number;
  createdAt: Date;
}

/** An agent that may act for the person: a client they allowed the `mcp` scope, and when it last called a tool. */
export interface ConnectedAgent {
  clientId: string;
  clientName: string;
  allowedAt: Date;
  lastCallAt: Date | null;
}

/** What the MCP area asks of the login area's consents (the grant store keeps them). */
export interface AgentConsents {
  forgetConsent(accountId: string, clientId: string): Promise<void>;
}

/**
 * The MCP tables on PostgreSQL: the audit of tool calls (`mcp_tool_call`), and the agents a person
 * allowed (their `oidc_consent` rows holding `mcp`), which the account page lists and revokes
 * through the login area's consents.
 */
export class McpAudit {
  constructor(
    private readonly orm: Orm,
    private readonly consents: AgentConsents,
  ) {}

  async record(entry: {
    accountId: string;
    clientId: string;
    tool: string;
    outcome: string;
    detail: Record<string, unknown> | null;
    durationMs: number;
    at: Date;
  }): Promise<void> {
    await preparedQuery(
      this.orm,
      'mcp_tool_call_add',
      `insert into mcp_tool_call (account_id, client_id, tool, outcome, detail, duration_ms, created_at)
       values ($1, $2, $3, $4, $5, $6, $7)`,
      [
        entry.accountId,
        entry.clientId,
        entry.tool,
        entry.outcome,
        entry.detail === null ? null : JSON.stringify(entry.detail),
        entry.durationMs,
        entry.at,
      ],
    );
  }

  /** How many calls of `tool` the account's agents made since `since`, any outcome (a costly tool's limit). */
  async countSince(accountId: string, tool: string, since: Date): Promise<number> {
    const [row] = await preparedQuery<{ n: string | number }>(
      this.orm,
      'mcp_tool_call_count_since',
      'select count(*) as n from mcp_tool_call where account_id = $1 and tool = $2 and created_at > $3',
      [accountId, tool, since],
    );
    return Number(row?.n ?? 0);
  }

  /** The account's latest tool calls, newest first. */
  async recent(accountId: string, limit: number): Promise<ToolCallEntry[]> {
    const rows = await preparedQuery<{
      client_id: string;
      name: string;
      tool: string;
      outcome: string;
      detail: Record<string, unknown> | null;
      duration_ms: number;
      created_at: Date | string;
    }>(
      this.orm,
      'mcp_tool_call_recent',
      `select t.client_id, c.name, t.tool, t.outcome, t.detail, t.duration_ms, t.created_at
       from mcp_tool_call t join oidc_client c on c.client_id = t.client_id
       where t.account_id = $1 order by t.id desc limit $2`,
      [accountId, limit],
    );
    return rows.map((row) => ({
      clientId: row.client_id,
      clientName: row.name,
      tool: row.tool,
      outcome: row.outcome,
      detail: row.detail,
      durationMs: row.duration_ms,
      createdAt: sqlDate(row.created_at),
    }));
  }

  /** The clients the person allowed the `mcp` scope, newest consent first. */
  async agents(accountId: string): Promise<ConnectedAgent[]> {
    const rows = await preparedQuery<{
      client_id: string;
      name: string;
      created_at: Date | string;
      last_call: Date | string | null;
    }>(
      this.orm,
      'mcp_agents_of_account',
      `select o.client_id, c.name, o.created_at,
         (select max(t.created_at) from mcp_tool_call t
          where t.account_id = o.account_id and t.client_id = o.client_id) as last_call
       from oidc_consent o join oidc_client c on c.client_id = o.client_id
       where o.account_id = $1 and 'mcp' = any(o.scopes) order by o.created_at desc`,
      [accountId],
    );
    return rows.map((row) => ({
      clientId: row.client_id,
      clientName: row.name,
      allowedAt: sqlDate(row.created_at),
      lastCallAt: row.last_call === null ? null : sqlDate(row.last_call),
    }));
  }

  /** Forgets the person's consent to this client: its next authorization asks them again. */
  forgetConsent(accountId: string, clientId: string): Promise<void> {
    return this.consents.forgetConsent(accountId, clientId);
  }
}
