// The webhooks view (#/webhooks): deliveries by state, with resend.
import { useState } from 'preact/hooks';
import { WEBHOOK_EVENT_STATES } from '../../../src/core/vocabulary.js';
import { Card, Pill } from '../../components/index.js';
import { gql } from '../api.js';
import { QUERIES, type WebhookEventRow } from '../queries.js';
import { ResendButton } from '../review-parts.js';
import { type Ctx, Out, type Outcome, PagedList, inputValue, options, when } from '../shared.js';

export function WebhooksView({ ctx }: { ctx: Ctx }) {
  const [outcome, report] = useState<Outcome>(null);
  const [state, setState] = useState('');
  return (
    <Card>
      <h1>Webhook deliveries</h1>
      <form class="row">
        <label>
          State
          <select name="state" aria-label="State" value={state} onChange={(e) => setState(inputValue(e))}>
            {options(WEBHOOK_EVENT_STATES, 'any state')}
          </select>
        </label>
      </form>
      <Out outcome={outcome} />
      <PagedList<WebhookEventRow>
        heads={['Event', 'Session', 'Destination', 'Type', 'State', 'Attempts', 'Last answer', 'Created', '']}
        version={`${ctx.projectId}/${state}`}
        load={async (after) =>
          (await gql(QUERIES.webhookEvents, { p: ctx.projectId, st: state || null, a: after })).webhookEvents
        }
        row={(e) => {
          const last = e.attempts.at(-1);
          return (
            <tr>
              <td>{e.id}</td>
              <td>
                <a href={'#/session/' + encodeURIComponent(e.sessionId)}>{e.sessionId}</a>
              </td>
              <td class="destination">{e.url ?? <span class="hint">no destination</span>}</td>
              <td>{e.type}</td>
              <td>
                <Pill value={e.state} />
              </td>
              <td>{e.attemptCount}</td>
              <td>{last ? (last.httpStatus === null ? last.error || 'no answer' : 'HTTP ' + last.httpStatus) : ''}</td>
              <td>{when(e.createdAt)}</td>
              <td>
                <ResendButton ctx={ctx} eventId={e.id} report={report} />
              </td>
            </tr>
          );
        }}
      />
    </Card>
  );
}
