// What the admin console's views share: formatting, loading, paging and the outcome line (the rows they read are typed
// in queries.ts).
import { type ComponentChildren, Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ADMIN_ROLES, type SESSION_STATUSES } from '../../src/core/vocabulary.js';
import { Button, Pager, Pill, Table } from '../components/index.js';
import { errorText } from './api.js';
import type { Connection } from '../../src/core/ops/page.js';
import type { MeRow, OrganizationRow, ProjectRow, SessionRow } from './queries.js';

type Role = (typeof ADMIN_ROLES)[number];
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** Who is signed in and what they see; every view gets it. */
export interface Ctx {
  me: MeRow;
  projects: ProjectRow[];
  organizations: OrganizationRow[];
  projectId: string;
}
export type Outcome = { kind: 'error' | 'ok'; text: string } | null;

// Chart colours per status (pills use the design system's tones).
export const COLORS: Record<SessionStatus, string> = {
  NOT_STARTED: '#b9c3d4',
  IN_PROGRESS: '#6f9cf2',
  IN_REVIEW: '#f2c14e',
  APPROVED: '#2e9e6a',
  DECLINED: '#d0443a',
  EXPIRED: '#8a94a6',
  ABANDONED: '#5a6577',
};
export const VIEWS = [
  ['dashboard', 'Dashboard'],
  ['sessions', 'Sessions'],
  ['review', 'Review queue'],
  ['webhooks', 'Webhooks'],
  ['roster', 'Roster'],
  ['billing', 'Billing'],
  ['keys', 'Keys & workflows'],
  ['audit', 'Audit'],
] as const;

export const when = (iso: string | null | undefined) =>
  iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 19) : '';
export const pct = (v: number | null) => (v === null ? '—' : (v * 100).toFixed(1) + '%');
export const secs = (v: number | null) =>
  v === null ? '—' : v < 120 ? v.toFixed(0) + ' s' : (v / 60).toFixed(1) + ' min';
export const can = (me: MeRow, role: Role) => ADMIN_ROLES.indexOf(me.role) >= ADMIN_ROLES.indexOf(role);
export const options = (values: readonly string[], any: string) => [
  <option value="">{any}</option>,
  ...values.map((value) => <option value={value}>{value}</option>),
];
export const inputValue = (event: Event) => (event.target as HTMLInputElement).value;

/** The result of the last action: an alert or a status line. */
export function Out({ outcome }: { outcome: Outcome }) {
  if (!outcome) return <div />;
  return (
    <div>
      <div class={outcome.kind} role={outcome.kind === 'error' ? 'alert' : 'status'}>
        {outcome.text}
      </div>
    </div>
  );
}

/** A button that runs `work` (disabled meanwhile) and reports its text, or its error, through `report`. */
export function ActionButton({
  label,
  variant,
  disabled,
  describedBy,
  work,
  report,
}: {
  label: string;
  variant?: 'primary' | 'secondary' | 'danger';
  disabled?: boolean;
  describedBy?: string;
  work: () => Promise<string>;
  report: (outcome: Outcome) => void;
}) {
  const [busy, setBusy] = useState(false);
  const run = async (event: Event) => {
    event.preventDefault();
    event.stopPropagation();
    setBusy(true);
    try {
      report({ kind: 'ok', text: await work() });
    } catch (error) {
      report({ kind: 'error', text: errorText(error) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button variant={variant} disabled={disabled || busy} aria-describedby={describedBy} onClick={run}>
      {label}
    </Button>
  );
}

/** Loads once per change of `deps`; the view shows "Loading…" until then and the error if it fails. */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
): { data: T | null; error: string | null; reload: () => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setError(null);
    load().then(
      (value) => current && setData(value),
      (failure) => current && setError(errorText(failure)),
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  return { data, error, reload: () => setRound((n) => n + 1) };
}

export function Loading({ error }: { error: string | null }) {
  return error ? (
    <div>
      <div class="error" role="alert">
        {error}
      </div>
    </div>
  ) : (
    <p class="hint">Loading…</p>
  );
}

/**
 * A server-side paged list: `load(after)` gives a connection; a change of `version` goes back to
 * page 1, a change of `refresh` reads the page shown again (a queue others work on). `rowKey` keeps
 * each row's own state (a note being typed) on its row when rows above it go away.
 */
export function PagedList<T>({
  heads,
  load,
  row,
  version,
  refresh,
  rowKey,
}: {
  heads: string[];
  load: (after: string | null) => Promise<Connection<T>>;
  row: (node: T) => ComponentChildren;
  version: unknown;
  refresh?: unknown;
  rowKey?: (node: T) => string;
}) {
  const [stack, setStack] = useState<(string | null)[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [page, setPage] = useState<Connection<T> | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setStack([]);
    setCursor(null);
  }, [version]);
  useEffect(() => {
    load(cursor).then(
      (connection) => {
        setPage(connection);
        setError(null);
      },
      (failure) => setError(errorText(failure)),
    );
  }, [cursor, version, refresh]);
  if (!page) return <Loading error={error} />;
  return (
    <div>
      {error ? (
        <div class="error" role="alert">
          {error}
        </div>
      ) : null}
      <Table heads={heads}>
        {page.edges.length ? (
          page.edges.map((edge, i) => <Fragment key={rowKey ? rowKey(edge.node) : i}>{row(edge.node)}</Fragment>)
        ) : (
          <tr>
            <td colSpan={heads.length} class="hint">
              Nothing here.
            </td>
          </tr>
        )}
      </Table>
      <Pager
        page={stack.length + 1}
        hasPrevious={stack.length > 0}
        hasNext={page.pageInfo.hasNextPage}
        onPrevious={() => {
          setCursor(stack.at(-1) ?? null);
          setStack(stack.slice(0, -1));
        }}
        onNext={() => {
          setStack([...stack, cursor]);
          setCursor(page.pageInfo.endCursor);
        }}
      />
    </div>
  );
}

// ---------- sessions and reviews ----------

/** Marks a session made with a test key, so sandbox traffic is never mistaken for a real person's. */
export function TestBadge({ livemode }: { livemode: boolean }) {
  return livemode ? null : (
    <span
      class="pill pill--wait test-badge"
      title="Made with a test API key (vk_test_): not charged, outcomes may be forced"
    >
      Test
    </span>
  );
}

export function SessionRowView({ session, extra }: { session: SessionRow; extra?: ComponentChildren }) {
  return (
    <tr
      class="link"
      onClick={() => {
        location.hash = '#/session/' + encodeURIComponent(session.id);
      }}
    >
      <td>
        {session.id} <TestBadge livemode={session.livemode} />
      </td>
      <td>
        <Pill value={session.status} />
      </td>
      <td>{session.workflow?.name ?? ''}</td>
      <td>{session.vendorData ?? ''}</td>
      <td>{when(session.createdAt)}</td>
      {extra ? <td>{extra}</td> : null}
    </tr>
  );
}
