// Keys and workflows (#/keys): API keys, review images, workflows and callback destinations.
import { useState } from 'preact/hooks';
import { WORKFLOW_FEATURES } from '../../../src/core/vocabulary.js';
import { Card, Pill, Table } from '../../components/index.js';
import { gql } from '../api.js';
import { QUERIES } from '../queries.js';
import { ActionButton, type Ctx, Loading, Out, type Outcome, can, inputValue, useLoad, when } from '../shared.js';

export function KeysView({ ctx }: { ctx: Ctx }) {
  const [outcome, report] = useState<Outcome>(null);
  const [keyName, setKeyName] = useState('');
  const [keyMode, setKeyMode] = useState<'live' | 'test'>('live');
  const [workflowName, setWorkflowName] = useState('');
  const [features, setFeatures] = useState<string[]>([]);
  const [retention, setRetention] = useState<string | null>(null);
  const loaded = useLoad(() => gql(QUERIES.keys, { p: ctx.projectId }), [ctx.projectId]);
  if (!loaded.data) return <Loading error={loaded.error} />;
  const data = loaded.data;
  type Key = {
    id: string;
    name: string;
    prefix: string;
    mode: 'live' | 'test';
    createdAt: string;
    revokedAt: string | null;
  };
  type Workflow = { id: string; name: string; features: string[]; createdAt: string };
  type Destination = { url: string; mode: string; active: boolean };
  const admin = can(ctx.me, 'admin');
  const later = () => setTimeout(loaded.reload, 800);
  return (
    <>
      <Out outcome={outcome} />
      <Card>
        <h2>Review images</h2>
        <p class="hint">
          Document images and the selfie frame are kept sealed while a session is open or in review, then for this many
          days after the decision (0: deleted at the decision).
        </p>
        <form class="row" onSubmit={(e) => e.preventDefault()}>
          <label>
            Days kept after the decision
            <input
              name="retention"
              type="number"
              min="0"
              max="3650"
              disabled={!admin}
              value={retention ?? String(data.project.evidenceRetentionDays)}
              onInput={(e) => setRetention(inputValue(e))}
            />
          </label>
          {admin ? (
            <ActionButton
              label="Save retention"
              report={report}
              work={async () => {
                const saved = await gql(QUERIES.setEvidenceRetention, {
                  i: { projectId: ctx.projectId, days: Number(retention ?? data.project.evidenceRetentionDays) },
                });
                return (
                  'Review images are kept ' +
                  saved.setEvidenceRetention.evidenceRetentionDays +
                  ' days after the decision'
                );
              }}
            />
          ) : null}
        </form>
      </Card>
      <Card>
        <h1>API keys</h1>
        <p class="hint">Secrets are shown once, at creation; the list never holds them.</p>
        <Table heads={['Prefix', 'Name', 'Mode', 'Created', 'Revoked', '']}>
          {data.apiKeys.map((k: Key) => (
            <tr>
              <td>{k.prefix}…</td>
              <td>{k.name}</td>
              <td>{k.mode}</td>
              <td>{when(k.createdAt)}</td>
              <td>{when(k.revokedAt)}</td>
              <td>
                {admin && !k.revokedAt ? (
                  <ActionButton
                    label="Revoke"
                    variant="danger"
                    report={report}
                    work={async () => {
                      await gql(QUERIES.revokeApiKey, { i: { projectId: ctx.projectId, apiKeyId: k.id } });
                      later();
                      return 'Key ' + k.prefix + '… revoked';
                    }}
                  />
                ) : null}
              </td>
            </tr>
          ))}
        </Table>
        <form class="row">
          <input
            placeholder="Key name"
            aria-label="Key name"
            value={keyName}
            onInput={(e) => setKeyName(inputValue(e))}
          />
          <label>
            Mode
            <select
              name="keyMode"
              aria-label="Key mode"
              value={keyMode}
              onChange={(e) => setKeyMode((e.target as HTMLSelectElement).value as 'live' | 'test')}
            >
              <option value="live">live (charged, real sessions)</option>
              <option value="test">test (vk_test_, never charged)</option>
            </select>
          </label>
          <ActionButton
            label="Create API key"
            disabled={!admin}
            report={report}
            work={async () => {
              const made = (
                await gql(QUERIES.createApiKey, {
                  i: { projectId: ctx.projectId, name: keyName.trim() || null, mode: keyMode },
                })
              ).createApiKey;
              later();
              return 'New ' + keyMode + ' key (shown once, copy it now): ' + made.key;
            }}
          />
        </form>
      </Card>
      <Card>
        <h2>Workflows</h2>
        <Table heads={['Id', 'Name', 'Features', 'Created']}>
          {data.workflows.map((w: Workflow) => (
            <tr>
              <td>{w.id}</td>
              <td>{w.name}</td>
              <td>{w.features.join(', ')}</td>
              <td>{when(w.createdAt)}</td>
            </tr>
          ))}
        </Table>
        <form class="row">
          <input
            placeholder="Workflow name"
            aria-label="Workflow name"
            value={workflowName}
            onInput={(e) => setWorkflowName(inputValue(e))}
          />
          {WORKFLOW_FEATURES.map((feature) => (
            <label>
              {feature}
              <input
                type="checkbox"
                value={feature}
                checked={features.includes(feature)}
                onChange={(e) =>
                  setFeatures(
                    (e.target as HTMLInputElement).checked
                      ? [...features, feature]
                      : features.filter((f) => f !== feature),
                  )
                }
              />
            </label>
          ))}
          <ActionButton
            label="Create workflow"
            disabled={!admin}
            report={report}
            work={async () => {
              const wf = (
                await gql(QUERIES.createWorkflow, {
                  i: { projectId: ctx.projectId, name: workflowName.trim(), features },
                })
              ).createWorkflow;
              later();
              return 'Workflow ' + wf.name + ' created: ' + wf.id;
            }}
          />
        </form>
      </Card>
      <Card>
        <h2>Callback destinations</h2>
        <Table heads={['URL', 'Mode', 'Active', '']}>
          {data.callbackDestinations.map((d: Destination) => (
            <tr>
              <td>{d.url}</td>
              <td>{d.mode}</td>
              <td>
                <Pill value={d.active ? 'active' : 'disabled'} />
              </td>
              <td>
                {admin ? (
                  <ActionButton
                    label={d.active ? 'Disable' : 'Enable'}
                    variant="secondary"
                    report={report}
                    work={async () => {
                      await gql(QUERIES.setCallbackActive, {
                        i: { projectId: ctx.projectId, url: d.url, mode: d.mode, active: !d.active },
                      });
                      later();
                      return d.url + ' (' + d.mode + ')' + (d.active ? ' disabled' : ' enabled');
                    }}
                  />
                ) : null}
              </td>
            </tr>
          ))}
        </Table>
      </Card>
    </>
  );
}

// ---------- dashboard ----------
