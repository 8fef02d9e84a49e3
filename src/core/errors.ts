// The error catalog of the service specification as one typed table: code -> HTTP status and
// default message. Every front (REST, GraphQL, tRPC, pages) answers errors from this table.
//
// `status` is the status a front uses by default; `also` lists the other statuses the spec allows
// for that code (a DomainError may pick one of them, e.g. invalid_grant as 401).

export interface CatalogEntry {
  status: number;
  also?: readonly number[];
  message: string;
}

/** Codes with status and meaning exactly as the spec's "Code catalog" table gives them. */
const specCatalog = {
  access_denied: { status: 403, message: 'user declined or app not permitted' },
  account_dob_unavailable: { status: 422, message: 'account has no verified date of birth' },
  account_not_found: { status: 404, message: 'no account for that token' },
  activation_failed: { status: 500, also: [503], message: 'activation failed' },
  already_exists: { status: 409, message: 'end-to-end encryption already active for the device' },
  already_paired: { status: 409, message: 'device already paired with keys' },
  app_default_protected: { status: 422, message: 'default app cannot be deleted' },
  back_image_not_found: { status: 404, message: 'back image missing' },
  cache_clear_failed: { status: 400, message: 'clearing caches failed' },
  callback_not_allowed: { status: 422, message: 'callback not an approved HTTPS destination' },
  challenge_expired: { status: 400, message: 'liveness instruction expired' },
  challenge_required: { status: 400, message: 'device must complete the challenge flow before login' },
  client_not_found: { status: 404, message: 'client missing' },
  code_expired: { status: 410, message: 'one-time code expired' },
  database_error: { status: 500, message: 'storing device keys failed' },
  decrypt_failed: { status: 500, message: 'managed payload could not be opened' },
  deletion_failed: { status: 500, message: 'account deletion failed' },
  denied: { status: 403, message: 'user denied the request' },
  device_already_paired: { status: 409, message: 'device already paired' },
  device_key_unknown: { status: 410, message: 'browser device key no longer registered' },
  device_mismatch: { status: 400, message: 'device_id does not match' },
  device_not_found: { status: 404, message: 'device not registered or not linked' },
  empty_face_feature: { status: 400, message: 'empty face feature' },
  engine_unreachable: { status: 503, message: 'verification engine did not respond' },
  expired: { status: 410, message: 'request expired' },
  face_feature_extraction_failed: { status: 400, message: 'face features not extracted' },
  face_match_failed: { status: 500, message: 'face match failed' },
  face_match_unavailable: { status: 502, message: 'selfie could not be verified now' },
  face_mismatch: { status: 403, message: 'face did not match' },
  face_not_enrolled: { status: 409, message: 'no face enrolled on account' },
  face_not_matched: { status: 403, message: 'face does not match logged-in user' },
  face_not_verified: { status: 403, message: 'face not verified for tracking id' },
  face_required: { status: 409, message: 'face check required to release identity data' },
  face_rescan_required: { status: 422, message: 'face not confidently recognised, rescan' },
  feature_extraction_failed: { status: 400, message: 'feature extraction failed' },
  feature_failed: { status: 502, message: 'feature extraction failed' },
  forbidden: { status: 403, message: 'invalid internal auth' },
  frames_required: { status: 400, message: 'a 3 to 8 frame burst is needed' },
  front_image_id_required: { status: 400, message: 'front_image_id required' },
  front_image_not_found: { status: 404, message: 'front image missing' },
  idempotency_in_progress: { status: 409, message: 'request with this Idempotency-Key still processing' },
  idempotency_key_reused: { status: 422, message: 'Idempotency-Key reused with a different body' },
  identity_locked: { status: 403, message: 'verified identity; only email and phone changeable' },
  image_not_found: { status: 404, message: 'image missing' },
  image_too_large: { status: 413, message: 'photo over 20 MB' },
  insufficient_scope: { status: 403, message: 'token lacks a required scope (openid needed for OIDC resource calls)' },
  invalid_activation: { status: 404, message: 'activation link invalid or expired' },
  invalid_api_key: { status: 401, message: 'invalid verification API key' },
  invalid_challenge: { status: 403, message: 'challenge invalid, expired or signature failed' },
  invalid_challenge_result: { status: 403, message: 'invalid challenge result' },
  invalid_client: { status: 401, message: 'wrong client_id/client_secret or app inactive' },
  invalid_client_metadata: { status: 400, message: 'client_name must be 1 to 120 characters' },
  invalid_config: { status: 500, message: 'agent key not configured' },
  invalid_date: { status: 400, message: 'invalid expire_at format' },
  invalid_feature: { status: 400, message: 'invalid face vector' },
  invalid_frames: { status: 400, message: 'live verification needs at least 3 frames; one selfie for single mode' },
  invalid_grant: {
    status: 400,
    also: [401],
    message: 'code or refresh token expired, used, or issued to another client',
  },
  invalid_image: { status: 400, also: [422], message: 'a selfie is required' },
  invalid_recovery_phrases: { status: 403, message: 'invalid recovery phrases' },
  invalid_redirect_uri: { status: 400, message: 'redirect_uris non-empty array required' },
  invalid_request: { status: 400, also: [401, 404, 422], message: 'required parameter missing or malformed' },
  invalid_scope: { status: 400, message: 'scope not enabled for the app' },
  invalid_session: { status: 400, message: 'session has no user reference' },
  invalid_state: { status: 409, message: 'share request already decided' },
  invalid_status: { status: 400, message: 'invalid status' },
  invalid_token: { status: 401, also: [403], message: 'token missing or expired' },
  kyc_required: { status: 400, message: 'ID verification needed before licence verification' },
  license_not_found: { status: 400, also: [404], message: 'licence not found' },
  limit_reached: { status: 422, message: 'vault item limit reached' },
  liveness_unavailable: { status: 502, message: 'selfie could not be checked now' },
  logo_invalid: { status: 422, message: 'logo must be an image data URL' },
  logo_too_large: { status: 422, message: 'logo too large' },
  misconfigured: { status: 500, message: 'invalid signing key' },
  missing_dob: { status: 400, message: 'date of birth required (dob or run id-verification first)' },
  missing_document: { status: 400, message: 'upload a selfie before liveness' },
  missing_parameter: { status: 400, message: 'provide svc_id or vendor_data' },
  no_existing_e2e: { status: 400, message: 'no existing encryption keys' },
  no_face: { status: 422, message: 'no usable face in selfie' },
  no_images_provided: { status: 400, message: 'at least one of front or back image required' },
  no_reusable_record: { status: 400, message: 'no reusable verification on file' },
  no_verification: { status: 404, message: 'app has no verification provisioned' },
  not_found: { status: 404, message: 'resource or user not found' },
  not_linked: { status: 400, message: 'sign in before reusing identity' },
  otp_expired: { status: 410, message: 'OTP expired' },
  otp_invalid: { status: 400, message: 'invalid OTP' },
  otp_not_found: { status: 404, message: 'invalid OTP' },
  pairing_already_exchanged: { status: 409, message: 'tokens already issued for pairing' },
  pairing_already_fulfilled: { status: 409, message: 'pairing already fulfilled' },
  pairing_expired: { status: 410, message: 'pairing expired' },
  pairing_incomplete: { status: 400, message: 'second device public key missing' },
  pairing_not_found: { status: 404, message: 'pairing not found' },
  pairing_not_fulfilled: { status: 400, message: 'pairing not yet complete' },
  rate_limited: { status: 429, message: 'back off until window resets' },
  recovery_phrases_not_set: { status: 404, message: 'recovery phrases not set' },
  registration_failed: { status: 500, message: 'registration failed' },
  required_face_checks_incomplete: { status: 409, message: 'approval needs passed ID, liveness and face match' },
  requires_login: { status: 401, message: 'user must authenticate first' },
  reuse_not_available: { status: 400, message: 'account no longer verified, verify fully' },
  review_not_pending: { status: 409, message: 'only IN_REVIEW sessions can be manually decided' },
  server_error: { status: 500, message: 'unexpected error' },
  session_closed: { status: 409, message: 'session already closed' },
  session_expired: { status: 410, message: 'session expired' },
  sso_error: { status: 500, message: 'sign-in failed' },
  sso_exchange_failed: { status: 401, message: 'sign-in could not be completed' },
  sso_no_identity: { status: 422, message: 'no account identity returned' },
  sso_not_configured: { status: 503, message: 'single sign-in not configured' },
  step_retry_required: { status: 422, message: 'this step failed for a reason the person can fix: ask again' },
  tamper_detected: { status: 409, message: 'payload_hash mismatch with attestation' },
  token_error: { status: 500, message: 'token could not be issued' },
  token_issuance_failed: { status: 500, message: 'token issuance failed' },
  token_missing: { status: 401, message: 'session token required' },
  too_many_attempts: { status: 429, message: 'too many failed face checks' },
  too_many_frames: { status: 400, message: 'at most 8 frames' },
  tracking_already_used: { status: 403, message: 'tracking id used' },
  tracking_expired: { status: 403, message: 'tracking id expired' },
  tracking_not_found: { status: 404, message: 'tracking id unknown' },
  unauthenticated: { status: 401, message: 'account not found' },
  unauthorized: { status: 401, also: [403], message: 'not authorized' },
  unauthorized_client: { status: 403, message: 'app not active' },
  unauthorized_domain: { status: 403, message: 'unauthorized domain' },
  unsupported_grant_type: { status: 400, message: 'only authorization_code supported' },
  unsupported_response_type: { status: 400, message: 'only response_type=code supported' },
  user_deleted: { status: 410, message: 'device linked to a deleted account' },
  user_not_found: { status: 400, also: [404], message: 'user not found' },
  valyd_account_mismatch: { status: 403, message: 'verification belongs to a different account' },
  valyd_login_required: { status: 401, message: 'sign in to continue' },
  verification_soft_locked: { status: 423, message: 'verification temporarily locked' },
  wc_error: { status: 400, message: 'upstream API error' },
  workflow_not_found: { status: 404, message: 'workflow id not in this project' },
  wrapped_ku_recovery_not_set: { status: 404, message: 'recovery wrapper not set' },
  wrong_endpoint: { status: 400, message: 'endpoint expects image ids, not uploads' },
  endpoint_removed: { status: 410, message: 'removed legacy endpoint' },
} as const satisfies Record<string, CatalogEntry>;

