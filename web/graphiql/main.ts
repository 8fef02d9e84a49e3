// The GraphQL IDE at /graphql (GraphiQL from npm, bundled: nothing is fetched from a CDN). The
// admin token typed above the IDE is sent as the bearer token and kept in this tab only.
import 'graphiql/graphiql.css';
import '../design/tokens.css';
import './graphiql.css';
import { GraphiQL } from 'graphiql';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';

const TOKEN_KEY = 'verity-admin-token';
const tokenInput = document.getElementById('token') as HTMLInputElement;
tokenInput.value = sessionStorage.getItem(TOKEN_KEY) ?? '';

async function fetcher(params: unknown, options?: { headers?: Record<string, string> }): Promise<unknown> {
  const token = tokenInput.value.trim();
  // Nothing is sent without a token: the API would only answer 401.
  if (!token) return { errors: [{ message: 'Type an admin token in the field above.' }] };
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...options?.headers,
    },
    body: JSON.stringify(params),
  });
  return response.json();
}

const DEFAULT_QUERY = `# Verity's admin API. Type an admin token above, then run this with the play button.
{
  me { role projectId }
  projects { id name balance currency }
}
`;

const root = createRoot(document.getElementById('graphiql')!);
let mounts = 0;
/**
 * The query a new mount starts with: the one being edited (GraphiQL keeps it in localStorage under
 * `graphiql:query`), or the default when that is blank. A remount can otherwise read the blank
 * text the previous mount stored before its editor filled in the default, and show an empty editor.
 */
const startingQuery = () =>
  localStorage.getItem('graphiql:query')?.trim() ? (localStorage.getItem('graphiql:query') as string) : DEFAULT_QUERY;
/** Mounts the IDE afresh, so it reads the schema with the token now in the field. */
const mount = () =>
  root.render(
    createElement(GraphiQL, {
      key: ++mounts,
      fetcher,
      query: startingQuery(),
      defaultQuery: DEFAULT_QUERY,
      shouldPersistHeaders: false,
    }),
  );
tokenInput.addEventListener('change', () => {
  sessionStorage.setItem(TOKEN_KEY, tokenInput.value.trim());
  mount();
});
mount();
