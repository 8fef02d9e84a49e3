// The roster activation page: the link in an invitation opens it; the person signs in (or signs
// up), takes a selfie with the camera, and becomes an active member of the organization once the
// selfie is live and matches their account's face. Mounted on the base URL at /activate/{token}.

import express, { Router, type Request, type Response } from 'express';
import { DomainError } from '../core/errors.js';
import { invitationForAnotherEmail, invitedEmailMatches } from '../core/roster/service.js';
import type { Core } from '../core/index.js';
import { decodeImageString } from '../rest/input.js';
import { sendData } from '../rest/envelope.js';
import { sessionCookie, setSessionCookie, signInFromPage } from '../rest/routes/oidc.js';
import { issueCsrf, requireCsrf } from './csrf.js';
import { csrfField, escape, messagePage, page, signUpErrorText } from './login-pages.js';

interface Target {
  organizationName: string;
  email: string;
}

function signInPage(token: string, target: Target, csrf: string, options: { error?: string; email?: string } = {}): string {
  const base = `/activate/${encodeURIComponent(token)}`;
  return page('Join your team', `
<h1>Join ${escape(target.organizationName)}</h1>
<p>${escape(target.organizationName)} invited ${escape(target.email)}. Sign in to your Verity account to connect it, then take a selfie.</p>
${options.error ? `<p class="error" role="alert">${escape(options.error)}</p>` : ''}
<form method="post" action="${base}/signin">${csrfField(csrf)}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${escape(options.email ?? target.email)}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<p class="muted">No account yet? <a href="${base}?signup=1">Create one</a></p>`);
}

function signUpPage(token: string, target: Target, csrf: string, options: { error?: string; email?: string; name?: string } = {}): string {
  return page('Create your account', `
<h1>Create your Verity account</h1>
<p>Then take a selfie to join ${escape(target.organizationName)}.</p>
${options.error ? `<p class="error" role="alert">${escape(options.error)}</p>` : ''}
<form method="post" action="/activate/${encodeURIComponent(token)}/signup">${csrfField(csrf)}
<label for="name">Name</label><input id="name" name="name" autocomplete="name" value="${escape(options.name ?? '')}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${escape(options.email ?? target.email)}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="10" required>
<button type="submit">Create account</button>
</form>`);
}

/** The camera step: one frame from getUserMedia, posted as a JPEG data URL; the answer is shown in place. */
function selfiePage(token: string, target: Target, accountEmail: string, nonce: string): string {
  return page('Take a selfie', `
<h1>Join ${escape(target.organizationName)}</h1>
<p>Signed in as ${escape(accountEmail)}. Look at the camera in good light, then take a selfie: it is checked live and against your account's face, and never stored.</p>
<video id="camera" autoplay playsinline muted style="width:100%;border-radius:8px;background:#111"></video>
<button id="capture" type="button" disabled>Take selfie</button>
<p id="result" role="status" aria-live="polite"></p>
<script nonce="${nonce}">
(() => {
  const video = document.getElementById('camera');
  const button = document.getElementById('capture');
  const result = document.getElementById('result');
  navigator.mediaDevices.getUserMedia({ video: { width: 640, height: 480, facingMode: 'user' }, audio: false }).then((stream) => {
    video.srcObject = stream;
    video.onloadeddata = () => { button.disabled = false; };
  }, () => { result.textContent = 'The camera could not be opened: allow camera access and reload this page.'; });
  button.addEventListener('click', async () => {
    button.disabled = true;
    result.textContent = 'Checking your selfie…';
    const canvas = document.createElement('canvas');
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    canvas.getContext('2d').drawImage(video, 0, 0);
    try {
      const response = await fetch(location.pathname + '/selfie', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ selfie: canvas.toDataURL('image/jpeg', 0.92) }) });
      const answer = await response.json();
      if (answer.success) {
        result.textContent = 'Done: you are now an active member of ' + ${JSON.stringify(target.organizationName).replace(/</g, '\\u003c')} + '.';
        video.srcObject.getTracks().forEach((track) => track.stop());
        button.hidden = true;
        return;
      }
      const message = answer.error.message;
      result.textContent = message + (message.endsWith('.') ? '' : '.') + ' Try again.';
    } catch {
      result.textContent = 'Something went wrong. Try again.';
    }
    button.disabled = false;
  });
})();
</script>`);
}

