// The roster activation page: the link in an invitation opens it; the person signs in (or signs
// up), takes a selfie with the camera, and becomes an active member of the organization once the
// selfie is live and matches their account's face. Mounted on the base URL at /activate/{token}.

import express, { type Request, type Response } from 'express';
import { DomainError } from '../core/errors.js';
import { invitationForAnotherEmail, invitedEmailMatches } from '../core/roster/service.js';
import type { Core } from '../core/index.js';
import { z } from 'zod';
import { decodeImageString, jsonBody, requireJsonBody } from '../http/input.js';
import type { ApiDocs } from '../http/openapi.js';
import { memberAnswerWire } from '../core/roster/views.js';
import { sendData } from '../http/envelope.js';
import { sessionCookie, setSessionCookie, signInFromPage } from './browser-session.js';
import { issueCsrf, requireCsrf } from './csrf.js';
import { renderPage } from './assets.js';
import { messagePage, page, signUpErrorText } from './login-pages.js';
import { caseSensitiveRouter } from '../http/router.js';

interface Target {
  organizationName: string;
  email: string;
}

function signInPage(
  token: string,
  target: Target,
  csrf: string,
  options: { error?: string; email?: string } = {},
): string {
  return page('activation-sign-in', 'Join your team', {
    organizationName: target.organizationName,
    invitedEmail: target.email,
    base: `/activate/${encodeURIComponent(token)}`,
    csrf,
    error: options.error,
    email: options.email ?? target.email,
  });
}

function signUpPage(
  token: string,
  target: Target,
  csrf: string,
  options: { error?: string; email?: string; name?: string } = {},
): string {
  return page('sign-up', 'Create your account', {
    lead: `Then take a selfie to join ${target.organizationName}.`,
    action: `/activate/${encodeURIComponent(token)}/signup`,
    csrf,
    error: options.error,
    email: options.email ?? target.email,
    name: options.name ?? '',
  });
}

/**
 * The camera step (web/activation/selfie.ts): one frame from the camera, checked live and against the account's face.
 */
function selfiePage(target: Target, accountEmail: string): string {
  return renderPage(
    'activation-selfie',
    {
      title: 'Take a selfie · Verity',
      organizationName: target.organizationName,
      organization: target.organizationName,
      accountEmail,
    },
    'activation/selfie.ts',
  );
}

/** The link is unknown, used, superseded (404) or expired (410): a page saying so, with that status. */
function linkProblem(res: Response, error: DomainError): void {
  const expired = error.code === 'code_expired';
  res
    .status(error.status)
    .type('html')
    .send(
      messagePage(
        expired ? 'This link expired' : 'This link is not valid',
        expired
          ? 'Activation links work for 7 days. Ask your organization to send you a new one.'
          : 'It was used already, replaced by a newer link, or never existed. Ask your organization for a new one.',
      ),
    );
}

