import { z } from 'zod';
import type { AccountService, LicenseBadge } from '../accounts/service.js';
import { ageOn, parseCalendarDate, utcDate } from '../checks/dates.js';
import { answerBands } from '../checks/age.js';
import type { Clock } from '../clock.js';
import { DomainError } from '../errors.js';
import { licenseTypeKey } from '../oidc/resources.js';
import type { SessionService } from '../sessions/service.js';
import type { TenancyService } from '../tenancy/service.js';
import type { McpAudit } from './audit.js';
import type { CredentialIssuer } from '../vc/issuer.js';
import { ES256, digest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { exportJWK, generateKeyPair } from 'jose';
import { randomBytes } from 'node:crypto';

/**
 * Who an MCP call is for: the person of the access token, the agent (OIDC client) it was issued
 * to, and the token itself.
 */
export interface AgentCaller {
  svcId: string;
  clientId: string;
  /** The bearer token of the call: it binds a session the agent starts to the person (as `svc_access_token` does). */
  accessToken: string;
}

/** The format of a presentation the agent makes: an SD-JWT VC with key binding (the `zkp` credential). */
export const PROOF_FORMAT = 'dc+sd-jwt';
/** Verification sessions an account's agents may start per hour (each is charged to the agent's project). */
export const SESSIONS_PER_HOUR = 5;

/** The age claims a proof may carry: the account-mode thresholds a person is most often asked about. */
export const AGE_CLAIMS = { age_over_18: 18, age_over_21: 21, age_over_65: 65 } as const;

/** The tools' inputs, one schema each (the MCP server advertises them as JSON Schema). */
export const presentProofInput = z.object({
  verifier: z
    .string()
    .max(200)
    .describe('the https origin of the verifier the proof is for, e.g. https://shop.example'),
  claim: z
    .enum([...(Object.keys(AGE_CLAIMS) as (keyof typeof AGE_CLAIMS)[]), 'licence'])
    .describe('what to prove: an age threshold, or a verified licence'),
  license_type: z
    .string()
    .max(100)
    .optional()
    .describe('for claim=licence: the licence type, e.g. nurse_licenses (see get_verification_status)'),
  nonce: z
    .string()
    .min(8)
    .max(256)
    .optional()
    .describe(
      'the nonce the verifier gave for this presentation (8 to 256 characters, as its check takes it); made here if absent',
    ),
});
export type PresentProofInput = z.infer<typeof presentProofInput>;

export const startSessionInput = z.object({
  workflow_id: z
    .string()
    .max(40)
    .optional()
    .describe("a workflow of the agent app's project; its first workflow when omitted"),
});
export type StartSessionInput = z.infer<typeof startSessionInput>;

/**
 * A verifier is named by its https origin (http only for a loopback address), the proof's
 * audience: null for anything else.
 */
export function verifierOrigin(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.username || url.password) return null;
  const loopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) return null;
  return url.origin;
}

/** A licence as a proof or status shows it: never its number. */
export interface LicenceProof {
  type: string;
  status: string;
  verified: boolean;
  verified_from: string | null;
  expires_on: string | null;
}

const licenceProof = (badge: LicenseBadge): LicenceProof => ({
  type: licenseTypeKey(badge.type),
  status: badge.status,
  verified: badge.verifiedFrom != null,
  verified_from: badge.verifiedFrom ?? null,
  expires_on: badge.expiresOn ?? null,
});

export interface AgentDeps {
  accounts: AccountService;
  sessions: SessionService;
  tenancy: TenancyService;
  credentials: CredentialIssuer;
  audit: McpAudit;
  clock: Clock;
  issuer: string;
}

/**
 * What an agent may do for the person who allowed it (the `mcp` scope): each tool is one method,
 * every call audited on the account. Proofs only: no date of birth, document or licence number
 * ever leaves here.
 */
export class AgentTools {
  constructor(private readonly deps: AgentDeps) {}

  /** Runs `work` as the tool `tool` and audits the call with its outcome (`ok` or the error code) and `detail`. */
  async audited<T>(
    caller: AgentCaller,
    tool: string,
    detail: Record<string, unknown> | null,
    work: () => Promise<T>,
  ): Promise<T> {
    const started = performance.now();
    let outcome = 'ok';
    try {
      return await work();
    } catch (error) {
      outcome = error instanceof DomainError ? error.code : 'internal_error';
      throw error;
    } finally {
      const durationMs = Math.round(performance.now() - started);
      await this.deps.audit.record({
        accountId: caller.svcId,
        clientId: caller.clientId,
        tool,
        outcome,
        detail,
        durationMs,
        at: this.deps.clock.now(),
      });
    }
  }

  /** Whether the person's identity and humanity are verified, and their licences: proofs only. */
  async verificationStatus(caller: AgentCaller) {
    const account = await this.deps.accounts.profile(caller.svcId);
    if (!account) throw new DomainError('invalid_token', 'the account of this access token no longer exists');
    const badges = await this.deps.accounts.licenseBadges(caller.svcId, this.deps.clock.now());
    return {
      id_verified: account.idVerified,
      human_verified: account.humanVerified ?? account.idVerified,
      licences: badges.map(licenceProof),
    };
  }

