// The dashboard (#/dashboard): webhooks, sessions per day, approval rate per workflow, time to decision, check
// failures.
import { SESSION_STATUSES } from '../../../src/core/vocabulary.js';
import { Card } from '../../components/index.js';
import { gql } from '../api.js';
import { type HealthRow, QUERIES, type WebhookStatsRow } from '../queries.js';
import { COLORS, type Ctx, Loading, type SessionStatus, pct, secs, useLoad, when } from '../shared.js';

function BarChart({
  items,
  label,
  format,
}: {
  items: { label: string; value: number; color: string }[];
  label: string;
  format?: (value: number) => string;
}) {
  if (!items.length) return <p class="hint">No data in this range.</p>;
  const [width, barH, gap, labelW] = [560, 22, 6, 190];
  const max = Math.max(1, ...items.map((i) => i.value));
  return (
    <svg
      width="100%"
      viewBox={`0 0 ${width} ${Math.max(30, items.length * (barH + gap))}`}
      role="img"
      aria-label={label}
    >
      {items.map((item, index) => {
        const y = index * (barH + gap);
        const w = ((width - labelW - 60) * item.value) / max;
        return (
          <g>
            <text x={0} y={y + 15} font-size={12}>
              {item.label}
            </text>
            <rect x={labelW} y={y} width={Math.max(1, w)} height={barH} fill={item.color} rx={3} />
            <text x={labelW + w + 6} y={y + 15} font-size={12}>
              {format ? format(item.value) : item.value}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

function StackedDays({ rows }: { rows: { day: string; status: SessionStatus; count: number }[] }) {
  const days = [...new Set(rows.map((r) => r.day))];
  if (!days.length) return <p class="hint">No sessions in this range.</p>;
  const max = Math.max(1, ...days.map((d) => rows.filter((r) => r.day === d).reduce((sum, r) => sum + r.count, 0)));
  const [width, height] = [620, 180];
  const slot = (width - 40) / days.length;
  return (
    <div>
      <svg width="100%" viewBox={`0 0 ${width} ${height + 40}`} role="img" aria-label="Sessions per day by status">
        {days.map((day, i) => {
          let y = height;
          return (
            <g>
              {SESSION_STATUSES.map((status) => {
                const row = rows.find((r) => r.day === day && r.status === status);
                if (!row) return null;
                const barHeight = (height * row.count) / max;
                y -= barHeight;
                return (
                  <rect
                    x={40 + i * slot + 2}
                    y={y}
                    width={Math.max(2, slot - 4)}
                    height={barHeight}
                    fill={COLORS[status]}
                  >
                    <title>{day + ' ' + status + ': ' + row.count}</title>
                  </rect>
                );
              })}
              {days.length <= 14 || i % Math.ceil(days.length / 10) === 0 ? (
                <text x={40 + i * slot} y={height + 14} font-size={10}>
                  {day.slice(5)}
                </text>
              ) : null}
            </g>
          );
        })}
        <text x={0} y={12} font-size={10}>
          {String(max)}
        </text>
      </svg>
      <p>
        {SESSION_STATUSES.map((s) => (
          <span class="legend-item">
            <svg width={10} height={10} aria-hidden="true">
              <rect width={10} height={10} fill={COLORS[s]} rx={2} />
            </svg>{' '}
            <span class="pill">{s}</span>
          </span>
        ))}
      </p>
    </div>
  );
}

/**
 * The webhook headline: how receivers answer now (attempts of the last hour), unhealthy destinations first; the 30-day
 * event figures below.
 */
function WebhookCard({ health, w }: { health: HealthRow[]; w: WebhookStatsRow }) {
  const weighted = (
    attempts: 'attemptsLastHour' | 'attemptsLastDay',
    rate: 'successRateLastHour' | 'successRateLastDay',
  ) => health.reduce((sum, d) => sum + d[attempts] * (d[rate] ?? 0), 0);
  const hourAttempts = health.reduce((sum, d) => sum + d.attemptsLastHour, 0);
  const dayAttempts = health.reduce((sum, d) => sum + d.attemptsLastDay, 0);
  const hourRate = hourAttempts ? weighted('attemptsLastHour', 'successRateLastHour') / hourAttempts : null;
  const dayRate = dayAttempts ? weighted('attemptsLastDay', 'successRateLastDay') / dayAttempts : null;
  const sick = health.filter((d) => !d.healthy);
  const last = (d: HealthRow) =>
    d.lastStatus !== null
      ? 'last answer ' + d.lastStatus
      : d.lastError
        ? 'last error: ' + d.lastError
        : 'no attempt yet';
  return (
    <Card id="webhook-health">
      <h2>Webhooks</h2>
      {sick.length ? (
        <div class="unhealthy">
          <p>
            <b class="headline">{sick.length + ' unhealthy destination' + (sick.length > 1 ? 's' : '')}</b>
          </p>
          {sick.map((d) => (
            <p>
              <b>{d.destination}</b>
              {d.livemode ? '' : ' (test mode)'}
              {' · ' +
                d.consecutiveFailures +
                ' failed in a row · ' +
                last(d) +
                ' · ' +
                pct(d.successRateLastHour) +
                ' ok in the last hour'}
              {d.lastSuccessAt ? ' · last success ' + when(d.lastSuccessAt) : ' · no success in 7 days'}
              {d.nextRetryAt ? ' · next retry ' + when(d.nextRetryAt) : ''}
            </p>
          ))}
        </div>
      ) : null}
      <p>
        Attempts answered 2xx, last hour{' '}
        <span class="big" id="webhook-recent-success">
          {pct(hourRate)}
        </span>
        {' (' + hourAttempts + ' attempts) · last day ' + pct(dayRate) + ' (' + dayAttempts + ')'}
      </p>
      <p>
        {health.length +
          ' destination' +
          (health.length === 1 ? '' : 's') +
          ', ' +
          (health.length - sick.length) +
          ' healthy'}
      </p>
      <p class="hint">
        {'30 days: events eventually delivered ' + pct(w.successRate) + ' · backlog '}
        <b>{w.backlog}</b>
        {w.oldestPendingAt ? ' (oldest ' + when(w.oldestPendingAt) + ')' : ''}
        {' · delivered ' + w.delivered + ' · failed ' + w.failed + ' of ' + w.events}
      </p>
    </Card>
  );
}

export function DashboardView({ ctx }: { ctx: Ctx }) {
  const loaded = useLoad(() => gql(QUERIES.dashboard, { p: ctx.projectId }), [ctx.projectId]);
  const data = loaded.data;
  if (!data) return <Loading error={loaded.error} />;
  const t = data.timeToDecision;
  return (
    <>
      <h1>Dashboard (last 30 days)</h1>
      <div class="grid">
        <Card>
          <h2>Sessions per day</h2>
          <StackedDays rows={data.sessionsPerDay} />
        </Card>
        <Card>
          <h2>Approval rate per workflow</h2>
          <BarChart
            label="Approval rate per workflow"
            format={pct}
            items={data.approvalRates.map((r) => ({
              label: (r.workflowName || r.workflowId) + ' (' + r.sessions + ')',
              value: r.approvalRate ?? 0,
              color: '#2e9e6a',
            }))}
          />
        </Card>
        <Card>
          <h2>Time to decision</h2>
          <p>
            Median{' '}
            <span class="big" id="median">
              {secs(t.medianSeconds)}
            </span>
            {' · p90 ' + secs(t.p90Seconds) + ' · ' + t.decided + ' decided'}
          </p>
        </Card>
        <Card>
          <h2>Check failure reasons</h2>
          <BarChart
            label="Check failure reasons"
            items={data.checkFailureReasons.slice(0, 12).map((r) => ({
              label: r.type + ': ' + r.reason + (r.source === 'standalone' ? ' (standalone)' : ''),
              value: r.count,
              color: '#d0443a',
            }))}
          />
        </Card>
        <WebhookCard health={data.webhookHealth} w={data.webhookStats} />
      </div>
    </>
  );
}

// ---------- sign-in, frame and routing ----------
