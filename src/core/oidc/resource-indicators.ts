// RFC 8707 resource indicators: the resources other than the account endpoints that this provider
// issues access tokens for. A token asked for one (`resource` on authorize) is bound to it (its
// audience) and is good there only; a token asked for none is good at the account endpoints only.

/** The path of the MCP endpoint (docs/mcp.md) on the issuer's origin. */
export const MCP_PATH = '/mcp';

/** The MCP endpoint's resource identifier: its absolute URL (RFC 9728 `resource`). */
export const mcpResource = (issuer: string): string => `${issuer}${MCP_PATH}`;

/**
 * The credential issuer's identifier (OpenID4VCI: this service is its own credential issuer). A
 * wallet names it in `resource` because the issuer metadata lists an authorization server; a
 * token bound to it is good at the credential endpoints only.
 */
export const credentialIssuerResource = (issuer: string): string => issuer;

/** Every resource identifier a client may name in `resource`, exactly. */
export const knownResources = (issuer: string): string[] => [mcpResource(issuer), credentialIssuerResource(issuer)];
