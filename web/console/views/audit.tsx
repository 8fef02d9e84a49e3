// The audit view (#/audit): each identity read and each review image served, with the admin token that did it.
import { Card } from '../../components/index.js';
import { gql } from '../api.js';
import { QUERIES } from '../queries.js';
import { type Ctx, PagedList, can, when } from '../shared.js';

/** Sensitive reads (identity data, every review image served), newest first: admins only. */
export function AuditView({ ctx }: { ctx: Ctx }) {
  if (!can(ctx.me, 'admin'))
    return (
      <Card>
        <p class="hint">admin role needed to read the audit</p>
      </Card>
    );
  return (
    <Card>
      <h1>Audit</h1>
      <p class="hint">
        Each identity read and each review image served, with the admin token that did it. Decisions and their notes are
        in each session's timeline.
      </p>
      <PagedList
        heads={['At', 'Token', 'Action', 'Target']}
        version={ctx.projectId}
        load={async (after) => (await gql(QUERIES.adminAudit, { p: ctx.projectId, a: after })).adminAudit}
        row={(r) => (
          <tr>
            <td>{when(r.at)}</td>
            <td>{r.tokenId}</td>
            <td>{r.action}</td>
            <td>{r.target}</td>
          </tr>
        )}
      />
    </Card>
  );
}

// ---------- webhooks and roster ----------
