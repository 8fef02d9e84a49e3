// Every GraphQL document the console sends. test/fast/web-console-queries.test.ts validates each one
// against the server's schema, so renaming a field breaks the build's tests, not production.

export const SESSION_FIELDS = 'id status livemode vendorData svcId decision createdAt decidedAt workflow { name }';

// A reviewer also reads each check's details; a viewer may not ask for them.
const SESSION_QUERY = (details: string) =>
  `query($p: String!, $s: String!) { session(projectId: $p, sessionId: $s) { id status livemode workflowId features vendorData svcId decision decidedAt decidedBy createdAt startedAt expiresAt imagesRetained approvalBlockers workflow { name } checks { type status score reason createdAt${details} } timeline { from to actor reason at } webhookEvents { id type state url attemptCount createdAt attempts { attempt at httpStatus latencyMs error } } } }`;

export const QUERIES = {
  start: '{ me { tokenId role projectId } projects { id name balance currency } organizations { id name } }',
  workflowNames: 'query($p: String!) { workflows(projectId: $p) { id name } }',
  sessions: `query($p: String!, $f: SessionFilterInput, $s: SessionSort, $a: String) { sessions(projectId: $p, filter: $f, sort: $s, first: 25, after: $a) { edges { node { ${SESSION_FIELDS} } } pageInfo { hasNextPage endCursor } } }`,
  reviewSession: 'mutation($i: ReviewSessionInput!) { reviewSession(input: $i) { id status } }',
  adminAudit:
    'query($p: String, $a: String) { adminAudit(projectId: $p, first: 25, after: $a) { edges { node { tokenId action target at } } pageInfo { hasNextPage endCursor } } }',
  setEvidenceRetention:
    'mutation($i: EvidenceRetentionInput!) { setEvidenceRetention(input: $i) { evidenceRetentionDays } }',
  sessionEvidence:
    'query($p: String!, $s: String!) { sessionEvidence(projectId: $p, sessionId: $s) { id kind attempt dataUrl } }',
  eraseSessionData: 'mutation($i: SessionRefInput!) { eraseSessionData(input: $i) { sessionId alreadyErased } }',
  resendWebhookEvent: 'mutation($i: WebhookEventRefInput!) { resendWebhookEvent(input: $i) { id state } }',
  session: SESSION_QUERY(''),
  sessionWithDetails: SESSION_QUERY(' details'),
  reviewQueue: `query($p: String!, $a: String) { reviewQueue(projectId: $p, first: 25, after: $a) { edges { node { ${SESSION_FIELDS} approvalBlockers } } pageInfo { hasNextPage endCursor } } }`,
  sessionStatus: 'query($p: String!, $s: String!) { session(projectId: $p, sessionId: $s) { id status } }',
  webhookEvents:
    'query($p: String!, $st: String, $a: String) { webhookEvents(projectId: $p, state: $st, first: 25, after: $a) { edges { node { id type state url attemptCount createdAt sessionId attempts { httpStatus error } } } pageInfo { hasNextPage endCursor } } }',
  reactivateMember: 'mutation($i: MemberActionInput!) { reactivateMember(input: $i) { email status } }',
  deactivateMember: 'mutation($i: MemberActionInput!) { deactivateMember(input: $i) { email status } }',
  members:
    'query($o: Int!, $st: String, $a: String) { members(organizationId: $o, status: $st, first: 25, after: $a) { edges { node { memberId email firstName lastName role status createdAt } } pageInfo { hasNextPage endCursor } } }',
  inviteMembers:
    'mutation($i: InviteMembersInput!) { inviteMembers(input: $i) { created { member { email status } activationLink } skipped { email reason } } }',
  billing:
    'query($p: String!) { project(projectId: $p) { balance currency } charges(projectId: $p, limit: 50) { item amount currency refunded createdAt } }',
  organizationBilling:
    'query($o: Int!) { organizationBilling(organizationId: $o) { seats estimatedNextCharge currency balance subscription { plan status pricePerSeat trialEndsAt } invoices { period seats amount } } }',
  keys: 'query($p: String!) { project(projectId: $p) { evidenceRetentionDays } apiKeys(projectId: $p) { id name prefix mode createdAt revokedAt } workflows(projectId: $p) { id name features createdAt } callbackDestinations(projectId: $p) { url mode active } }',
  revokeApiKey: 'mutation($i: RevokeApiKeyInput!) { revokeApiKey(input: $i) { id } }',
  createApiKey: 'mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { key apiKey { id } } }',
  createWorkflow: 'mutation($i: CreateWorkflowInput!) { createWorkflow(input: $i) { id name } }',
  setCallbackActive: 'mutation($i: SetCallbackActiveInput!) { setCallbackActive(input: $i) { active } }',
  dashboard:
    'query($p: String!) { sessionsPerDay(projectId: $p) { day status count } approvalRates(projectId: $p) { workflowId workflowName sessions approvalRate } timeToDecision(projectId: $p) { decided medianSeconds p90Seconds } checkFailureReasons(projectId: $p) { source type reason count } webhookStats(projectId: $p) { events delivered failed backlog oldestPendingAt successRate attemptSuccessRate } webhookHealth(projectId: $p) { destination livemode healthy attemptsLastHour successRateLastHour attemptsLastDay successRateLastDay consecutiveFailures nextRetryAt lastStatus lastError lastSuccessAt } }',
} as const;
