import { Migration } from '@mikro-orm/migrations';

/**
 * A licence badge keeps the state whose board verified it, written when it is badged: a
 * decision's reusable profile then reads the badge alone, not the credential registry's providers
 * (another area's table, matched by name, where two states' boards of one name gave two rows).
 * Badges already there take the state of the provider they name, where exactly one does.
 */
export class Migration20261129050000_license_state extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "account_license" add column "state_code" varchar(2) null;`);
    this.addSql(
      `update "account_license" l set "state_code" = p.state_code from (
         select credential_name, provider_display_name, min(state_code) as state_code from "credential_provider"
          group by credential_name, provider_display_name having count(distinct state_code) = 1
       ) p where p.credential_name = l.type and p.provider_display_name = l.issuer;`,
    );
  }
}