/**
 * Codes the spec names without a status (its "Codes without a stated status" list, plus
 * `session_not_found`): the status is our choice, documented in docs/checks.md and docs/sessions.md.
 */
const chosenStatus = {
  session_not_found: { status: 404, message: 'wrong or expired session id' },
  endpoint_not_found: { status: 404, message: 'no such endpoint' },
  failed_to_extract_id_portrait_feature: { status: 422, message: 'no usable face in the document portrait' },
  feature_size_mismatch: { status: 400, message: 'face vector has the wrong length' },
  invalid_audience: { status: 401, message: 'token was issued for another audience' },
  invalid_idp_response: { status: 502, message: 'identity provider answered with an invalid response' },
  legacy_ocr_failed: { status: 422, message: 'document text could not be read' },
  misconfigured_oidc_endpoints: { status: 500, message: 'login endpoints are misconfigured' },
  portrait_invalid: { status: 422, message: 'document portrait is not usable' },
  portrait_not_found: { status: 422, message: 'no portrait found on the document' },
  sdk_compare_failed: { status: 500, message: 'face comparison failed' },
  stored_reference_invalid: { status: 409, message: 'stored face reference is not usable' },
  stored_reference_invalid_type: { status: 409, message: 'stored face reference has an unsupported type' },
  unknown_band: { status: 400, message: 'age band could not be parsed' },
  user_has_no_face_reference: { status: 409, message: 'account has no face reference' },
  userinfo_failed: { status: 502, message: 'user information could not be read' },
} as const satisfies Record<string, CatalogEntry>;

