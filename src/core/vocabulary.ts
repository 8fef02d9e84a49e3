// The domain's named values, in one module with no imports so that the browser code (web/) can
// bundle them: the admin console's filters and labels come from here, never from copied lists.

export const SESSION_STATUSES = [
  'NOT_STARTED',
  'IN_PROGRESS',
  'IN_REVIEW',
  'APPROVED',
  'DECLINED',
  'EXPIRED',
  'ABANDONED',
] as const;
export const WORKFLOW_FEATURES = [
  'id_verification',
  'liveness',
  'face_match',
  'age',
  'credential',
  'location',
] as const;
export const ADMIN_ROLES = ['viewer', 'reviewer', 'admin'] as const;
export const MEMBER_STATUSES = ['invited', 'link_sent', 'active', 'deactivated'] as const;
export const WEBHOOK_EVENT_STATES = [
  'pending',
  'sending',
  'delivered',
  'failed',
  'disabled',
  'no_destination',
] as const;
export const CHECK_TYPES = [
  'id_verification',
  'liveness',
  'face_match',
  'age',
  'credential',
  'kyc_credential',
  'location',
  'antispoof',
  'face_uniqueness',
] as const;
export const CHECK_STATUSES = ['passed', 'failed', 'review'] as const;

/** What a reviewer's approval needs (SessionService.review enforces it; the console says it). */
export const APPROVAL_RULE = 'approval needs passed ID verification (or one sent to review), liveness and face match';

/** Tries a hosted step gets, by default, when it fails for a reason the person can fix (a workflow may say 1 to 10). */
export const DEFAULT_STEP_TRIES = 3;

/** The languages of the hosted verification page (web/hosted/i18n.ts has a catalog for each). */
export const HOSTED_PAGE_LANGUAGES = ['en', 'es', 'fr', 'de'] as const;
