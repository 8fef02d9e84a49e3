import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type GraphQLObjectType, isNonNullType } from 'graphql';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { camelName } from '../../src/core/camel.js';
import {
  accountIdentityWire,
  accountNodeWire,
  adminAuditEntryWire,
  checkFailureReasonWire,
  checkRecordWire,
  organizationWire,
  sessionCheckWire,
  sessionEvidenceWire,
  sessionNodeWire,
  statusDayCountWire,
  timeToDecisionWire,
  timelineEntryWire,
  webhookAttemptWire,
  webhookEventWire,
  webhookStatsWire,
  workflowApprovalWire,
} from '../../src/core/ops/views.js';
import { addedMembersWire, billingWire, memberWire } from '../../src/core/roster/views.js';
import { erasedWire, sessionWire } from '../../src/core/sessions/views.js';
import { chargeWire } from '../../src/core/billing/views.js';
import {
  adminScopeWire,
  adminTokenWire,
  apiKeyWire,
  callbackWire,
  oidcClientWire,
  orgAppWire,
  projectWire,
  workflowWire,
} from '../../src/core/tenancy/views.js';
import { graphSchema } from '../../src/graph/schema.js';

// GraphQL object types that describe the same object as a zod wire declaration: the same field
// names (snake_case on the wire, camelCase in GraphQL) and the same nullability, so drift fails here.

/** field name (camelCase) -> may it be absent or null */
function zodFields(schema: z.ZodObject): Record<string, boolean> {
  return Object.fromEntries(
    Object.entries(schema.shape).map(([name, field]) => [
      camelName(name),
      (field as z.ZodType).safeParse(null).success || (field as z.ZodType).safeParse(undefined).success,
    ]),
  );
}

async function graphFields(typeName: string): Promise<Record<string, boolean>> {
  const type = (await graphSchema()).getType(typeName) as GraphQLObjectType | undefined;
  if (!type) throw new Error(`no GraphQL type ${typeName}`);
  return Object.fromEntries(Object.values(type.getFields()).map((field) => [field.name, !isNonNullType(field.type)]));
}

/**
 * Pairs that describe one object; `graphOnly` lists fields the admin API adds on purpose, `wireOnly` (camelCase) those
 * it leaves out.
 */
const PAIRS: { graph: string; wire: string; schema: z.ZodObject; graphOnly?: string[]; wireOnly?: string[] }[] = [
  { graph: 'Member', wire: 'core/roster/views.ts memberWire', schema: memberWire },
  {
    graph: 'SkippedMember',
    wire: 'core/roster/views.ts addedMembersWire.skipped[]',
    schema: addedMembersWire.shape.skipped.element,
  },
  {
    graph: 'Subscription',
    wire: 'core/roster/views.ts billingWire.subscription',
    schema: billingWire.shape.subscription.unwrap(),
  },
  { graph: 'Invoice', wire: 'core/roster/views.ts billingWire.invoices[]', schema: billingWire.shape.invoices.element },
  {
    graph: 'OrganizationBilling',
    wire: 'core/roster/views.ts billingWire',
    schema: billingWire,
    graphOnly: ['organizationId'],
  },
  // checks, timeline, webhookEvents and workflow are resolved fields (batch loaders), not the node's.
  {
    graph: 'Session',
    wire: 'core/ops/views.ts sessionNodeWire',
    schema: sessionNodeWire,
    graphOnly: ['checks', 'timeline', 'webhookEvents', 'workflow', 'approvalBlockers'],
  },
  { graph: 'SessionCheck', wire: 'core/ops/views.ts sessionCheckWire', schema: sessionCheckWire },
  { graph: 'TimelineEntry', wire: 'core/ops/views.ts timelineEntryWire', schema: timelineEntryWire },
  // session and attempts are resolved fields (batch loaders), not the event's.
  {
    graph: 'WebhookEvent',
    wire: 'core/ops/views.ts webhookEventWire',
    schema: webhookEventWire,
    graphOnly: ['session', 'attempts'],
  },
  { graph: 'WebhookAttempt', wire: 'core/ops/views.ts webhookAttemptWire', schema: webhookAttemptWire },
  { graph: 'CheckRecord', wire: 'core/ops/views.ts checkRecordWire', schema: checkRecordWire },
  { graph: 'Account', wire: 'core/ops/views.ts accountNodeWire', schema: accountNodeWire },
  { graph: 'AccountIdentity', wire: 'core/ops/views.ts accountIdentityWire', schema: accountIdentityWire },
  { graph: 'AdminAuditEntry', wire: 'core/ops/views.ts adminAuditEntryWire', schema: adminAuditEntryWire },
  { graph: 'Organization', wire: 'core/ops/views.ts organizationWire', schema: organizationWire },
  { graph: 'Project', wire: 'core/tenancy/views.ts projectWire', schema: projectWire },
  { graph: 'ApiKey', wire: 'core/tenancy/views.ts apiKeyWire', schema: apiKeyWire },
  { graph: 'Workflow', wire: 'core/tenancy/views.ts workflowWire', schema: workflowWire },
  { graph: 'CallbackDestination', wire: 'core/tenancy/views.ts callbackWire', schema: callbackWire },
  { graph: 'OidcClient', wire: 'core/tenancy/views.ts oidcClientWire', schema: oidcClientWire },
  { graph: 'OrgApp', wire: 'core/tenancy/views.ts orgAppWire', schema: orgAppWire },
  { graph: 'AdminToken', wire: 'core/tenancy/views.ts adminTokenWire', schema: adminTokenWire },
  { graph: 'Me', wire: 'core/tenancy/views.ts adminScopeWire', schema: adminScopeWire },
  { graph: 'SessionEvidenceType', wire: 'core/ops/views.ts sessionEvidenceWire', schema: sessionEvidenceWire },
  { graph: 'Charge', wire: 'core/billing/views.ts chargeWire', schema: chargeWire },
  { graph: 'StatusDayCount', wire: 'core/ops/views.ts statusDayCountWire', schema: statusDayCountWire },
  { graph: 'WorkflowApproval', wire: 'core/ops/views.ts workflowApprovalWire', schema: workflowApprovalWire },
  { graph: 'TimeToDecision', wire: 'core/ops/views.ts timeToDecisionWire', schema: timeToDecisionWire },
  { graph: 'CheckFailureReason', wire: 'core/ops/views.ts checkFailureReasonWire', schema: checkFailureReasonWire },
  { graph: 'WebhookStats', wire: 'core/ops/views.ts webhookStatsWire', schema: webhookStatsWire },
  // `erased` is always true on the REST answer; the mutation's payload does not repeat it.
  {
    graph: 'SessionDataErasedType',
    wire: 'core/sessions/views.ts erasedWire',
    schema: erasedWire,
    wireOnly: ['erased'],
  },
];

