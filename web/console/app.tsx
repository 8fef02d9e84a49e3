// The admin console (Preact): sign in with an admin token, then one view per hash route. Every
// list is a server-side page of the GraphQL admin API; the statuses, features and roles offered
// come from core (src/core/vocabulary.ts).
import { useEffect, useState } from 'preact/hooks';
import { Button, Card } from '../components/index.js';
import { errorText, gql, PROJECT_KEY, TOKEN_KEY, whenUnauthenticated } from './api.js';
import { QUERIES } from './queries.js';
import { type Ctx, VIEWS, inputValue } from './shared.js';
import { AuditView } from './views/audit.js';
import { BillingView } from './views/billing.js';
import { DashboardView } from './views/dashboard.js';
import { KeysView } from './views/keys.js';
import { ReviewView } from './views/review.js';
import { RosterView } from './views/roster.js';
import { SessionView } from './views/session.js';
import { SessionsView } from './views/sessions.js';
import { WebhooksView } from './views/webhooks.js';

function SignIn({ error, onSignIn }: { error: string | null; onSignIn: (token: string) => void }) {
  const [token, setToken] = useState('');
  return (
    <main class="console">
      <Card>
        <form
          id="signin"
          onSubmit={(e) => {
            e.preventDefault();
            onSignIn(token.trim());
          }}
        >
          <h1>Verity admin</h1>
          <p class="hint">Sign in with an admin token (viewer, reviewer or admin). It stays in this tab only.</p>
          <input
            type="password"
            name="token"
            placeholder="vat_..."
            autocomplete="off"
            required
            aria-label="Admin token"
            value={token}
            onInput={(e) => setToken(inputValue(e))}
          />
          <p>
            <Button type="submit">Sign in</Button>
          </p>
          {error ? (
            <div class="error" role="alert">
              {error}
            </div>
          ) : null}
        </form>
      </Card>
    </main>
  );
}

function useHashRoute(): [string, string | undefined] {
  const read = () => location.hash.replace(/^#\/?/, '').split('/');
  const [parts, setParts] = useState(read());
  useEffect(() => {
    const update = () => setParts(read());
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return [parts[0] || 'dashboard', parts[1] ? decodeURIComponent(parts[1]) : undefined];
}

function Console({ ctx, onProject, onSignOut }: { ctx: Ctx; onProject: (id: string) => void; onSignOut: () => void }) {
  const [view, arg] = useHashRoute();
  const tab = view === 'session' ? 'sessions' : view;
  const body =
    view === 'session' && arg ? (
      <SessionView ctx={ctx} sessionId={arg} />
    ) : view === 'sessions' ? (
      <SessionsView ctx={ctx} />
    ) : view === 'review' ? (
      <ReviewView ctx={ctx} />
    ) : view === 'webhooks' ? (
      <WebhooksView ctx={ctx} />
    ) : view === 'roster' ? (
      <RosterView ctx={ctx} />
    ) : view === 'billing' ? (
      <BillingView ctx={ctx} />
    ) : view === 'keys' ? (
      <KeysView ctx={ctx} />
    ) : view === 'audit' ? (
      <AuditView ctx={ctx} />
    ) : (
      <DashboardView ctx={ctx} />
    );
  return (
    <>
      <header class="bar">
        <b>Verity admin</b>
        <select aria-label="Project" value={ctx.projectId} onChange={(e) => onProject(inputValue(e))}>
          {ctx.projects.map((p) => (
            <option value={p.id}>{p.name + ' (' + p.id + ')'}</option>
          ))}
        </select>
        <span class="who">{ctx.me.role + (ctx.me.projectId ? ' · one project' : ' · all projects')}</span>
        {/* The GraphQL IDE in this tab: it reads the token this console signed in with (this tab's sessionStorage). */}
        <a class="graphiql-link" href="/graphql">
          GraphQL
        </a>
        <Button variant="secondary" onClick={onSignOut}>
          Sign out
        </Button>
      </header>
      <nav class="views">
        {VIEWS.map(([id, label]) => (
          <a href={'#/' + id} class={tab === id ? 'on' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      {/* A new project or view starts its component afresh. */}
      <main class="console" key={`${ctx.projectId}/${view}/${arg ?? ''}`}>
        {body}
      </main>
    </>
  );
}

export function App() {
  const [ctx, setCtx] = useState<Ctx | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [starting, setStarting] = useState(Boolean(sessionStorage.getItem(TOKEN_KEY)));
  const signOut = () => {
    sessionStorage.removeItem(TOKEN_KEY);
    setCtx(null);
  };
  whenUnauthenticated(signOut);
  const start = async () => {
    try {
      const data = await gql(QUERIES.start);
      const remembered = sessionStorage.getItem(PROJECT_KEY);
      // undefined when the token sees no project: each view then shows the API's refusal.
      const projectId = (data.projects.find((p) => p.id === remembered) ?? data.projects[0])?.id as string;
      setCtx({ me: data.me, projects: data.projects, organizations: data.organizations, projectId });
      setError(null);
      if (!location.hash) location.hash = '#/dashboard';
    } catch (failure) {
      sessionStorage.removeItem(TOKEN_KEY);
      setError(errorText(failure));
    } finally {
      setStarting(false);
    }
  };
  useEffect(() => {
    if (starting) void start();
  }, []);
  if (starting)
    return (
      <main class="console">
        <p class="hint">Loading…</p>
      </main>
    );
  if (!ctx)
    return (
      <SignIn
        error={error}
        onSignIn={(token) => {
          sessionStorage.setItem(TOKEN_KEY, token);
          void start();
        }}
      />
    );
  return (
    <Console
      ctx={ctx}
      onSignOut={signOut}
      onProject={(projectId) => {
        sessionStorage.setItem(PROJECT_KEY, projectId);
        setCtx({ ...ctx, projectId });
      }}
    />
  );
}
