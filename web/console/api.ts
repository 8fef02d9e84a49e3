// The console's one way to the admin API: GraphQL documents from queries.ts, the admin token from
// this tab's sessionStorage (gone when the tab closes).
import type { Query } from './queries.js';

export const TOKEN_KEY = 'verity-admin-token';
export const PROJECT_KEY = 'verity-admin-project';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** What the console does when the API says the token is no good (revoked mid-session): sign out. */
let onUnauthenticated: () => void = () => {};
export const whenUnauthenticated = (handler: () => void) => {
  onUnauthenticated = handler;
};

/** The data a document of queries.ts answers, typed by that document. */
export async function gql<Data>(query: Query<Data>, variables: Record<string, unknown> = {}): Promise<Data> {
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + sessionStorage.getItem(TOKEN_KEY) },
    body: JSON.stringify({ query, variables }),
  });
  const body = await response
    .json()
    .catch(() => ({ errors: [{ message: 'unreadable answer', extensions: { code: 'internal_error' } }] }));
  if (body.errors?.length) {
    const error = body.errors[0];
    if (error.extensions?.code === 'unauthenticated') onUnauthenticated();
    throw new ApiError(error.message, error.extensions?.code);
  }
  return body.data as Data;
}

/**
 * An error as the console shows it: the server's sentence, without its catalog code in front (the code stays on the
 * error for the console's own rules).
 */
export const errorText = (error: unknown) => (error as ApiError).message;
