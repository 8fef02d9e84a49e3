import express, { type Response } from 'express';
import { DomainError } from '../core/errors.js';
import type { Core } from '../core/index.js';
import type { AuthorizeStep } from '../core/oidc/provider.js';
import { UI_LOCALES_SUPPORTED } from '../core/oidc/ui-locales.js';
import { clearSessionCookie, sessionCookie, setSessionCookie, signInFromPage } from './browser-session.js';
import { issueCsrf, requireCsrf } from './csrf.js';
import {
  consentPage,
  forgotPasswordPage,
  messagePage,
  resetPasswordPage,
  signInPage,
  signUpErrorText,
  signUpNotice,
  signUpPage,
} from './login-pages.js';
import { caseSensitiveRouter } from '../http/router.js';
import { allowFormRedirect } from '../http/security-headers.js';

// The pages a person meets while an application signs them in through Verity: sign in, consent,
// sign up, the mailed email confirmation and the password reset. Forms with CSRF tokens, answered
// in HTML; the protocol endpoints they serve (authorize, token, ...) are in src/rest/routes/oidc.ts.

/** The page's language (from the request's `ui_locales`) as a header too. */
const language = (res: Response, locale: string | undefined) =>
  res.setHeader('Content-Language', locale ?? UI_LOCALES_SUPPORTED[0]);

/** A page that only says something: a request or link that is not valid, or what was done. */
function sendMessagePage(res: Response, status: number, title: string, text: string): void {
  res.status(status).type('html').send(messagePage(title, text));
}

/** The sign-in page (never cached: it holds this browser's CSRF token), in the request's language. */
function sendSignInPage(res: Response, status: number, fields: Omit<Parameters<typeof signInPage>[0], 'csrf'>): void {
  res.setHeader('Cache-Control', 'no-store');
  language(res, fields.locale);
  res
    .status(status)
    .type('html')
    .send(signInPage({ ...fields, csrf: String(res.locals.csrf) }));
}

/** Shows where an authorization request goes next: back to the client, an error, the sign-in or the consent page. */
export function renderAuthorizeStep(res: Response, step: AuthorizeStep, status = 200): void {
  res.setHeader('Cache-Control', 'no-store');
  switch (step.kind) {
    case 'redirect':
      res.redirect(303, step.url);
      return;
    case 'error_page':
      sendMessagePage(res, 400, 'Sign-in request not valid', step.message);
      return;
    case 'login':
      sendSignInPage(res, status, {
        interaction: step.interaction,
        clientName: step.clientName,
        error: step.error,
        locale: step.locale,
      });
      return;
    case 'consent':
      language(res, step.locale);
      res
        .status(status)
        .type('html')
        .send(
          consentPage({
            interaction: step.interaction,
            clientName: step.clientName,
            scopes: step.scopes,
            csrf: String(res.locals.csrf),
            locale: step.locale,
          }),
        );
  }
}

/** What a form of a sign-in request that is gone (expired, or never was) shows. */
const EXPIRED_REQUEST: AuthorizeStep = {
  kind: 'error_page',
  message: 'This sign-in request expired. Go back to the application and start again.',
};

