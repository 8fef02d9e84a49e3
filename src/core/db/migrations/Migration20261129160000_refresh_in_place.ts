import { Migration } from '@mikro-orm/migrations';

/**
 * A sign-in's refresh tokens rotate in one row, found by the id its tokens carry
 * (`vr_<secret>.<row id>`), not by the digest: the digest loses its unique index so that a
 * rotation changes no indexed column, and pages keep room for the new versions of their rows
 * (fillfactor), so that rotations stay HOT updates. Refresh tokens issued before name no row:
 * they are retired here, and their clients are answered invalid_grant and send the person
 * through the authorize endpoint again.
 */
export class Migration20261129160000_refresh_in_place extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "refresh_token" drop constraint "refresh_token_token_digest_unique";`);
    this.addSql(`alter table "refresh_token" set (fillfactor = 70);`);
    this.addSql(`delete from "refresh_token";`);
  }
}
