export {
  type CheckResult,
  type CreatedSession,
  type CreateSessionBody,
  type ListSessionsQuery,
  type ReviewBody,
  type Session,
  type SessionDecision,
  type SessionStatus,
  VerityClient,
  type VerityClientOptions,
  type WaitOptions,
  waitForSession,
} from './client.js';
export { VerityConnectionError, VerityError } from './errors.js';
export type { components, operations, paths, webhooks } from './generated/openapi.js';
export type {
  ListOperationId,
  OperationId,
  Page,
  PageItem,
  PathParams,
  QueryParams,
  RequestBody,
  RequestParams,
  ResponseData,
  WithFiles,
} from './operations.js';
export type {
  AbortSignalLike,
  Binary,
  BlobLike,
  Fetch,
  FetchInitLike,
  FetchResponseLike,
  HeadersInput,
  Upload,
} from './runtime-types.js';
export type { RequestOptions } from './transport.js';
export { type VerifyWebhookInput, type VerifyWebhookResult, verifyWebhook } from './webhooks.js';