describe('GraphQL types against their zod wire declarations', () => {
  for (const pair of PAIRS) {
    it(`${pair.graph} matches ${pair.wire}: field names and nullability`, async () => {
      const graph = await graphFields(pair.graph);
      for (const name of pair.graphOnly ?? []) delete graph[name];
      const wire = zodFields(pair.schema);
      for (const name of pair.wireOnly ?? []) delete wire[name];
      expect(graph).toEqual(wire);
    });
  }

  // Two differences on purpose: vendorData is null for ops and "" on the public wire, and livemode
  // is always a boolean for ops while the public wire omits it on live data.
  it('Session and the public session wire agree on nullability where they share a field, vendorData and livemode aside', async () => {
    const graph = await graphFields('Session');
    const wire = zodFields(sessionWire);
    const { sessionId, ...publicFields } = wire;
    expect(sessionId).toBe(false);
    const shared = Object.keys(publicFields).filter((name) => !['vendorData', 'livemode'].includes(name));
    expect(shared.filter((name) => !(name in graph))).toEqual([]);
    for (const name of shared) expect({ name, nullable: graph[name] }).toEqual({ name, nullable: publicFields[name] });
    expect(graph.vendorData).toBe(true);
    expect(wire.vendorData).toBe(false);
    expect({ graph: graph.livemode, wire: wire.livemode }).toEqual({ graph: false, wire: true });
  });
});

/**
 * type-graphql classes that follow no declaration at compile time, and why. Every other object type is
 * declared `implements Mirror<Class, Wire>` and every input (and args) type `implements MirrorInput<Class,
 * z.input<...>>` (src/graph/wire.ts), so a renamed or dropped field fails the type check at the class.
 */
const NOT_MIRRORED: Record<string, string> = {
  Edge: "generic over its node (each node class mirrors its wire); core/ops/page.ts's Edge is generic too",
  Connection: 'generic like Edge; its pageInfo is PageInfoType, which mirrors core/ops/page.ts',
  PageArgs:
    "first and after, spread into each paged operation's zod input (core/ops/inputs.ts `page`), which parses them",
};

const MIRRORS: Record<string, string> = { ObjectType: 'Mirror', InputType: 'MirrorInput', ArgsType: 'MirrorInput' };

/** Each class under src/graph decorated @ObjectType, @InputType or @ArgsType, and whether it mirrors a declaration. */
function graphClasses(): { name: string; file: string; mirrored: boolean }[] {
  const dir = 'src/graph';
  return readdirSync(dir)
    .filter((name) => name.endsWith('.ts'))
    .flatMap((name) => {
      const file = join(dir, name);
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const found: { name: string; file: string; mirrored: boolean }[] = [];
      const visit = (node: ts.Node) => {
        const kind = ts.isClassDeclaration(node)
          ? ts
              .getDecorators(node)
              ?.map((decorator) => decorator.expression.getText(source).split('(')[0]!)
              .find((decorator) => decorator in MIRRORS)
          : undefined;
        if (kind && ts.isClassDeclaration(node)) {
          const mirrored = (node.heritageClauses ?? []).some(
            (clause) =>
              clause.token === ts.SyntaxKind.ImplementsKeyword &&
              clause.types.some((type) => type.expression.getText(source) === MIRRORS[kind]),
          );
          found.push({ name: node.name?.getText(source) ?? '(anonymous)', file, mirrored });
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
      return found;
    });
}

describe('type-graphql classes follow a declaration at compile time', () => {
  it('finds the classes (the check has something to look at)', () => {
    expect(graphClasses().length).toBeGreaterThan(70);
  });

  it('each object type implements Mirror<...> and each input type MirrorInput<...>, or is in NOT_MIRRORED with why', () => {
    const unlisted = graphClasses()
      .filter((found) => !found.mirrored && !(found.name in NOT_MIRRORED))
      .map((found) => `${found.file} ${found.name}`);
    expect(unlisted).toEqual([]);
  });

  it('NOT_MIRRORED names only classes that exist and do not mirror', () => {
    const unmirrored = new Set(
      graphClasses()
        .filter((found) => !found.mirrored)
        .map((found) => found.name),
    );
    expect(Object.keys(NOT_MIRRORED).filter((name) => !unmirrored.has(name))).toEqual([]);
  });
});
