// The hosted page's API (/api/hosted), authenticated by the session token from the link.
// Its answers are typed by the server's wire declarations (type-only imports: nothing of src/ enters the bundle).
import type { ChallengeView } from '../../src/core/checks/views.js';
import type { ProviderView, StateView } from '../../src/core/credentials/views.js';
import type { HandoffClaimWire, HandoffLinkWire, HostedFlowWire, StepOutcome } from '../../src/core/sessions/views.js';

/** The hosted flow's steps (the server's StepName, src/core/sessions/steps/step.ts; the wire types a step a string). */
export type StepName = 'document' | 'selfie' | 'location' | 'licence';
export type { StepOutcome };
/** What the page reads (GET /session, and the answer of start and of each step): the server's hostedFlowWire. */
export type HostedState = Omit<HostedFlowWire, 'steps'> & {
  steps: (HostedFlowWire['steps'][number] & { step: StepName })[];
};
export interface ApiError {
  code?: string;
  message?: string;
  data?: { step?: string; reason?: string; tries_left?: number };
}
export type Challenge = ChallengeView;
export type LicenceState = StateView;
export type Provider = ProviderView;

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
  const claimed = await call<HandoffClaimWire>('/handoff/claim', {});
  token = claimed.session_token;
  sessionStorage.setItem(storeKey(), token);
}

export type Handoff = HandoffLinkWire;

/** The project's logo as an object URL (an <img> cannot send the session token itself), or null. */
export async function logoUrl(): Promise<string | null> {
  const response = await fetch(API + '/session/logo', { headers: { 'X-Session-Token': token ?? '' } });
  return response.ok ? URL.createObjectURL(await response.blob()) : null;
}
