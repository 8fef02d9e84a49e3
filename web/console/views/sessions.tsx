// The sessions view (#/sessions): a filtered, server-side page of the project's sessions.
import { useState } from 'preact/hooks';
import { SESSION_STATUSES } from '../../../src/core/vocabulary.js';
import { Button, Card } from '../../components/index.js';
import { gql } from '../api.js';
import { QUERIES, type SessionRow } from '../queries.js';
import {
  type Ctx,
  Loading,
  PagedList,
  SessionRowView,
  type SessionStatus,
  inputValue,
  options,
  useLoad,
} from '../shared.js';

const EMPTY_FILTER = {
  status: '',
  workflowId: '',
  vendorData: '',
  svcId: '',
  decision: '',
  createdFrom: '',
  createdTo: '',
};

export function SessionsView({ ctx }: { ctx: Ctx }) {
  const workflows = useLoad(
    async () => (await gql(QUERIES.workflowNames, { p: ctx.projectId })).workflows,
    [ctx.projectId],
  );
  const [form, setForm] = useState(EMPTY_FILTER);
  const [sort, setSort] = useState('CREATED_AT_DESC');
  const [applied, setApplied] = useState({ filter: EMPTY_FILTER, sort: 'CREATED_AT_DESC', round: 0 });
  const field = (name: keyof typeof EMPTY_FILTER) => ({
    name,
    value: form[name],
    onInput: (e: Event) => setForm({ ...form, [name]: inputValue(e) }),
    onChange: (e: Event) => setForm({ ...form, [name]: inputValue(e) }),
  });
  const filter = () =>
    Object.fromEntries(
      Object.entries(applied.filter)
        .filter(([, value]) => value)
        .map(([key, value]) => [key, key.startsWith('created') ? value + 'T00:00:00Z' : value.trim()]),
    );
  if (!workflows.data) return <Loading error={workflows.error} />;
  return (
    <Card>
      <h1>Sessions</h1>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied({ filter: form, sort, round: applied.round + 1 });
        }}
      >
        <label>
          Status<select {...field('status')}>{options(SESSION_STATUSES, 'any')}</select>
        </label>
        <label>
          Workflow
          <select {...field('workflowId')}>
            <option value="">any</option>
            {workflows.data.map((w) => (
              <option value={w.id}>{w.name}</option>
            ))}
          </select>
        </label>
        <label>
          Vendor data
          <input {...field('vendorData')} placeholder="exact" />
        </label>
        <label>
          svc_id
          <input {...field('svcId')} placeholder="svc_…" />
        </label>
        <label>
          Decision
          <select {...field('decision')}>
            {options(['APPROVED', 'DECLINED', 'EXPIRED', 'ABANDONED'] satisfies SessionStatus[], 'any')}
          </select>
        </label>
        <label>
          Created from
          <input type="date" {...field('createdFrom')} />
        </label>
        <label>
          Created before
          <input type="date" {...field('createdTo')} />
        </label>
        <label>
          Sort
          <select name="sort" value={sort} onChange={(e) => setSort(inputValue(e))}>
            <option value="CREATED_AT_DESC">newest first</option>
            <option value="CREATED_AT_ASC">oldest first</option>
          </select>
        </label>
        <Button type="submit">Search</Button>
      </form>
      <PagedList<SessionRow>
        heads={['Session', 'Status', 'Workflow', 'Vendor data', 'Created']}
        version={`${ctx.projectId}/${applied.round}`}
        load={async (after) =>
          (await gql(QUERIES.sessions, { p: ctx.projectId, f: filter(), s: applied.sort, a: after })).sessions
        }
        row={(s) => <SessionRowView session={s} />}
      />
    </Card>
  );
}
