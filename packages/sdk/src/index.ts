export { VerityClient, VerityError, waitForSession, type CreateSessionBody, type CreatedSession, type Session, type SessionStatus, type Upload, type VerityClientOptions, type WaitOptions } from './client.js';
export type { components, operations, paths } from './generated/openapi.js';
export { verifyWebhook, type VerifyWebhookInput, type VerifyWebhookResult } from './webhooks.js';
