// The roster view (#/roster): an organization's members, and inviting one.
import { useState } from 'preact/hooks';
import { MEMBER_STATUSES } from '../../../src/core/vocabulary.js';
import { Button, Card, Pill } from '../../components/index.js';
import { errorText, gql } from '../api.js';
import { type MemberRow, QUERIES } from '../queries.js';
import { ActionButton, type Ctx, Out, type Outcome, PagedList, can, inputValue, options, when } from '../shared.js';

export function RosterView({ ctx }: { ctx: Ctx }) {
  const [organizationId, setOrganizationId] = useState(ctx.organizations[0]?.id ?? null);
  const [status, setStatus] = useState('');
  const [outcome, report] = useState<Outcome>(null);
  const [round, setRound] = useState(0);
  const [invite, setInvite] = useState({ email: '', firstName: '', lastName: '', notify: false });
  const admin = can(ctx.me, 'admin');
  if (organizationId === null)
    return (
      <Card>
        <h1>Roster</h1>
        <p class="hint">No organization is visible to this token.</p>
      </Card>
    );
  const memberAction = (name: 'reactivateMember' | 'deactivateMember', label: string, memberId: string) =>
    admin ? (
      <ActionButton
        label={label}
        variant="secondary"
        report={report}
        work={async () => {
          const data = await gql(QUERIES[name], { i: { organizationId, memberId } });
          setRound((n) => n + 1);
          return data[name]!.email + ' is now ' + data[name]!.status;
        }}
      />
    ) : null;
  const sendInvite = async (event: Event) => {
    event.preventDefault();
    try {
      const data = await gql(QUERIES.inviteMembers, {
        i: {
          organizationId,
          members: [
            {
              email: invite.email.trim(),
              firstName: invite.firstName.trim() || null,
              lastName: invite.lastName.trim() || null,
            },
          ],
          notify: invite.notify,
          invite: invite.notify ? 'email' : 'face',
        },
      });
      const result = data.inviteMembers;
      const made = result.created[0];
      report({
        kind: 'ok',
        text: made
          ? 'Invited ' +
            made.member.email +
            (made.activationLink ? ': activation link ' + made.activationLink : ' (emailed)')
          : 'Not invited: ' + result.skipped.map((s) => s.email + ' ' + s.reason).join(', '),
      });
      setInvite({ email: '', firstName: '', lastName: '', notify: false });
      setRound((n) => n + 1);
    } catch (error) {
      report({ kind: 'error', text: errorText(error) });
    }
  };
  const text = (name: 'email' | 'firstName' | 'lastName') => ({
    name,
    value: invite[name],
    onInput: (e: Event) => setInvite({ ...invite, [name]: inputValue(e) }),
  });
  return (
    <Card>
      <h1>Roster</h1>
      <form class="row">
        <label>
          Organization
          <select
            aria-label="Organization"
            value={String(organizationId)}
            onChange={(e) => setOrganizationId(Number(inputValue(e)))}
          >
            {ctx.organizations.map((o) => (
              <option value={String(o.id)}>{o.name + ' (#' + o.id + ')'}</option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select aria-label="Member status" value={status} onChange={(e) => setStatus(inputValue(e))}>
            {options(MEMBER_STATUSES, 'any status')}
          </select>
        </label>
      </form>
      <h2>Invite a member</h2>
      <form class="row" onSubmit={sendInvite}>
        <label>
          Email
          <input type="email" required placeholder="person@example.com" {...text('email')} />
        </label>
        <label>
          First name
          <input placeholder="First name" {...text('firstName')} />
        </label>
        <label>
          Last name
          <input placeholder="Last name" {...text('lastName')} />
        </label>
        <label>
          Email the link
          <input
            type="checkbox"
            name="notify"
            checked={invite.notify}
            onChange={(e) => setInvite({ ...invite, notify: (e.target as HTMLInputElement).checked })}
          />
        </label>
        <Button type="submit" disabled={!admin}>
          Invite
        </Button>
      </form>
      <Out outcome={outcome} />
      <h2>Members</h2>
      <PagedList<MemberRow>
        heads={['Member', 'Email', 'Name', 'Role', 'Status', 'Since', '']}
        version={`${organizationId}/${status}/${round}`}
        load={async (after) =>
          (await gql(QUERIES.members, { o: organizationId, st: status || null, a: after })).members
        }
        row={(m) => (
          <tr>
            <td>{m.memberId}</td>
            <td>{m.email}</td>
            <td>{(m.firstName + ' ' + m.lastName).trim()}</td>
            <td>{m.role}</td>
            <td>
              <Pill value={m.status} />
            </td>
            <td>{when(m.createdAt)}</td>
            <td>
              {m.status === 'deactivated'
                ? memberAction('reactivateMember', 'Reactivate', m.memberId)
                : memberAction('deactivateMember', 'Deactivate', m.memberId)}
            </td>
          </tr>
        )}
      />
    </Card>
  );
}

// ---------- billing, keys and workflows ----------
