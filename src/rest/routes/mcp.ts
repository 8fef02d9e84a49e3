import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { NextFunction, Request, Response } from 'express';
import { z } from 'zod';
import { DomainError } from '../../core/errors.js';
import type { Core } from '../../core/index.js';
import { type AgentCaller, type AgentTools, presentProofInput, startSessionInput } from '../../core/mcp/agent.js';
import { discoveryDocument } from '../../core/oidc/discovery.js';
import { MCP_PATH, mcpResource } from '../../core/oidc/resource-indicators.js';
import { discoveryWire } from '../../core/oidc/views.js';
import { bearer } from '../auth.js';
import { toDomainError } from '../errors.js';
import { jsonBody } from '../../http/input.js';
import type { ApiDocs } from '../../http/openapi.js';
import { caseSensitiveRouter } from '../../http/router.js';
import type { Logger } from '../../logger.js';

// The MCP server (Model Context Protocol, streamable HTTP) at /mcp, an OAuth protected resource
// whose authorization server is our OIDC provider (MCP authorization specification; docs/mcp.md).

/** The scopes a token for /mcp is asked with: `openid` (our authorize requires it) and `mcp`. */
export const MCP_SCOPES = ['openid', 'mcp'];
/** RFC 9728 3.1: the metadata of a resource with a path is at the well-known URI with that path appended. */
export const PROTECTED_RESOURCE_METADATA_PATH = `/.well-known/oauth-protected-resource${MCP_PATH}`;

/** RFC 8414 3: where the authorization server metadata of an issuer without a path is. */
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';

/** RFC 9728 protected resource metadata. */
export const protectedResourceWire = z.object({
  resource: z.string().describe('the MCP endpoint: the `resource` to send on authorize and token requests (RFC 8707)'),
  authorization_servers: z
    .array(z.string())
    .describe('the OIDC issuer; its discovery document is at /.well-known/openid-configuration'),
  scopes_supported: z.array(z.string()),
  bearer_methods_supported: z.array(z.string()),
  resource_name: z.string(),
  resource_documentation: z.string(),
});

export function protectedResourceMetadata(issuer: string): z.output<typeof protectedResourceWire> {
  return {
    resource: mcpResource(issuer),
    authorization_servers: [issuer],
    scopes_supported: MCP_SCOPES,
    bearer_methods_supported: ['header'],
    resource_name: 'Verity account (MCP)',
    resource_documentation: `${issuer}/docs`,
  };
}

/**
 * The person behind a bearer token good at /mcp: live, bound to this resource (RFC 8707: a token
 * asked for no resource, or another, is refused), and with the `mcp` scope (403 otherwise).
 */
async function mcpCaller(core: Core, req: Request): Promise<AgentCaller> {
  const token = bearer(req);
  const grant = token ? await core.accessTokens.verify(token) : null;
  if (!token || !grant)
    throw new DomainError(
      'invalid_token',
      token ? 'access token is invalid or expired' : 'missing bearer access token',
    );
  if (grant.resource !== mcpResource(core.oidc.issuer))
    throw new DomainError(
      'invalid_token',
      'this access token is not for this resource: ask for it with resource set to this endpoint',
    );
  if (!grant.scopes.includes('mcp'))
    throw new DomainError('insufficient_scope', 'the token lacks the mcp scope', {
      data: { scope: MCP_SCOPES.join(' ') },
    });
  return { svcId: grant.svcId, clientId: grant.clientId, accessToken: token };
}

/**
 * RFC 6750 3 with RFC 9728 5.1: every 401 and 403 of /mcp names the resource metadata, so an
 * MCP client finds the authorization server from the refusal alone, and the scope to ask.
 */
