// oidc-provider's storage on PostgreSQL, for the like-for-like baseline of `bench:oidc`: its
// adapter interface over one table of JSON payloads, in the shape of panva's contributed SQL
// adapters (example/adapters: id and model as the key, grantId, userCode and uid indexed for the
// lookups the provider makes by them, consumption a timestamp). One named statement per call on a
// pool, as our own store does.
import pg from 'pg';

const SCHEMA = `create table if not exists oidc_payload (
  id text not null, model text not null, payload jsonb not null,
  grant_id text, user_code text, uid text, expires_at timestamptz, consumed_at timestamptz,
  primary key (id, model));
create index if not exists oidc_payload_grant_id on oidc_payload (grant_id);
create index if not exists oidc_payload_user_code on oidc_payload (user_code);
create index if not exists oidc_payload_uid on oidc_payload (uid);`;

type Payload = Record<string, unknown>;

/** What the provider reads back: the payload, marked consumed once consumed; nothing once expired. */
function found(
  row: { payload: Payload; consumed_at: Date | null; expires_at: Date | null } | undefined,
): Payload | undefined {
  if (!row || (row.expires_at && row.expires_at.getTime() <= Date.now())) return undefined;
  return row.consumed_at ? { ...row.payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) } : row.payload;
}

/** The adapter factory for `new Provider(issuer, { adapter })`, on a fresh schema in `databaseUrl`. */
export async function postgresAdapter(databaseUrl: string): Promise<(model: string) => object> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  await pool.query(SCHEMA);
  const query = async (name: string, text: string, values: unknown[]) =>
    (await pool.query({ name, text, values })).rows;
  return (model: string) => ({
    async upsert(id: string, payload: Payload, expiresIn?: number) {
      await query(
        'oidc_upsert',
        `insert into oidc_payload (id, model, payload, grant_id, user_code, uid, expires_at) values ($1, $2, $3, $4, $5, $6, $7)
         on conflict (id, model) do update set payload = excluded.payload, grant_id = excluded.grant_id, user_code = excluded.user_code, uid = excluded.uid, expires_at = excluded.expires_at`,
        [
          id,
          model,
          payload,
          payload.grantId ?? null,
          payload.userCode ?? null,
          payload.uid ?? null,
          expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
        ],
      );
    },
    async find(id: string) {
      return found(
        (
          await query(
            'oidc_find',
            'select payload, consumed_at, expires_at from oidc_payload where id = $1 and model = $2',
            [id, model],
          )
        )[0],
      );
    },
    async findByUserCode(userCode: string) {
      return found(
        (
          await query(
            'oidc_find_by_user_code',
            'select payload, consumed_at, expires_at from oidc_payload where user_code = $1 and model = $2',
            [userCode, model],
          )
        )[0],
      );
    },
    async findByUid(uid: string) {
      return found(
        (
          await query(
            'oidc_find_by_uid',
            'select payload, consumed_at, expires_at from oidc_payload where uid = $1 and model = $2',
            [uid, model],
          )
        )[0],
      );
    },
    async consume(id: string) {
      await query('oidc_consume', 'update oidc_payload set consumed_at = now() where id = $1 and model = $2', [
        id,
        model,
      ]);
    },
    async destroy(id: string) {
      await query('oidc_destroy', 'delete from oidc_payload where id = $1 and model = $2', [id, model]);
    },
    async revokeByGrantId(grantId: string) {
      await query('oidc_revoke_by_grant', 'delete from oidc_payload where grant_id = $1', [grantId]);
    },
  });
}