/** The link is unknown, used, superseded (404) or expired (410): a page saying so, with that status. */
function linkProblem(res: Response, error: DomainError): void {
  const expired = error.code === 'code_expired';
  res.status(error.status).type('html').send(messagePage(
    expired ? 'This link expired' : 'This link is not valid',
    expired ? 'Activation links work for 7 days. Ask your organization to send you a new one.' : 'It was used already, replaced by a newer link, or never existed. Ask your organization for a new one.',
  ));
}

export function activationRouter(core: Core) {
  const router = Router();
  const secure = core.oidc.issuer.startsWith('https:');
  const form = express.urlencoded({ extended: false, limit: '64kb' });
  // One 640x480 JPEG is far below this; the limit only guards the parser.
  const json = express.json({ limit: '8mb' });
  const tokenOf = (req: Request) => String(req.params.token);
  router.use('/activate', issueCsrf(secure));

  /** The link's target, or null after answering the problem page. */
  async function target(req: Request, res: Response): Promise<Target | null> {
    res.setHeader('Cache-Control', 'no-store');
    try {
      return await core.roster.activationTarget(tokenOf(req));
    } catch (error) {
      if (error instanceof DomainError && (error.code === 'invalid_activation' || error.code === 'code_expired')) {
        linkProblem(res, error);
        return null;
      }
      throw error;
    }
  }

  router.get('/activate/:token', async (req, res) => {
    const found = await target(req, res);
    if (!found) return;
    const session = await core.oidc.session(sessionCookie(req));
    if (!session) {
      res.type('html').send(req.query.signup ? signUpPage(tokenOf(req), found, String(res.locals.csrf)) : signInPage(tokenOf(req), found, String(res.locals.csrf)));
      return;
    }
    const account = await core.accounts.view(session.accountId);
    if (!invitedEmailMatches(found.email, account.email)) {
      res.status(403).type('html').send(signInPage(tokenOf(req), found, String(res.locals.csrf), { error: `You are signed in as ${account.email}, but this invitation was sent to ${found.email}. Sign in with the invited email.` }));
      return;
    }
    res.type('html').send(selfiePage(tokenOf(req), found, account.email, String(res.locals.cspNonce)));
  });

  router.post('/activate/:token/signin', form, requireCsrf, async (req, res) => {
    const found = await target(req, res);
    if (!found) return;
    const email = String(req.body?.email ?? '');
    if (!invitedEmailMatches(found.email, email)) {
      res.status(403).type('html').send(signInPage(tokenOf(req), found, String(res.locals.csrf), { error: invitationForAnotherEmail(found.email).message, email }));
      return;
    }
    const attempt = await signInFromPage(core.oidc, email, String(req.body?.password ?? ''), req, res);
    const signedIn = attempt.signedIn;
    if (!signedIn) {
      res.status(attempt.status).type('html').send(signInPage(tokenOf(req), found, String(res.locals.csrf), { error: attempt.message, email }));
      return;
    }
    setSessionCookie(res, signedIn.cookie, secure);
    res.redirect(303, `/activate/${encodeURIComponent(tokenOf(req))}`);
  });

  router.post('/activate/:token/signup', form, requireCsrf, async (req, res) => {
    const found = await target(req, res);
    if (!found) return;
    const fields = { email: String(req.body?.email ?? ''), password: String(req.body?.password ?? ''), name: String(req.body?.name ?? '') };
    if (!invitedEmailMatches(found.email, fields.email)) {
      res.status(403).type('html').send(signUpPage(tokenOf(req), found, String(res.locals.csrf), { error: invitationForAnotherEmail(found.email).message, email: fields.email, name: fields.name }));
      return;
    }
    try {
      const { cookie, session } = await core.oidc.signUp(fields);
      await core.accountRecovery.sendVerification(session.accountId);
      setSessionCookie(res, cookie, secure);
      res.redirect(303, `/activate/${encodeURIComponent(tokenOf(req))}`);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const message = signUpErrorText(error);
      res.status(400).type('html').send(signUpPage(tokenOf(req), found, String(res.locals.csrf), { error: message, email: fields.email, name: fields.name }));
    }
  });

  router.post('/activate/:token/selfie', json, async (req, res) => {
    const session = await core.oidc.session(sessionCookie(req));
    if (!session) throw new DomainError('requires_login', 'sign in first');
    const selfie = req.body?.selfie;
    if (typeof selfie !== 'string' || !selfie) throw new DomainError('invalid_image', 'a selfie is required', { data: { errors: { selfie: 'required: a data URL or base64 image' } } });
    sendData(res, await core.roster.activate(tokenOf(req), session.accountId, decodeImageString('selfie', selfie)));
  });

  return router;
}
