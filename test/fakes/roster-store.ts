import { DomainError } from '../../src/core/errors.js';
import type {
  ActivationTargetRecord,
  AuditEntry,
  AuditRecord,
  InvoiceRecord,
  MemberKey,
  MemberRecord,
  NewMemberRecord,
  PlanRecord,
  RosterStore,
  RosterTransaction,
  RosterTx,
  SeatStretch,
} from '../../src/core/roster/store.js';

interface RosterTables {
  organizations: { id: number; name: string }[];
  members: MemberRecord[];
  seats: (SeatStretch & { organizationId: number })[];
  plans: PlanRecord[];
  invoices: InvoiceRecord[];
  audits: (AuditRecord & { organizationId: number })[];
  inviteWindows: { memberPk: number; windowStart: Date; count: number }[];
}

const keyMatches = (member: MemberRecord, organizationId: number, key: MemberKey) =>
  member.organizationId === organizationId &&
  (key.column === 'member_id'
    ? member.memberId === key.value
    : key.column === 'email'
      ? member.email.toLowerCase() === key.value
      : member.svcId === key.value);

const copyOf = <T extends object>(row: T | undefined): T | null => (row ? { ...row } : null);

/**
 * The roster tables in memory, with their unique indexes (an address once per organization in any
 * case, an account once per organization, an invoice once per period), held to the same contract as
 * PgRosterStore (test/contracts/roster-store.ts). A transaction that throws leaves the tables as they
 * were, as a rollback.
 */
export class FakeRosterStore implements RosterStore {
  tables: RosterTables = {
    organizations: [],
    members: [],
    seats: [],
    plans: [],
    invoices: [],
    audits: [],
    inviteWindows: [],
  };
  private lastId = 0;

  private nextId(): number {
    this.lastId += 1;
    return this.lastId;
  }

  async transaction<T>(work: (tx: RosterTransaction) => Promise<T>): Promise<T> {
    const before = structuredClone(this.tables);
    try {
      return await work(this.transactionOf());
    } catch (error) {
      this.tables = before;
      throw error;
    }
  }

  private transactionOf(): RosterTransaction {
    const tables = () => this.tables;
    return {
      tx: {} as RosterTx,
      lockMember: async (organizationId, key) =>
        copyOf(tables().members.find((member) => keyMatches(member, organizationId, key))),
      lockMemberByActivation: async (digest) =>
        copyOf(tables().members.find((member) => member.activationDigest === digest)),
      membersByEmail: async (organizationId, emails) =>
        tables()
          .members.filter(
            (member) => member.organizationId === organizationId && emails.includes(member.email.toLowerCase()),
          )
          .map((member) => ({ ...member })),
      addMembers: async (members: readonly NewMemberRecord[]) => {
        const added: { id: number; memberId: string }[] = [];
        for (const member of members) {
          if (
            tables().members.some(
              (row) =>
                row.organizationId === member.organizationId && row.email.toLowerCase() === member.email.toLowerCase(),
            )
          )
            continue;
          const id = this.nextId();
          tables().members.push({ ...member, id, svcId: null });
          added.push({ id, memberId: member.memberId });
        }
        return added;
      },
      saveMember: async (member) => {
        if (
          member.svcId &&
          tables().members.some(
            (row) => row.id !== member.id && row.organizationId === member.organizationId && row.svcId === member.svcId,
          )
        ) {
          throw new DomainError('already_active', "this account is already on the organization's roster");
        }
        const row = tables().members.find((row) => row.id === member.id)!;
        Object.assign(row, {
          status: member.status,
          svcId: member.svcId,
          activationDigest: member.activationDigest,
          activationExpiresAt: member.activationExpiresAt,
        });
      },
      deleteMember: async (id) => {
        this.tables.members = tables().members.filter((member) => member.id !== id);
      },
      openSeat: async (organizationId, memberId, at) => {
        tables().seats.push({ organizationId, memberId, startedAt: at, endedAt: null });
      },
      closeSeat: async (memberId, at) => {
        for (const seat of tables().seats) if (seat.memberId === memberId && seat.endedAt === null) seat.endedAt = at;
      },
      appendAudit: async (entries: readonly AuditEntry[]) => {
        for (const entry of entries) tables().audits.push({ ...structuredClone(entry), id: this.nextId() });
      },
      lockPlan: async (organizationId) => copyOf(tables().plans.find((plan) => plan.organizationId === organizationId)),
      savePlan: async (plan) => {
        const existing = tables().plans.find((row) => row.organizationId === plan.organizationId);
        if (!existing) tables().plans.push({ ...plan });
        else Object.assign(existing, { ...plan, startedAt: existing.startedAt });
        return { ...tables().plans.find((row) => row.organizationId === plan.organizationId)! };
      },
    };
  }

