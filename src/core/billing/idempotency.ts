import { createHash } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { DomainError, type ErrorCode } from '../errors.js';
import type { Sealer } from '../secrets.js';
import { IdempotencyRecord } from './entities.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** Longer than the slowest call (a live licence lookup takes up to ~90 s). */
const RUNNING_LOCK_MS = 5 * 60 * 1000;
const KEY = /^[\x21-\x7e]{1,255}$/;

export interface StoredResponse {
  status: number;
  body: unknown;
}

/** Statuses a retry must be able to change, so they are not stored: payment, rate limit, our faults. */
const TRANSIENT = (status: number) => status === 402 || status === 429 || status >= 500;

/** Text the walk below emits between values (a bracket, a key), told apart from the body's own values. */
class Emit {
  constructor(readonly text: string) {}
}

/** A stable digest of what was asked: the operation plus its body (files included, as bytes). */
export function fingerprint(operation: string, parts: unknown): string {
  const hash = createHash('sha256').update(operation).update('\0');
  // Depth first with a stack of its own: a JSON body may nest deeper than the call stack goes.
  const pending: unknown[] = [parts];
  while (pending.length) {
    const value = pending.pop();
    if (value instanceof Emit) {
      hash.update(value.text);
    } else if (Buffer.isBuffer(value)) {
      hash.update(`b${value.length}:`).update(value);
    } else if (Array.isArray(value)) {
      hash.update('[');
      pending.push(new Emit(']'));
      for (let i = value.length - 1; i >= 0; i -= 1) pending.push(value[i]);
    } else if (value && typeof value === 'object') {
      hash.update('{');
      pending.push(new Emit('}'));
      for (const key of Object.keys(value).sort().reverse()) pending.push((value as Record<string, unknown>)[key], new Emit(JSON.stringify(key)));
    } else {
      hash.update(JSON.stringify(value ?? null));
    }
  }
  return hash.digest('hex');
}

export type Begin = { kind: 'run' } | { kind: 'replay'; response: StoredResponse };

/** `Idempotency-Key` on billable calls: one execution per key and body, its response replayed for 24 h. */
export class IdempotencyService {
  constructor(private readonly deps: { orm: Orm; clock: Clock; sealer: Sealer }) {}

  validKey(key: string): boolean {
    return KEY.test(key);
  }

  /** Claims the key for this request, or says how to answer instead (replay, 409, 422). */
  async begin(projectId: string, key: string, requestFingerprint: string): Promise<Begin> {
    if (!this.validKey(key)) throw new DomainError('validation_error', 'Idempotency-Key must be 1 to 255 visible ASCII characters');
    const now = this.deps.clock.now();
    const connection = this.deps.orm.em.getConnection();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const claimed = await connection.execute(
        `insert into idempotency_record (project_id, key, fingerprint, state, locked_until, expires_at, created_at)
         values (?, ?, ?, 'running', ?, ?, ?) on conflict (project_id, key) do nothing returning key`,
        [projectId, key, requestFingerprint, new Date(now.getTime() + RUNNING_LOCK_MS), new Date(now.getTime() + IDEMPOTENCY_TTL_MS), now],
      );
      if (claimed.length === 1) return { kind: 'run' };
      const existing = await this.deps.orm.em.fork().findOne(IdempotencyRecord, { projectId, key });
      if (!existing) continue; // expired and purged in between: claim again
      if (existing.expiresAt <= now || (existing.state === 'running' && existing.lockedUntil <= now)) {
        // Expired, or abandoned by a process that died mid-call: take it over (one winner).
        const taken = await connection.execute(
          `update idempotency_record set fingerprint = ?, state = 'running', response_status = null, response_sealed = null,
             locked_until = ?, expires_at = ?, created_at = ?
           where project_id = ? and key = ? and (expires_at <= ? or (state = 'running' and locked_until <= ?)) returning key`,
          [requestFingerprint, new Date(now.getTime() + RUNNING_LOCK_MS), new Date(now.getTime() + IDEMPOTENCY_TTL_MS), now, projectId, key, now, now],
        );
        if (taken.length === 1) return { kind: 'run' };
        continue;
      }
      if (existing.fingerprint !== requestFingerprint) throw new DomainError('idempotency_key_reused');
      if (existing.state === 'running') throw new DomainError('idempotency_in_progress');
      return { kind: 'replay', response: { status: existing.responseStatus!, body: JSON.parse(this.deps.sealer.open(existing.responseSealed!)) } };
    }
    throw new DomainError('idempotency_in_progress');
  }

  /** Stores the first response; transient failures release the key so a retry runs again. */
  async finish(projectId: string, key: string, response: StoredResponse): Promise<void> {
    const em = this.deps.orm.em.fork();
    if (TRANSIENT(response.status)) {
      await em.nativeDelete(IdempotencyRecord, { projectId, key, state: 'running' });
      return;
    }
    await em.nativeUpdate(IdempotencyRecord, { projectId, key }, { state: 'done', responseStatus: response.status, responseSealed: this.deps.sealer.seal(JSON.stringify(response.body)) });
  }

  /**
   * `work` at most once per key and request body: a retry with the key gets the first answer again
   * for 24 h (`replayed`), another body 422 `idempotency_key_reused`, one still running 409
   * `idempotency_in_progress`. A domain error is an answer too (the retry gets the same error); an
   * unexpected failure releases the key. Without a key, `work` just runs.
   */
  async once<T>(projectId: string, key: string | undefined, operation: string, request: unknown, work: () => Promise<T>): Promise<{ value: T; replayed: boolean }> {
    if (key === undefined) return { value: await work(), replayed: false };
    const begun = await this.begin(projectId, key, fingerprint(operation, request));
    if (begun.kind === 'replay') {
      const stored = begun.response.body as { value?: T; error?: { code: ErrorCode; message: string; data?: unknown } };
      if (stored.error) throw new DomainError(stored.error.code, stored.error.message, stored.error.data === undefined ? {} : { data: stored.error.data });
      return { value: stored.value as T, replayed: true };
    }
    try {
      const value = await work();
      await this.finish(projectId, key, { status: 200, body: { value } });
      return { value, replayed: false };
    } catch (error) {
      const known = error instanceof DomainError ? { status: error.status, body: { error: { code: error.code, message: error.message, data: error.data } } } : { status: 500, body: null };
      await this.finish(projectId, key, known);
      throw error;
    }
  }

  /** Deletes records past their 24 h; returns how many. */
  async purgeExpired(): Promise<number> {
    return this.deps.orm.em.fork().nativeDelete(IdempotencyRecord, { expiresAt: { $lte: this.deps.clock.now() } });
  }
}
