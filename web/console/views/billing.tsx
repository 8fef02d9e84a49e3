// The billing view (#/billing): the project's latest charges and each organization's roster billing.
import { Card, Pill, Table } from '../../components/index.js';
import { gql } from '../api.js';
import { QUERIES } from '../queries.js';
import { type Ctx, Loading, useLoad, when } from '../shared.js';

export function BillingView({ ctx }: { ctx: Ctx }) {
  const loaded = useLoad(async () => {
    const wallet = await gql(QUERIES.billing, { p: ctx.projectId });
    const organizations = [];
    for (const org of ctx.organizations)
      organizations.push({ org, billing: (await gql(QUERIES.organizationBilling, { o: org.id })).organizationBilling });
    return { wallet, organizations };
  }, [ctx.projectId]);
  if (!loaded.data) return <Loading error={loaded.error} />;
  const { wallet, organizations } = loaded.data;
  const project = ctx.projects.find((p) => p.id === ctx.projectId);
  return (
    <>
      <Card>
        <h1>Billing</h1>
        <p>
          Wallet of {project ? project.name : ctx.projectId}:{' '}
          <span class="big">{wallet.project.balance.toFixed(2) + ' ' + wallet.project.currency}</span>
        </p>
        <h2>Latest charges</h2>
        <Table heads={['When', 'Item', 'Amount', '']}>
          {wallet.charges.map((c) => (
            <tr>
              <td>{when(c.createdAt)}</td>
              <td>{c.item}</td>
              <td>{c.amount.toFixed(2) + ' ' + c.currency}</td>
              <td>{c.refunded ? <Pill value="refunded" /> : ''}</td>
            </tr>
          ))}
        </Table>
      </Card>
      {organizations.map(({ org, billing: b }) => (
        <Card>
          <h2>Roster billing: {org.name}</h2>
          <p>
            {b.subscription
              ? 'Plan ' +
                b.subscription.plan +
                ' (' +
                b.subscription.status +
                '), ' +
                b.subscription.pricePerSeat +
                ' ' +
                b.currency +
                ' per seat'
              : 'No plan'}
            {' · seats ' +
              b.seats +
              ' · next charge ' +
              b.estimatedNextCharge +
              ' ' +
              b.currency +
              ' · owed ' +
              b.balance +
              ' ' +
              b.currency}
          </p>
          <Table heads={['Period', 'Seats', 'Amount']}>
            {b.invoices.map((i) => (
              <tr>
                <td>{i.period}</td>
                <td>{i.seats}</td>
                <td>{i.amount + ' ' + b.currency}</td>
              </tr>
            ))}
          </Table>
        </Card>
      ))}
    </>
  );
}