/**
 * Codes the spec uses in prose (`validation_error`, `unprocessable`, `missing_identifier`,
 * `internal_error`) or implies by status (402 for an exhausted wallet, 413 for a large body,
 * 415 for a body in a media type the route does not read, 503 while the store is down) without
 * a catalog row.
 */
const implied = {
  validation_error: { status: 400, message: 'request body or parameters are invalid' },
  missing_identifier: { status: 400, message: 'provide svc_id or email' },
  payload_too_large: { status: 413, message: 'request body is too large' },
  unsupported_media_type: {
    status: 415,
    message: 'the body is not in a media type this route reads; send application/json',
  },
  method_not_allowed: { status: 405, message: 'this path does not take that method; see the Allow header' },
  unprocessable: { status: 422, message: 'input could not be processed' },
  insufficient_balance: { status: 402, message: 'wallet balance exhausted' },
  account_exists: { status: 409, message: 'an account with this email already exists' },
  already_active: { status: 409, message: 'the member is already active' },
  deactivated: { status: 409, message: 'the member is deactivated' },
  conflict: { status: 409, message: 'the request conflicts with the current state; read it again' },
  internal_error: { status: 500, message: 'unexpected error; safe to retry with backoff' },
  service_unavailable: { status: 503, message: 'service temporarily unavailable; retry with backoff' },
  // An MCP agent asked for a proof the account cannot give (docs/mcp.md).
  not_verified: { status: 422, message: 'the account cannot prove that claim' },
  // RFC 8707 2: `resource` names no resource this provider serves, or not the one authorized (docs/mcp.md).
  invalid_target: { status: 400, message: 'resource is not one this provider issues tokens for' },
  // The admin GraphQL API's query limits (docs/admin.md: Admin console and ops API).
  query_too_deep: { status: 400, message: 'query nests fields deeper than the limit' },
  query_too_costly: { status: 400, message: 'query would cost more than the limit' },
} as const satisfies Record<string, CatalogEntry>;

