// The hosted page's API (/api/hosted), authenticated by the session token from the link.

export type StepName = 'document' | 'selfie' | 'location' | 'licence';
/** How a step ended (the server's STEP_OUTCOMES); null while it is to do. */
export type StepOutcome = 'passed' | 'failed' | 'review' | 'not_run';
export interface HostedState {
  status: string;
  project_name: string;
  privacy_policy_url?: string | null;
  /** Where a declined person can ask for help (https: or mailto:). */
  support_url?: string | null;
  /** Days the project keeps the photos after the decision (0: deleted at the decision). */
  retention_days?: number;
  /** The project has a logo (GET /session/logo). */
  logo?: boolean;
  finished: boolean;
  steps: { step: StepName; done: boolean; outcome?: StepOutcome | null }[];
  /** A continue-on-your-phone link was claimed: another device works on the session. */
  continued_on_phone?: boolean;
  geofence?: unknown;
  redirect_to?: string | null;
  /** false on a test session (made with a vk_test_ key): the page shows Test mode and the outcome picker. */
  livemode?: false;
}
export interface ApiError {
  code?: string;
  message?: string;
  data?: { step?: string; reason?: string; tries_left?: number };
}
export interface Challenge {
  challenge_id: string;
  gesture: string;
}
export interface LicenceState {
  state_code: string;
  state_name: string;
}
export interface Provider {
  provider_code: string;
  provider_display_name: string;
  credential_name: string;
  required_fields: string[];
}

const API = '/api/hosted';

/**
 * The link's token: it arrives in the URL fragment (never sent to servers), moves to sessionStorage and out of the
 * address bar.
 */
const storeKey = () => 'verity-session-' + location.pathname.split('/').filter(Boolean)[1];

export function takeSessionToken(): string | null {
  if (location.hash.length > 1) {
    sessionStorage.setItem(storeKey(), location.hash.slice(1));
    history.replaceState(null, '', location.pathname);
  }
  return sessionStorage.getItem(storeKey());
}

let token = takeSessionToken();

/** GET without a body, POST with one; the envelope's data, or its error thrown. */
export async function call<T>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(API + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'X-Session-Token': token ?? '', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = await response.json().catch(() => ({ success: false, error: { code: 'network' } }));
  // The envelope's `data` says more about some errors (a step to try again: which, why, tries left).
  if (!envelope.success) throw { ...envelope.error, data: envelope.data } as ApiError;
  return envelope.data as T;
}

/**
 * A "continue on your phone" link carries a one-time code (shl_…): this device spends it for a session token of its
 * own.
 */
export async function claimHandoffLink(): Promise<void> {
  if (!token?.startsWith('shl_')) return;
  const claimed = await call<{ session_token: string }>('/handoff/claim', {});
  token = claimed.session_token;
  sessionStorage.setItem(storeKey(), token);
}

export interface Handoff {
  url: string;
  expires_at: string;
}

/** The project's logo as an object URL (an <img> cannot send the session token itself), or null. */
export async function logoUrl(): Promise<string | null> {
  const response = await fetch(API + '/session/logo', { headers: { 'X-Session-Token': token ?? '' } });
  return response.ok ? URL.createObjectURL(await response.blob()) : null;
}