  /**
   * The claim a proof states, from the account as account-mode checks read it: an age threshold
   * from the verified date of birth (answerBands in account mode: the band, never the date), or a
   * licence its board verified and that is still served. `not_verified` when the account cannot
   * prove it (no verified identity, under the age, no such licence).
   */
  async provableClaim(svcId: string, input: PresentProofInput): Promise<Record<string, unknown>> {
    if (input.claim === 'licence') {
      if (!input.license_type)
        throw new DomainError('validation_error', 'license_type is required for claim=licence', {
          data: { errors: { license_type: 'required' } },
        });
      const badges = await this.deps.accounts.licenseBadges(svcId, this.deps.clock.now());
      const found = badges
        .map(licenceProof)
        .find((licence) => licence.verified && licence.type === licenseTypeKey(input.license_type!));
      if (!found) throw new DomainError('not_verified', 'no licence of that type is verified on the account');
      return { licence: found };
    }
    const identity = await this.deps.accounts.verifiedIdentity(svcId);
    const birth = identity ? parseCalendarDate(identity.dateOfBirth) : null;
    if (!birth) throw new DomainError('not_verified', 'the account has no verified date of birth');
    const threshold = AGE_CLAIMS[input.claim];
    const answer = answerBands([threshold], ageOn(birth, utcDate(this.deps.clock.now())), 'account')[String(threshold)];
    if (answer?.verified !== true) throw new DomainError('not_verified', `the account cannot prove ${input.claim}`);
    return { [input.claim]: true };
  }

  /**
   * Presents a proof to a named verifier through the `zkp` credential (vc/issuer.ts): an SD-JWT VC
   * of the person's verified identity, bound to a key made for this one presentation, disclosing
   * the one claim only, with a key-binding JWT for the verifier's origin and nonce (the verifier's,
   * or one made here and answered). The verifier checks it like any wallet's presentation: with
   * POST /api/v2/credential-presentation, or itself against /.well-known/jwt-vc-issuer. No `sub`
   * and no holder key of the person's: two presentations cannot be linked by either.
   */
  async presentProof(caller: AgentCaller, input: PresentProofInput) {
    // Checked here, not by the schema: a refused verifier is a tool call too, and audited.
    const audience = verifierOrigin(input.verifier);
    if (!audience)
      throw new DomainError('validation_error', 'verifier must be an https URL (http only for localhost)', {
        data: { errors: { verifier: 'an https URL' } },
      });
    const claims = await this.provableClaim(caller.svcId, input);
    const holder = await generateKeyPair('ES256', { extractable: true });
    const credential = await this.deps.credentials
      .issueTo(caller.svcId, caller.clientId, await exportJWK(holder.publicKey))
      .catch((error: unknown) => {
        if (error instanceof DomainError) throw new DomainError('not_verified', error.message);
        throw error;
      });
    const sdjwt = new SDJwtVcInstance({
      hasher: digest,
      saltGenerator: generateSalt,
      kbSigner: await ES256.getSigner(await exportJWK(holder.privateKey)),
      kbSignAlg: 'ES256',
    });
    const nonce = input.nonce ?? randomBytes(16).toString('base64url');
    const frame = await disclosureOf(sdjwt, credential, input);
    const presentation = await sdjwt.present(credential, frame as never, {
      kb: { payload: { iat: Math.floor(this.deps.clock.now().getTime() / 1000), aud: audience, nonce } },
    });
    return {
      verifier: audience,
      claims,
      presentation,
      format: PROOF_FORMAT,
      nonce,
      verify_with: `${this.deps.issuer}/api/v2/credential-presentation`,
    };
  }

  /**
   * Starts a hosted verification session for the person in the agent app's project (its first
   * workflow unless one is named), bound to their account, and gives its link. At most
   * SESSIONS_PER_HOUR an hour per account: each is charged to the project.
   */
  async startVerificationSession(caller: AgentCaller, input: StartSessionInput) {
    const since = new Date(this.deps.clock.now().getTime() - 3600_000);
    if ((await this.deps.audit.countSince(caller.svcId, 'start_verification_session', since)) >= SESSIONS_PER_HOUR) {
      throw new DomainError('rate_limited', `at most ${SESSIONS_PER_HOUR} verification sessions an hour`, {
        retryAfterSeconds: 3600,
      });
    }
    const client = await this.deps.tenancy.oidcClient(caller.clientId);
    if (!client) throw new DomainError('invalid_token', 'the agent app no longer exists');
    const workflowId = input.workflow_id ?? (await this.deps.tenancy.listWorkflows(client.projectId))[0]?.id;
    if (!workflowId) throw new DomainError('not_found', "the agent app's project has no workflow");
    const { session } = await this.deps.sessions.create({ projectId: client.projectId, livemode: true }, 'user', {
      workflow_id: workflowId,
      svc_access_token: caller.accessToken,
    });
    return { session_id: session.session_id, url: session.url, status: session.status, expires_at: session.expires_at };
  }
}

/** What a presentation discloses: the age claim asked for, or the one licence of the type asked for. */
async function disclosureOf(
  sdjwt: SDJwtVcInstance,
  credential: string,
  input: PresentProofInput,
): Promise<Record<string, unknown>> {
  if (input.claim !== 'licence') return { [input.claim]: true };
  const { licenses } = (await sdjwt.getClaims(credential)) as { licenses?: { type: string }[] };
  const index = (licenses ?? []).findIndex((licence) => licence.type === licenseTypeKey(input.license_type!));
  if (index < 0) throw new DomainError('not_verified', 'no licence of that type is verified on the account');
  return { licenses: { [index]: true } };
}
