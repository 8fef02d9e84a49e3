// The pages a person sees while signing in to an application through Verity: sign in, sign up,
// consent, and messages. Plain server-rendered HTML that works on a phone, without scripts.
import type { DomainError } from '../core/errors.js';
import { UI_LOCALES_SUPPORTED } from '../core/oidc/ui-locales.js';

export const escape = (value: string) => value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * What each scope reveals, as the scope rules enforce it: `/licenses` needs no scope of its own
 * (the contract declares none), so any sign-in reveals the licences verified on the account, and
 * the consent page says so under `openid`; `doctor_license` adds nothing the app can read today.
 */
export const SCOPE_TEXT: Record<string, string> = {
  openid: 'Know who you are (your Verity account id) and see the professional licences verified on your account: type, state, status and expiry',
  profile: 'Your name and email address',
  verifications: 'Whether your identity and humanity are verified (yes or no, never the documents)',
  doctor_license: 'Ask about your professional licences (they are already shown with the first item; nothing more is shared)',
  zkp: 'Proofs about you that reveal no raw data',
  mcp: 'Act for you through connected assistants',
};

/** A login page in `lang` (one of UI_LOCALES_SUPPORTED; only English is written today). */
export function page(title: string, body: string, lang: string = UI_LOCALES_SUPPORTED[0]): string {
  return `<!doctype html>
<html lang="${escape(lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · Verity</title>
<style>
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,sans-serif;background:#f3f5f9;color:#1b2330}
main{max-width:26rem;margin:2.5rem auto;padding:1.75rem;background:#fff;border-radius:12px;box-shadow:0 2px 12px rgba(20,30,60,.08)}
h1{font-size:1.35rem;margin:0 0 1rem}label{display:block;font-weight:600;margin:.9rem 0 .3rem}
input{width:100%;padding:.7rem .8rem;font-size:1rem;border:1px solid #c5ccd9;border-radius:8px}
button{margin-top:1.2rem;width:100%;padding:.75rem;font-size:1rem;font-weight:600;border:0;border-radius:8px;background:#2457c5;color:#fff;cursor:pointer}
button.secondary{background:#e6eaf2;color:#1b2330}.row{display:flex;gap:.75rem}.row button{flex:1}
.error{background:#fdecec;color:#8a1c1c;padding:.6rem .8rem;border-radius:8px;margin-bottom:.5rem}
.notice{background:#e8f1fd;color:#17386e;padding:.6rem .8rem;border-radius:8px;margin-bottom:.5rem}
ul{padding-left:1.2rem}.muted{color:#5b6577;font-size:.9rem}a{color:#2457c5}
</style></head><body><main>${body}</main></body></html>`;
}

export function signInPage(options: { interaction: string; clientName: string; csrf: string; error?: string; notice?: string; email?: string; locale?: string }): string {
  return page('Sign in', `
<h1>Sign in to continue to ${escape(options.clientName)}</h1>
${options.error ? `<p class="error" role="alert">${escape(options.error)}</p>` : ''}${options.notice ? `<p class="notice" role="status">${escape(options.notice)}</p>` : ''}
<form method="post" action="/api/auth/oidc/login">
<input type="hidden" name="interaction" value="${escape(options.interaction)}">${csrfField(options.csrf)}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${escape(options.email ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<p class="muted">No account yet? <a href="/api/auth/oidc/signup?interaction=${encodeURIComponent(options.interaction)}">Create one</a> · <a href="/api/auth/oidc/forgot-password">Forgot your password?</a></p>`, options.locale);
}

/** What sign-up answers, whether the address was new or already had an account (sign-up must not tell which). */
export const signUpNotice = (email: string) =>
  `We sent a message to ${email}. If this address is new to Verity, your account is ready: sign in with the password you chose, and follow the link in the message to confirm your address. If it already had an account, the message says what to do.`;

export function forgotPasswordPage(options: { csrf: string; error?: string; sent?: boolean; email?: string }): string {
  if (options.sent) {
    return page('Check your email', `<h1>Check your email</h1><p role="status">If an account uses ${escape(options.email ?? 'this address')}, we sent it a link to choose a new password. The link works once, for 15 minutes.</p>`);
  }
  return page('Forgot your password', `
<h1>Forgot your password?</h1>
${options.error ? `<p class="error" role="alert">${escape(options.error)}</p>` : ''}
<p class="muted">Enter the email address of your Verity account. We will send it a link to choose a new password.</p>
<form method="post" action="/api/auth/oidc/forgot-password">${csrfField(options.csrf)}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${escape(options.email ?? '')}">
<button type="submit">Send the link</button>
</form>`);
}

export function resetPasswordPage(options: { token: string; csrf: string; error?: string }): string {
  return page('Choose a new password', `
<h1>Choose a new password</h1>
${options.error ? `<p class="error" role="alert">${escape(options.error)}</p>` : ''}
<form method="post" action="/api/auth/oidc/reset-password">
<input type="hidden" name="token" value="${escape(options.token)}">${csrfField(options.csrf)}
<label for="password">New password</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="10" required>
<button type="submit">Set the new password</button>
</form>
<p class="muted">Setting it signs you out of every application.</p>`);
}

export function signUpPage(options: { interaction: string; csrf: string; error?: string; email?: string; name?: string; locale?: string }): string {
  return page('Create your account', `
<h1>Create your Verity account</h1>
${options.error ? `<p class="error" role="alert">${escape(options.error)}</p>` : ''}
<form method="post" action="/api/auth/oidc/signup">
<input type="hidden" name="interaction" value="${escape(options.interaction)}">${csrfField(options.csrf)}
<label for="name">Name</label><input id="name" name="name" autocomplete="name" value="${escape(options.name ?? '')}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${escape(options.email ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="10" required>
<button type="submit">Create account</button>
</form>`, options.locale);
}

export function consentPage(options: { interaction: string; clientName: string; scopes: string[]; csrf: string; locale?: string }): string {
  const items = options.scopes.map((scope) => `<li>${escape(SCOPE_TEXT[scope] ?? scope)}</li>`).join('');
  return page('Allow access', `
<h1>${escape(options.clientName)} wants to</h1>
<ul>${items}</ul>
<p class="muted">Your date of birth, document number and address are never shared this way.</p>
<form method="post" action="/api/auth/oidc/consent" class="row">
<input type="hidden" name="interaction" value="${escape(options.interaction)}">${csrfField(options.csrf)}
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
<button type="submit" name="decision" value="allow">Allow</button>
</form>`, options.locale);
}

/** What the sign-up page says when the account cannot be created: the field's own reason where there is one. */
export function signUpErrorText(error: DomainError): string {
  if (error.code === 'account_exists') return 'An account with this email exists already: sign in instead.';
  const errors = (error.data as { errors?: Record<string, string> } | undefined)?.errors ?? {};
  if (errors.password) return `Password: ${errors.password}.`;
  if (errors.email) return 'Check your email address.';
  return 'Check your email, and use a password of at least 10 characters.';
}

/** The hidden field every form posting to a route behind requireCsrf (src/web/csrf.ts) carries. */
export const csrfField = (token: string) => `<input type="hidden" name="csrf" value="${escape(token)}">`;

export function messagePage(title: string, message: string): string {
  return page(title, `<h1>${escape(title)}</h1><p>${escape(message)}</p>`);
}