/**
 * What the `zkp` scope unlocks (docs/credentials.md): the OpenID4VCI errors the credential
 * endpoint answers (OpenID4VCI 1.0 section 8.3.1.2), and one code per way a presented SD-JWT VC
 * can fail POST /api/v2/credential-presentation.
 */
const credentialCodes = {
  invalid_credential_request: { status: 400, message: 'the credential request is malformed' },
  unknown_credential_configuration: { status: 400, message: 'this issuer offers no such credential configuration' },
  invalid_proof: { status: 400, message: 'the key proof is missing, malformed or not signed by the key it carries' },
  invalid_nonce: {
    status: 400,
    message: 'the key proof carries no live c_nonce: ask the nonce endpoint for a new one',
  },
  credential_request_denied: {
    status: 400,
    message: 'no credential can be issued for this account (no reusable verified identity)',
  },
  invalid_presentation: { status: 400, message: 'the presentation is not an SD-JWT VC' },
  credential_issuer_untrusted: { status: 422, message: 'the credential was not issued by this service' },
  presentation_signature_invalid: { status: 422, message: "the credential's issuer signature does not verify" },
  disclosure_tampered: { status: 422, message: 'a disclosure was altered, added or removed after signing' },
  key_binding_missing: { status: 422, message: 'the presentation carries no key binding JWT' },
  key_binding_invalid: { status: 422, message: "the key binding JWT is not signed by the credential's holder key" },
  presentation_nonce_stale: {
    status: 422,
    message: 'the key binding JWT does not carry your nonce, or was signed too long ago',
  },
  presentation_audience_mismatch: { status: 422, message: 'the key binding JWT was made for another audience' },
  credential_expired: { status: 422, message: 'the credential has expired' },
  credential_revoked: { status: 422, message: 'the credential is revoked (its status list entry is set)' },
} as const satisfies Record<string, CatalogEntry>;

export const errorCatalog = {
  ...specCatalog,
  ...chosenStatus,
  ...implied,
  ...credentialCodes,
} as const satisfies Record<string, CatalogEntry>;

export type ErrorCode = keyof typeof errorCatalog;

export const specCatalogCodes = Object.keys(specCatalog) as ErrorCode[];

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(errorCatalog, code);
}

/** A rule of the service was broken. Fronts map it to a status through the catalog. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly data?: unknown;
  /** For `rate_limited`: seconds until the caller may try again (the Retry-After header). */
  readonly retryAfterSeconds?: number;

  constructor(
    code: ErrorCode,
    message?: string,
    options: { status?: number; data?: unknown; retryAfterSeconds?: number } = {},
  ) {
    const entry: CatalogEntry = errorCatalog[code];
    // An answer the caller's request earns (4xx) is an outcome, not our bug, and is never logged
    // with a stack: capturing one was a twentieth of an unknown path's answer, also for floods
    // of wrong keys. Errors of ours (5xx) keep theirs.
    const stackTraceLimit = Error.stackTraceLimit;
    if ((options.status ?? entry.status) < 500) Error.stackTraceLimit = 0;
    try {
      super(message ?? entry.message);
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    this.name = 'DomainError';
    this.code = code;
    const wanted = options.status;
    if (wanted !== undefined && wanted !== entry.status && !entry.also?.includes(wanted)) {
      throw new Error(`status ${wanted} is not allowed for ${code} by the catalog`);
    }
    this.status = wanted ?? entry.status;
    this.data = options.data;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