export function activationRouter(core: Core, docs: ApiDocs) {
  const router = caseSensitiveRouter();
  const secure = core.oidc.issuer.startsWith('https:');
  const form = express.urlencoded({ extended: false, limit: '64kb' });
  // One 640x480 JPEG is far below this; the limit only guards the parser.
  const json = jsonBody('8mb');
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
      res
        .type('html')
        .send(
          req.query.signup
            ? signUpPage(tokenOf(req), found, String(res.locals.csrf))
            : signInPage(tokenOf(req), found, String(res.locals.csrf)),
        );
      return;
    }
    const account = await core.accounts.view(session.accountId);
    if (!invitedEmailMatches(found.email, account.email)) {
      res
        .status(403)
        .type('html')
        .send(
          signInPage(tokenOf(req), found, String(res.locals.csrf), {
            error: `You are signed in as ${account.email}, but this invitation was sent to ${found.email}. Sign in with the invited email.`,
          }),
        );
      return;
    }
    res.type('html').send(selfiePage(found, account.email));
  });

  router.post('/activate/:token/signin', form, requireCsrf, async (req, res) => {
    const found = await target(req, res);
    if (!found) return;
    const email = String(req.body?.email ?? '');
    if (!invitedEmailMatches(found.email, email)) {
      res
        .status(403)
        .type('html')
        .send(
          signInPage(tokenOf(req), found, String(res.locals.csrf), {
            error: invitationForAnotherEmail(found.email).message,
            email,
          }),
        );
      return;
    }
    const attempt = await signInFromPage(core.oidc, email, String(req.body?.password ?? ''), req, res);
    const signedIn = attempt.signedIn;
    if (!signedIn) {
      res
        .status(attempt.status)
        .type('html')
        .send(signInPage(tokenOf(req), found, String(res.locals.csrf), { error: attempt.message, email }));
      return;
    }
    setSessionCookie(res, signedIn.cookie, secure);
    res.redirect(303, `/activate/${encodeURIComponent(tokenOf(req))}`);
  });

  router.post('/activate/:token/signup', form, requireCsrf, async (req, res) => {
    const found = await target(req, res);
    if (!found) return;
    const fields = {
      email: String(req.body?.email ?? ''),
      password: String(req.body?.password ?? ''),
      name: String(req.body?.name ?? ''),
    };
    if (!invitedEmailMatches(found.email, fields.email)) {
      res
        .status(403)
        .type('html')
        .send(
          signUpPage(tokenOf(req), found, String(res.locals.csrf), {
            error: invitationForAnotherEmail(found.email).message,
            email: fields.email,
            name: fields.name,
          }),
        );
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
      res
        .status(400)
        .type('html')
        .send(
          signUpPage(tokenOf(req), found, String(res.locals.csrf), {
            error: message,
            email: fields.email,
            name: fields.name,
          }),
        );
    }
  });

  router.post('/activate/:token/selfie', requireJsonBody, ...json, async (req, res) => {
    const session = await core.oidc.session(sessionCookie(req));
    if (!session) throw new DomainError('requires_login', 'sign in first');
    const selfie = req.body?.selfie;
    if (typeof selfie !== 'string' || !selfie)
      throw new DomainError('invalid_image', 'a selfie is required', {
        data: { errors: { selfie: 'required: a data URL or base64 image' } },
      });
    sendData(res, await core.roster.activate(tokenOf(req), session.accountId, decodeImageString('selfie', selfie)));
  });
  // The page's one JSON call (web/activation/selfie.ts); its other routes answer HTML and redirects.
  docs.add({
    method: 'post',
    path: '/activate/{token}/selfie',
    summary: 'Activation page: the selfie that activates a member',
    description:
      "The roster activation page's one JSON call: the signed-in person's selfie (their browser session's cookie). When it is live and matches their account's face (or becomes the account's face on first use), they become an active member of the organization that invited them. Not called by your server: send invited people the activation link.",
    tag: 'pages',
    security: 'none',
    body: z.object({ selfie: z.string().describe('a data URL or base64 JPEG from the camera') }),
    response: memberAnswerWire,
    examples: {
      request: {
        selfie: 'data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8U',
      },
      response: {
        member: {
          id: 42,
          member_id: 'mem_5e0c7a1b2d3f4e5a6b7c8d9e',
          first_name: 'Ana',
          last_name: 'Reyes',
          email: 'ana.reyes@clinic.example',
          role: 'member',
          status: 'active',
          svc_id: 'svc_8a7b6c5d4e3f',
          active: true,
          created_at: '2026-11-20T14:03:00.000Z',
        },
      },
    },
    errors: [
      'requires_login',
      'validation_error',
      'invalid_image',
      'image_too_large',
      'unprocessable',
      'access_denied',
      'invalid_activation',
      'code_expired',
      'already_active',
      'no_face',
      'face_mismatch',
      'face_rescan_required',
    ],
  });

  return router;
}
