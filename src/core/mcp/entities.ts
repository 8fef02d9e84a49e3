import { BigIntType, Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/** One tool call an agent (an OIDC client with the `mcp` scope) made for a person: shown on their account page. */
@Entity({ tableName: 'mcp_tool_call' })
@Index({ properties: ['accountId', 'id'] })
export class McpToolCall {
  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  /** The account's id (a foreign key in the migration). */
  @Property({ type: 'string', length: 40 })
  accountId!: string;

  /** The agent's OIDC client id (a foreign key in the migration). */
  @Property({ type: 'string', length: 64 })
  clientId!: string;

  @Property({ type: 'string', length: 60 })
  tool!: string;

  /** `ok`, or the error code the call ended with. */
  @Property({ type: 'string', length: 60 })
  outcome!: string;

  /** What the call was about, never raw identity data: the verifier and claim of a proof, a session id. */
  @Property({ type: 'json', nullable: true })
  detail?: Record<string, unknown> | null;

  @Property({ type: 'integer' })
  durationMs!: number;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}