  async organization(organizationId: number) {
    return copyOf(this.tables.organizations.find((organization) => organization.id === organizationId));
  }
  async organizationExists(organizationId: number) {
    return this.tables.organizations.some((organization) => organization.id === organizationId);
  }
  async createOrganization(name: string) {
    const id = this.nextId();
    this.tables.organizations.push({ id, name });
    return id;
  }
  async organizationNames(organizationIds: readonly number[]) {
    return this.tables.organizations
      .filter((organization) => organizationIds.includes(organization.id))
      .map((organization) => ({ ...organization }));
  }
  async member(organizationId: number, key: MemberKey) {
    return copyOf(this.tables.members.find((member) => keyMatches(member, organizationId, key)));
  }
  async memberPage(organizationId: number, afterId: number, limit: number) {
    return this.tables.members
      .filter((member) => member.organizationId === organizationId && member.role === 'member' && member.id > afterId)
      .sort((a, b) => a.id - b.id)
      .slice(0, limit)
      .map((member) => ({ ...member }));
  }
  async isDeactivated(organizationId: number, svcId: string) {
    return this.tables.members.some(
      (member) => member.organizationId === organizationId && member.svcId === svcId && member.status === 'deactivated',
    );
  }
  async activationTarget(digest: string): Promise<ActivationTargetRecord | null> {
    const member = this.tables.members.find((row) => row.activationDigest === digest);
    if (!member) return null;
    const organizationName = this.tables.organizations.find(
      (organization) => organization.id === member.organizationId,
    )!.name;
    return {
      memberId: member.memberId,
      email: member.email,
      firstName: member.firstName,
      status: member.status,
      activationExpiresAt: member.activationExpiresAt,
      organizationName,
    };
  }
  async countInvite(memberPk: number, windowStart: Date) {
    this.tables.inviteWindows = this.tables.inviteWindows.filter(
      (window) => window.memberPk !== memberPk || window.windowStart >= windowStart,
    );
    const window = this.tables.inviteWindows.find(
      (row) => row.memberPk === memberPk && row.windowStart.getTime() === windowStart.getTime(),
    );
    if (window) return ++window.count;
    this.tables.inviteWindows.push({ memberPk, windowStart, count: 1 });
    return 1;
  }
  async auditTrail(organizationId: number, memberId: string | null, limit: number) {
    return this.tables.audits
      .filter((entry) => entry.organizationId === organizationId && (memberId === null || entry.memberId === memberId))
      .sort((a, b) => b.id - a.id)
      .slice(0, limit)
      .map(({ organizationId: _, ...entry }) => structuredClone(entry));
  }
  async wasRemoved(organizationId: number, ref: string) {
    return this.tables.audits.some((entry) => {
      const before = entry.before as { email?: string; svc_id?: string } | null;
      return (
        entry.organizationId === organizationId &&
        entry.action === 'remove' &&
        (entry.memberId === ref || before?.email?.toLowerCase() === ref.toLowerCase() || before?.svc_id === ref)
      );
    });
  }
  async plan(organizationId: number) {
    return copyOf(this.tables.plans.find((plan) => plan.organizationId === organizationId));
  }
  async plans() {
    return this.tables.plans.map((plan) => ({ ...plan }));
  }
  async activeSeats(organizationId: number) {
    return this.tables.members.filter(
      (member) => member.organizationId === organizationId && member.status === 'active',
    ).length;
  }
  async invoices(organizationId: number) {
    return this.tables.invoices
      .filter((invoice) => invoice.organizationId === organizationId)
      .sort((a, b) => a.period.localeCompare(b.period))
      .map((invoice) => ({ ...invoice }));
  }
  async lastInvoicedPeriod(organizationId: number) {
    return (await this.invoices(organizationId)).at(-1)?.period ?? null;
  }
  async seatStretches(organizationId: number, before: Date, heldAfter: Date) {
    return this.tables.seats
      .filter(
        (seat) =>
          seat.organizationId === organizationId &&
          seat.startedAt < before &&
          (seat.endedAt === null || seat.endedAt > heldAfter),
      )
      .map(({ organizationId: _, ...seat }) => ({ ...seat }));
  }
  async addInvoice(invoice: InvoiceRecord) {
    if (
      this.tables.invoices.some((row) => row.organizationId === invoice.organizationId && row.period === invoice.period)
    )
      return false;
    this.tables.invoices.push({ ...invoice });
    return true;
  }
}
