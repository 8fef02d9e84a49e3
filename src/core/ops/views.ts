import { z } from 'zod';
import { SESSION_STATUSES } from '../vocabulary.js';

// The admin API's session node, declared once: sessionNode is typed by it, SESSION_COLUMNS is
// derived from its keys and test/graphql-wire.test.ts checks the GraphQL Session type against it.
// Why it is not sessionWire (core/sessions/views.ts) in camelCase: ops see what an integrator must
// not (projectId, decision, decidedBy, imagesRetained), the id is `id` (a GraphQL node), and
// vendorData stays null when none was sent (ops filter on it) where the public wire answers "".
// The fields both share are checked for the same nullability by the same test.

export const sessionNodeWire = z.object({
  id: z.string(),
  projectId: z.string(),
  workflowId: z.string(),
  status: z.enum(SESSION_STATUSES),
  features: z.array(z.string()),
  vendorData: z.string().nullable(),
  svcId: z.string().nullable(),
  decision: z.string().nullable(),
  decidedAt: z.string().nullable(),
  decidedBy: z.string().nullable(),
  startedAt: z.string().nullable(),
  expiresAt: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  callback: z.string().nullable(),
  redirectUrl: z.string().nullable(),
  /** False for a test key's session (sandbox: never charged). */
  livemode: z.boolean(),
  /** Review images are kept while the session is open or in review, then for the project's retention. */
  imagesRetained: z.boolean(),
});
export type SessionNode = z.output<typeof sessionNodeWire>;
