// The person's page of connected assistants (MCP agents, docs/mcp.md): which clients they allowed
// the `mcp` scope, every tool call those made for them, and a Revoke button per agent that ends
// its tokens and forgets the consent (its next authorization asks again). Server-rendered, no
// scripts; forms carry the CSRF token like the sign-in pages'.

import express, { type Request, type Response } from 'express';
import type { Core } from '../core/index.js';
import type { ToolCallEntry } from '../core/mcp/audit.js';
import { sessionCookie, setSessionCookie, signInFromPage } from './browser-session.js';
import { caseSensitiveRouter } from '../http/router.js';
import { issueCsrf, requireCsrf } from './csrf.js';
import { page } from './login-pages.js';

/** How many tool calls the page lists (newest first). */
const CALLS_SHOWN = 50;

const when = (date: Date | null) => (date ? date.toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : 'never');

/** What a call was about, in a few words: the verifier and claim of a proof, the session started. */
function about(call: ToolCallEntry): string {
  const detail = call.detail ?? {};
  return Object.entries(detail)
    .map(([key, value]) => `${key}: ${String(value)}`)
    .join(', ');
}

export function accountPagesRouter(core: Core) {
  const router = caseSensitiveRouter();
  const secure = core.oidc.issuer.startsWith('https:');
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  router.use('/account', issueCsrf(secure));

  const signInPage = (res: Response, options: { error?: string; email?: string } = {}, status = 200) =>
    res
      .status(status)
      .type('html')
      .send(
        page('account-sign-in', 'Connected assistants', {
          csrf: String(res.locals.csrf),
          error: options.error,
          email: options.email ?? '',
        }),
      );

  router.get('/account/agents', async (req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'no-store');
    const session = await core.oidc.session(sessionCookie(req));
    if (!session) return void signInPage(res);
    const [account, agents, calls] = await Promise.all([
      core.accounts.view(session.accountId),
      core.mcpAudit.agents(session.accountId),
      core.mcpAudit.recent(session.accountId, CALLS_SHOWN),
    ]);
    res.type('html').send(
      page('account-agents', 'Connected assistants', {
        email: account.email,
        csrf: String(res.locals.csrf),
        notice: req.query.revoked === '1' ? 'Revoked: that assistant can no longer act for you.' : undefined,
        agents: agents.map((agent) => ({
          clientId: agent.clientId,
          clientName: agent.clientName,
          allowedAt: when(agent.allowedAt),
          lastCallAt: when(agent.lastCallAt),
        })),
        calls: calls.map((call) => ({
          createdAt: when(call.createdAt),
          clientName: call.clientName,
          tool: call.tool,
          about: about(call),
          outcome: call.outcome,
        })),
      }),
    );
  });

  router.post('/account/agents/signin', form, requireCsrf, async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const email = String(req.body?.email ?? '');
    const attempt = await signInFromPage(core.oidc, email, String(req.body?.password ?? ''), req, res);
    if (!attempt.signedIn) return void signInPage(res, { error: attempt.message, email }, attempt.status);
    setSessionCookie(res, attempt.signedIn.cookie, secure);
    res.redirect(303, '/account/agents');
  });

  // Ends every access and refresh token of this person for the agent and forgets their consent.
  router.post('/account/agents/revoke', form, requireCsrf, async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const session = await core.oidc.session(sessionCookie(req));
    if (!session) return void signInPage(res, { error: 'Sign in first.' }, 401);
    const clientId = String(req.body?.client_id ?? '').slice(0, 64);
    if (clientId) {
      await core.oidc.revokeForClients(session.accountId, [clientId]);
      await core.mcpAudit.forgetConsent(session.accountId, clientId);
    }
    res.redirect(303, '/account/agents?revoked=1');
  });
  return router;
}
