// The pages a person sees while signing in to an application through Verity: sign in, sign up,
// consent, and messages. Server-rendered from web/templates, without scripts, styled by the design
// system's stylesheet (web/design).
import type { DomainError } from '../core/errors.js';
import { UI_LOCALES_SUPPORTED } from '../core/oidc/ui-locales.js';
import { renderPage } from './assets.js';

/**
 * What each scope reveals, as the scope rules enforce it: `/licenses` needs no scope of its own
 * (the contract declares none), so any sign-in reveals the licences verified on the account, and
 * the consent page says so under `openid`; `doctor_license` adds nothing the app can read today.
 */
export const SCOPE_TEXT: Record<string, string> = {
  openid:
    'Know who you are (your Verity account id) and see the professional licences verified on your account: type, state, status and expiry',
  profile: 'Your name and email address',
  verifications: 'Whether your identity and humanity are verified (yes or no, never the documents)',
  doctor_license:
    'Ask about your professional licences (they are already shown with the first item; nothing more is shared)',
  zkp: 'Proofs about you that reveal no raw data',
  mcp: 'Act for you as an assistant (MCP): read whether you are verified and your licences, present proofs of your age or a licence to verifiers it names, and start verification sessions for you. Each action is listed on your account page (/account/agents), where you can revoke it',
};

/**
 * A login page: web/templates/{name}.html in the layout, titled "{title} · Verity", in `lang` (only English is written
 * today).
 */
export function page(
  name: string,
  title: string,
  view: Record<string, unknown>,
  lang: string = UI_LOCALES_SUPPORTED[0],
): string {
  return renderPage(name, { ...view, title: `${title} · Verity`, lang });
}

export function signInPage(options: {
  interaction: string;
  clientName: string;
  csrf: string;
  error?: string;
  notice?: string;
  email?: string;
  locale?: string;
}): string {
  return page(
    'sign-in',
    'Sign in',
    { ...options, email: options.email ?? '', interactionParam: encodeURIComponent(options.interaction) },
    options.locale,
  );
}

/** What sign-up answers, whether the address was new or already had an account (sign-up must not tell which). */
export const signUpNotice = (email: string) =>
  `We sent a message to ${email}. If this address is new to Verity, your account is ready: sign in with the password you chose, and follow the link in the message to confirm your address. If it already had an account, the message says what to do.`;

export function forgotPasswordPage(options: { csrf: string; error?: string; sent?: boolean; email?: string }): string {
  if (options.sent) return page('forgot-password-sent', 'Check your email', { email: options.email ?? 'this address' });
  return page('forgot-password', 'Forgot your password', { ...options, email: options.email ?? '' });
}

export function resetPasswordPage(options: { token: string; csrf: string; error?: string }): string {
  return page('reset-password', 'Choose a new password', options);
}

export function signUpPage(options: {
  interaction: string;
  csrf: string;
  error?: string;
  email?: string;
  name?: string;
  locale?: string;
}): string {
  return page(
    'sign-up',
    'Create your account',
    { ...options, action: '/api/auth/oidc/signup', email: options.email ?? '', name: options.name ?? '' },
    options.locale,
  );
}

export function consentPage(options: {
  interaction: string;
  clientName: string;
  scopes: string[];
  csrf: string;
  locale?: string;
}): string {
  return page(
    'consent',
    'Allow access',
    { ...options, scopes: options.scopes.map((scope) => SCOPE_TEXT[scope] ?? scope) },
    options.locale,
  );
}

/**
 * Asks whether to sign out (RP-initiated logout the browser's sign-in does not vouch for): the
 * form posts the request's parameters back (`fields`) with the CSRF token.
 */
export function signOutPage(options: {
  clientName: string | null;
  fields: { name: string; value: string }[];
  csrf: string;
}): string {
  return page('sign-out', 'Sign out', options);
}

/** What the sign-up page says when the account cannot be created: the field's own reason where there is one. */
export function signUpErrorText(error: DomainError): string {
  if (error.code === 'account_exists') return 'An account with this email exists already: sign in instead.';
  const errors = (error.data as { errors?: Record<string, string> } | undefined)?.errors ?? {};
  if (errors.password) return `Password: ${errors.password}.`;
  if (errors.email) return 'Check your email address.';
  return 'Check your email, and use a password of at least 10 characters.';
}

export function messagePage(title: string, message: string): string {
  return page('message', title, { heading: title, message });
}
