import { Migration } from '@mikro-orm/migrations';

/**
 * Wallet leases: an instance takes a block of a project's balance in one update of the project
 * row and spends it locally, so billed calls no longer queue on that row. Each call's charge names
 * the lease it was paid from; closing a lease returns its amount less those charges. `wallet`
 * is what a project can still spend: its row's balance plus the unspent part of its open leases.
 * Rate limits likewise: an instance takes a slice of a key's window and spends it in memory.
 */
export class Migration20261127150000_wallet_lease extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "wallet_lease" ("id" varchar(40) not null, "project_id" varchar(40) not null, "amount_minor" bigint not null, "currency" varchar(3) not null, "holder" varchar(80) not null, "expires_at" timestamptz not null, "spent_minor" bigint null, "closed_at" timestamptz null, "created_at" timestamptz not null, constraint "wallet_lease_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "wallet_lease" add constraint "wallet_lease_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`create index "wallet_lease_open_index" on "wallet_lease" ("project_id") where "closed_at" is null;`);
    this.addSql(`create index "wallet_lease_expiry_index" on "wallet_lease" ("expires_at") where "closed_at" is null;`);
    this.addSql(`alter table "charge" add column "lease_id" varchar(40) null;`);
    this.addSql(`create index "charge_lease_id_index" on "charge" ("lease_id") where "lease_id" is not null;`);
    // Rate limits: each instance takes slices of a key's window; the size of the last slice granted.
    this.addSql(`alter table "rate_limit" add column "last_grant" integer not null default 0;`);
    this.addSql(
      `create view "wallet" as select p.id as project_id, p.currency, p.balance_minor + coalesce(open.unspent, 0) as balance_minor from "project" p left join lateral (select sum(l.amount_minor - coalesce((select sum(c.amount_minor) from "charge" c where c.lease_id = l.id and not c.refunded), 0)) as unspent from "wallet_lease" l where l.project_id = p.id and l.closed_at is null) open on true;`,
    );
  }
}
