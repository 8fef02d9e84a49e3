import type { Orm } from '../db/orm.js';
import { preparedQuery, sqlDate } from '../db/prepared.js';

/** A gesture challenge as stored. */
export interface ChallengeRecord {
  id: string;
  projectId: string;
  gesture: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
}

/** The gesture challenges (`face_challenge`): the only code that touches them. Each method is one statement. */
export interface ChallengeStore {
  add(challenge: ChallengeRecord): Promise<void>;
  /** The project's challenge, used or not; null when unknown or another project's. */
  find(projectId: string, id: string): Promise<ChallengeRecord | null>;
  /** Marks it used if it is the project's, unused and not expired at `now`: true for the one caller that did. */
  consume(projectId: string, id: string, now: Date): Promise<boolean>;
}

/** The challenges in PostgreSQL, by named prepared statements. */
export class PgChallengeStore implements ChallengeStore {
  constructor(private readonly orm: Orm) {}

  async add(challenge: ChallengeRecord): Promise<void> {
    await preparedQuery(
      this.orm,
      'challenge_add',
      'insert into face_challenge (id, project_id, gesture, created_at, expires_at, used_at) values ($1, $2, $3, $4, $5, $6)',
      [
        challenge.id,
        challenge.projectId,
        challenge.gesture,
        challenge.createdAt,
        challenge.expiresAt,
        challenge.usedAt,
      ],
    );
  }

  async find(projectId: string, id: string): Promise<ChallengeRecord | null> {
    const [row] = await preparedQuery<{
      gesture: string;
      created_at: Date | string;
      expires_at: Date | string;
      used_at: Date | string | null;
    }>(
      this.orm,
      'challenge_find',
      'select gesture, created_at, expires_at, used_at from face_challenge where id = $1 and project_id = $2',
      [id, projectId],
    );
    return row
      ? {
          id,
          projectId,
          gesture: row.gesture,
          createdAt: sqlDate(row.created_at),
          expiresAt: sqlDate(row.expires_at),
          usedAt: row.used_at === null ? null : sqlDate(row.used_at),
        }
      : null;
  }

  async consume(projectId: string, id: string, now: Date): Promise<boolean> {
    // A conditional update: of two runs sending one challenge, exactly one finds it unused.
    const rows = await preparedQuery(
      this.orm,
      'challenge_consume',
      'update face_challenge set used_at = $3 where id = $1 and project_id = $2 and used_at is null and expires_at >= $3 returning id',
      [id, projectId, now],
    );
    return rows.length === 1;
  }
}
