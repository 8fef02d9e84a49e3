// A Redocly CLI plugin (redocly.yaml: plugins) with the reference's own rule: every operation,
// webhooks included, says what it is for and shows an example. `npm run openapi:lint` runs it in
// CI; test/api-reference.test.ts applies `operationProblems` to the document the service serves.

/** Fewer characters than this is a label, not a description. */
const MIN_DESCRIPTION = 40;

/** Whether a media type object shows an example (`example`, or a non-empty `examples`). */
const showsExample = (media) =>
  media !== null &&
  typeof media === 'object' &&
  (media.example !== undefined || Object.keys(media.examples ?? {}).length > 0);

/**
 * What a reader learning the API misses in one operation: a description (at least
 * MIN_DESCRIPTION characters), an example of each request body media type, and at least one
 * example at all (a request or an answer).
 */
export function operationProblems(operation) {
  const problems = [];
  if (typeof operation.description !== 'string' || operation.description.trim().length < MIN_DESCRIPTION) {
    problems.push(
      `has no description (at least ${MIN_DESCRIPTION} characters saying what it is for and how to use it)`,
    );
  }
  const requests = Object.entries(operation.requestBody?.content ?? {});
  for (const [type, media] of requests)
    if (!showsExample(media)) problems.push(`its ${type} request body has no example`);
  const answers = Object.values(operation.responses ?? {}).flatMap((response) =>
    Object.values(response?.content ?? {}),
  );
  if (![...requests.map(([, media]) => media), ...answers].some(showsExample))
    problems.push('shows no example of a request or an answer');
  return problems;
}

function OperationExplained() {
  return {
    Operation: {
      leave(operation, ctx) {
        for (const problem of operationProblems(operation))
          ctx.report({
            message: `${operation.operationId ?? 'the operation'} ${problem}`,
            location: ctx.location.key(),
          });
      },
    },
  };
}

export default function referencePlugin() {
  return { id: 'reference', rules: { oas3: { 'operation-explained': OperationExplained } } };
}
