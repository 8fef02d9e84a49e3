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
tokenInput.addEventListener('input', () => sessionStorage.setItem(TOKEN_KEY, tokenInput.value.trim()));

async function fetcher(params: unknown, options?: { headers?: Record<string, string> }): Promise<unknown> {
  const token = tokenInput.value.trim();
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...options?.headers },
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

createRoot(document.getElementById('graphiql')!).render(createElement(GraphiQL, { fetcher, defaultQuery: DEFAULT_QUERY, shouldPersistHeaders: false }));
