import { z } from 'zod';
import { DomainError } from './errors.js';
import type { Core } from './index.js';
import type { AdminRole } from './tenancy/entities.js';
import {
  callbackUrlInput, createAdminTokenInput, createApiKeyInput, createOidcClientInput, createOrgAppInput, createProjectInput,
  createWorkflowInput, defaultCallbackInput, projectId, revokeApiKeyInput, setCallbackActiveInput,
} from './tenancy/inputs.js';
import type { AdminScope } from './tenancy/service.js';
import { parseInput } from './validation.js';
import { listCheckRecords } from './checks/records.js';
import { setPlanInput } from './roster/inputs.js';

// The operations of the admin API, once. GraphQL resolvers and tRPC procedures are thin fronts
// over this table: the same input schema, the same role rule, the same project isolation.

interface Operation<S extends z.ZodType, R> {
  kind: 'query' | 'mutation';
  role: AdminRole;
  /** Only an unscoped (all-projects) token may run it: creating projects, organizations, tokens. */
  global?: boolean;
  input: S;
  run: (core: Core, input: z.output<S>, scope: AdminScope) => Promise<R>;
}

const op = <S extends z.ZodType, R>(operation: Operation<S, R>) => operation;
const byProject = z.object({ projectId });
const pageOfProject = z.object({ projectId, limit: z.number().int().min(1).max(500).optional() });

export const adminOperations = {
  projects: op({ kind: 'query', role: 'viewer', input: z.object({}), run: (core, _input, scope) => core.tenancy.listProjects(scope) }),
  project: op({ kind: 'query', role: 'viewer', input: byProject, run: (core, input) => core.tenancy.getProject(input.projectId) }),
  apiKeys: op({ kind: 'query', role: 'viewer', input: byProject, run: (core, input) => core.tenancy.listApiKeys(input.projectId) }),
  workflows: op({ kind: 'query', role: 'viewer', input: byProject, run: (core, input) => core.tenancy.listWorkflows(input.projectId) }),
  callbackDestinations: op({ kind: 'query', role: 'viewer', input: byProject, run: (core, input) => core.tenancy.listCallbacks(input.projectId) }),
  oidcClients: op({ kind: 'query', role: 'viewer', input: byProject, run: (core, input) => core.tenancy.listOidcClients(input.projectId) }),
  orgApps: op({ kind: 'query', role: 'viewer', global: true, input: z.object({}), run: (core) => core.tenancy.listOrgApps() }),
  charges: op({ kind: 'query', role: 'viewer', input: pageOfProject, run: (core, input) => core.billing.listCharges(input.projectId, { limit: input.limit }) }),
  checkRecords: op({ kind: 'query', role: 'viewer', input: pageOfProject, run: (core, input) => listCheckRecords(core.orm, input.projectId, input.limit) }),

  createProject: op({ kind: 'mutation', role: 'admin', global: true, input: createProjectInput, run: (core, input) => core.tenancy.createProject(input) }),
  createApiKey: op({ kind: 'mutation', role: 'admin', input: createApiKeyInput, run: (core, input) => core.tenancy.createApiKey(input) }),
  revokeApiKey: op({ kind: 'mutation', role: 'admin', input: revokeApiKeyInput, run: (core, input) => core.tenancy.revokeApiKey(input) }),
  createWorkflow: op({ kind: 'mutation', role: 'admin', input: createWorkflowInput, run: (core, input) => core.tenancy.createWorkflow(input) }),
  approveCallback: op({ kind: 'mutation', role: 'admin', input: callbackUrlInput, run: (core, input) => core.tenancy.approveCallback(input) }),
  setCallbackActive: op({ kind: 'mutation', role: 'admin', input: setCallbackActiveInput, run: (core, input) => core.tenancy.setCallbackActive(input) }),
  setDefaultCallback: op({ kind: 'mutation', role: 'admin', input: defaultCallbackInput, run: (core, input) => core.tenancy.setDefaultCallback(input) }),
  createOidcClient: op({ kind: 'mutation', role: 'admin', input: createOidcClientInput, run: (core, input) => core.tenancy.createOidcClient(input) }),
  topUpWallet: op({
    kind: 'mutation', role: 'admin', global: true, input: z.object({ projectId, amount: z.number().positive().max(1e9) }),
    run: async (core, input) => { await core.billing.topUp(input.projectId, input.amount); return core.tenancy.getProject(input.projectId); },
  }),
  createOrgApp: op({ kind: 'mutation', role: 'admin', global: true, input: createOrgAppInput, run: (core, input) => core.tenancy.createOrgApp(input) }),
  createAdminToken: op({ kind: 'mutation', role: 'admin', global: true, input: createAdminTokenInput, run: (core, input) => core.tenancy.createAdminToken(input) }),
  setPlan: op({ kind: 'mutation', role: 'admin', global: true, input: setPlanInput, run: (core, input) => core.roster.setPlan(input) }),
};

export type AdminOperations = typeof adminOperations;
export type AdminOperationName = keyof AdminOperations;
export type AdminResult<K extends AdminOperationName> = Awaited<ReturnType<AdminOperations[K]['run']>>;

/** Runs one admin operation for a caller: role, then input, then project isolation, then the work. */
export async function runAdminOperation<K extends AdminOperationName>(
  core: Core,
  scope: AdminScope,
  name: K,
  rawInput: unknown,
): Promise<AdminResult<K>> {
  const operation = adminOperations[name] as unknown as Operation<z.ZodType, AdminResult<K>>;
  core.tenancy.requireRole(scope, operation.role);
  if (operation.global && scope.projectId !== null) {
    throw new DomainError('forbidden', 'this needs a token that is not scoped to one project');
  }
  const input = parseInput(operation.input, rawInput ?? {}) as { projectId?: string };
  if (typeof input.projectId === 'string') core.tenancy.requireProjectAccess(scope, input.projectId);
  return operation.run(core, input, scope);
}