function mcpChallenge(issuer: string) {
  return (error: unknown, req: Request, res: Response, next: NextFunction) => {
    const known = toDomainError(error);
    if (known?.code === 'invalid_token' || known?.code === 'insufficient_scope') {
      const quoted = (value: string) => value.replace(/["\\]/g, '');
      const parts = [
        `resource_metadata="${issuer}${PROTECTED_RESOURCE_METADATA_PATH}"`,
        `scope="${MCP_SCOPES.join(' ')}"`,
      ];
      if (bearer(req) !== undefined)
        parts.unshift(`error="${known.code}"`, `error_description="${quoted(known.message)}"`);
      res.setHeader('WWW-Authenticate', `Bearer ${parts.join(', ')}`);
    }
    next(error);
  };
}

/** A tool's answer: its JSON as text and as structured content; a refusal (a catalog error) as an error result. */
async function answerTool(work: () => Promise<Record<string, unknown>>, logger: Logger): Promise<CallToolResult> {
  try {
    const value = await work();
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  } catch (error) {
    // Our fault: logged here, and the agent is told no more than any API caller would be.
    const known = error instanceof DomainError && error.status < 500 ? error : new DomainError('internal_error');
    if (known !== error) logger.error({ err: error }, 'MCP tool failed');
    const structuredContent = { error: known.code, message: known.message };
    return { isError: true, content: [{ type: 'text', text: `${known.code}: ${known.message}` }], structuredContent };
  }
}

/**
 * The MCP server of one call: its tools act for `caller` only (no tool takes an account, so no
 * call reaches another person's).
 */
export function agentServer(tools: AgentTools, caller: AgentCaller, logger: Logger): McpServer {
  const toolResult = (work: () => Promise<Record<string, unknown>>) => answerTool(work, logger);
  const server = new McpServer(
    { name: 'verity', version: '1.0.0' },
    { instructions: 'Acts for the signed-in Verity account holder: proofs only, never raw identity data.' },
  );
  server.registerTool(
    'get_verification_status',
    {
      title: 'My verification status',
      description: [
        "Whether the person's identity and humanity are verified, and their verified licences",
        '(type, status, expiry, board). Proofs only: no date of birth, document or licence number.',
      ].join(' '),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      toolResult(() => tools.audited(caller, 'get_verification_status', null, () => tools.verificationStatus(caller))),
  );
  server.registerTool(
    'present_proof',
    {
      title: 'Present a proof to a verifier',
      description: [
        'Makes a proof of age (age_over_18, age_over_21, age_over_65) or of a verified licence for the',
        'verifier named by its https origin: an SD-JWT VC presentation (dc+sd-jwt) disclosing that claim',
        "only, key-bound to the verifier's origin and nonce, to hand to the verifier (who checks it with",
        'POST /api/v2/credential-presentation). Fails with not_verified when the account cannot prove it.',
      ].join(' '),
      inputSchema: presentProofInput.shape,
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    (input) =>
      toolResult(() =>
        tools.audited(
          caller,
          'present_proof',
          {
            verifier: input.verifier,
            claim: input.claim,
            ...(input.license_type ? { license_type: input.license_type } : {}),
          },
          () => tools.presentProof(caller, input),
        ),
      ),
  );
  server.registerTool(
    'start_verification_session',
    {
      title: 'Start a verification session for me',
      description: [
        "Starts a hosted identity verification session bound to the person's account and gives its",
        'link for them to open (valid one hour). At most 5 an hour.',
      ].join(' '),
      inputSchema: startSessionInput.shape,
      annotations: { readOnlyHint: false, openWorldHint: false },
    },
    (input) =>
      toolResult(() => {
        const detail: Record<string, unknown> = {};
        return tools.audited(caller, 'start_verification_session', detail, async () => {
          const session = await tools.startVerificationSession(caller, input);
          detail.session_id = session.session_id;
          return session;
        });
      }),
  );
  return server;
}

export function mcpRouter(core: Core, docs: ApiDocs, logger: Logger) {
  const router = caseSensitiveRouter();
  const issuer = core.oidc.issuer;

  const metadata = (_req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.json(protectedResourceMetadata(issuer));
  };
  router.get('/.well-known/oauth-protected-resource', metadata);
  router.get(PROTECTED_RESOURCE_METADATA_PATH, metadata);
  // RFC 8414 authorization server metadata: MCP clients look here before OIDC discovery. The same document.
  router.get(AUTHORIZATION_SERVER_METADATA_PATH, (_req, res) => {
    res.json(core.oidc.discovery());
  });

  // The token is checked before the body is read: a caller without one learns where to get one, and costs no parse.
  const authenticate = async (req: Request, res: Response, next: NextFunction) => {
    const caller = await mcpCaller(core, req);
    await core.mcpRateLimits.consume(`${caller.clientId}:${caller.svcId}`);
    res.locals.agent = caller;
    next();
  };
  // Stateless streamable HTTP: each POST is answered on its own (JSON, no session id), so any
  // instance answers any call; the token is checked on every one.
  router.post(MCP_PATH, authenticate, ...jsonBody('256kb'), async (req, res) => {
    const server = agentServer(core.agentTools, res.locals.agent as AgentCaller, logger);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    res.setHeader('Cache-Control', 'no-store');
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  // No server-initiated stream and no session to end: GET and DELETE are 405 (the catch-all's Allow: POST).
  router.use(MCP_PATH, mcpChallenge(issuer));

  for (const path of ['/.well-known/oauth-protected-resource', PROTECTED_RESOURCE_METADATA_PATH]) {
    docs.add({
      method: 'get',
      path,
      ...(path === PROTECTED_RESOURCE_METADATA_PATH ? { operationId: 'getMcpProtectedResourceMetadata' } : {}),
      summary:
        path === PROTECTED_RESOURCE_METADATA_PATH
          ? 'MCP protected resource metadata'
          : 'Protected resource metadata (root)',
      description: [
        'RFC 9728 metadata of the MCP endpoint (`/mcp`): its resource identifier, the authorization',
        'server (this OIDC issuer) and the scopes to ask (`openid mcp`). MCP clients find it from the',
        '`resource_metadata` of the `WWW-Authenticate` header of /mcp refusing a request without a',
        'valid token. See docs/mcp.md.',
      ].join(' '),
      tag: 'login',
      security: 'none',
      bare: true,
      response: protectedResourceWire,
      examples: { response: protectedResourceMetadata('https://verity.example') },
    });
  }
  docs.add({
    method: 'get',
    path: AUTHORIZATION_SERVER_METADATA_PATH,
    summary: 'OAuth authorization server metadata',
    description: [
      'RFC 8414 metadata of the authorization server: the same document as',
      '`/.well-known/openid-configuration`, where OAuth clients (MCP clients among them) look first.',
    ].join(' '),
    tag: 'login',
    security: 'none',
    bare: true,
    response: discoveryWire,
    examples: { response: discoveryDocument('https://verity.example') },
  });
  return router;
}