/** The sign-in, consent and account pages under /api/auth/oidc. */
export function signInPagesRouter(core: Core) {
  const router = caseSensitiveRouter();
  const oidc = core.oidc;
  const secure = oidc.issuer.startsWith('https:');
  const form = express.urlencoded({ extended: false, limit: '64kb' });
  const setCookie = (res: Response, value: string) => setSessionCookie(res, value, secure);
  const clearCookie = (res: Response) => clearSessionCookie(res, secure);

  // Every page with a form gives the browser its CSRF token.
  router.use(
    [
      '/api/auth/oidc/login',
      '/api/auth/oidc/signup',
      '/api/auth/oidc/consent',
      '/api/auth/oidc/forgot-password',
      '/api/auth/oidc/reset-password',
    ],
    issueCsrf(secure),
  );

  router.post('/api/auth/oidc/login', form, requireCsrf, async (req, res) => {
    const interaction = String(req.body?.interaction ?? '');
    const request = await oidc.loadInteraction(interaction);
    if (!request) return renderAuthorizeStep(res, EXPIRED_REQUEST);
    allowFormRedirect(res, request.redirectUri);
    const email = String(req.body?.email ?? '');
    const attempt = await signInFromPage(oidc, email, String(req.body?.password ?? ''), req, res);
    const signedIn = attempt.signedIn;
    if (!signedIn) {
      sendSignInPage(res, attempt.status, {
        interaction,
        clientName: request.clientName,
        error: attempt.message,
        email,
        locale: request.uiLocale,
      });
      return;
    }
    setCookie(res, signedIn.cookie);
    renderAuthorizeStep(res, await oidc.nextStep(request, signedIn.session, { freshLogin: true }));
  });

  router.get('/api/auth/oidc/signup', async (req, res) => {
    const interaction = String(req.query.interaction ?? '');
    const request = await oidc.loadInteraction(interaction);
    if (!request) return renderAuthorizeStep(res, EXPIRED_REQUEST);
    language(res, request.uiLocale);
    res.type('html').send(signUpPage({ interaction, csrf: String(res.locals.csrf), locale: request.uiLocale }));
  });

  // Sign-up answers the same for a new and a taken address (the sign-in page with the same notice,
  // 200): the new one gets an account and a verification link, the taken one's owner a notice.
  router.post('/api/auth/oidc/signup', form, requireCsrf, async (req, res) => {
    const interaction = String(req.body?.interaction ?? '');
    const request = await oidc.loadInteraction(interaction);
    if (!request) return renderAuthorizeStep(res, EXPIRED_REQUEST);
    allowFormRedirect(res, request.redirectUri);
    const fields = {
      email: String(req.body?.email ?? ''),
      password: String(req.body?.password ?? ''),
      name: String(req.body?.name ?? ''),
    };
    try {
      await core.accountRecovery.signUp({
        email: fields.email,
        password: fields.password,
        displayName: fields.name.trim() || undefined,
      });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      language(res, request.uiLocale);
      res
        .status(400)
        .type('html')
        .send(
          signUpPage({
            interaction,
            csrf: String(res.locals.csrf),
            error: signUpErrorText(error),
            email: fields.email,
            name: fields.name,
            locale: request.uiLocale,
          }),
        );
      return;
    }
    const email = fields.email.trim().toLowerCase();
    sendSignInPage(res, 200, {
      interaction,
      clientName: request.clientName,
      notice: signUpNotice(email),
      email,
      locale: request.uiLocale,
    });
  });

  // The link mailed at sign-up: following it proves the address (idempotent, so a mail scanner
  // that opens it first does no harm).
  router.get('/api/auth/oidc/verify-email', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    if (await core.accountRecovery.verifyEmail(String(req.query.token ?? ''))) {
      sendMessagePage(
        res,
        200,
        'Email address confirmed',
        'Thank you: your email address is confirmed. You can close this page.',
      );
      return;
    }
    sendMessagePage(
      res,
      400,
      'Link not valid',
      'This confirmation link is invalid, used or expired (links work for 24 hours). Choosing a new password with "Forgot your password?" on the sign-in page also confirms your address.',
    );
  });

  // Password reset: the form asks for the address and answers the same whether it has an account.
  router.get('/api/auth/oidc/forgot-password', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.type('html').send(forgotPasswordPage({ csrf: String(res.locals.csrf) }));
  });
  router.post('/api/auth/oidc/forgot-password', form, requireCsrf, async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const email = String(req.body?.email ?? '');
    try {
      await core.accountRecovery.requestReset({ email });
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'validation_error') throw error;
      res
        .status(400)
        .type('html')
        .send(forgotPasswordPage({ csrf: String(res.locals.csrf), error: 'Check your email address.', email }));
      return;
    }
    res
      .type('html')
      .send(forgotPasswordPage({ csrf: String(res.locals.csrf), sent: true, email: email.trim().toLowerCase() }));
  });

  const deadResetLink = (res: Response) =>
    sendMessagePage(
      res,
      400,
      'Link not valid',
      'This password reset link is invalid, used or expired (links work once, for 15 minutes). Ask for a new one with "Forgot your password?" on the sign-in page.',
    );
  router.get('/api/auth/oidc/reset-password', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const token = String(req.query.token ?? '');
    if (!(await core.accountRecovery.resetLinkUsable(token))) return void deadResetLink(res);
    res.type('html').send(resetPasswordPage({ token, csrf: String(res.locals.csrf) }));
  });
  router.post('/api/auth/oidc/reset-password', form, requireCsrf, async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const token = String(req.body?.token ?? '');
    try {
      await core.accountRecovery.resetPassword(token, { password: String(req.body?.password ?? '') });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      if (error.code === 'invalid_token') return void deadResetLink(res);
      res
        .status(400)
        .type('html')
        .send(resetPasswordPage({ token, csrf: String(res.locals.csrf), error: signUpErrorText(error) }));
      return;
    }
    // This browser's session ended with every other one: clear its cookie too.
    clearCookie(res);
    sendMessagePage(
      res,
      200,
      'Password changed',
      'Your password is changed and you are signed out of every application. Go back to the application and sign in with the new password.',
    );
  });

  router.post('/api/auth/oidc/consent', form, requireCsrf, async (req, res) => {
    const interaction = String(req.body?.interaction ?? '');
    const session = await oidc.session(sessionCookie(req));
    // Without a session the answer is the sign-in page, whose form ends at the client too.
    const request = session ? null : await oidc.loadInteraction(interaction);
    if (request) allowFormRedirect(res, request.redirectUri);
    renderAuthorizeStep(res, await oidc.decide(interaction, session, req.body?.decision === 'allow'));
  });
  return router;
}
