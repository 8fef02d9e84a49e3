import type { Orm } from '../db/orm.js';
import { CheckRecord } from './entities.js';

export const checkRecordView = (record: CheckRecord) => ({
  sessionId: record.id,
  projectId: record.projectId,
  type: record.type,
  status: record.status,
  mode: record.mode,
  svcId: record.svcId ?? null,
  reason: record.reason ?? null,
  durationMs: record.durationMs,
  createdAt: record.createdAt.toISOString(),
});
export type CheckRecordView = ReturnType<typeof checkRecordView>;

/** Standalone check records for ops, newest first. */
export async function listCheckRecords(orm: Orm, projectId: string, limit = 100): Promise<CheckRecordView[]> {
  const rows = await orm.em.fork().find(CheckRecord, { projectId }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: Math.min(limit, 500) });
  return rows.map(checkRecordView);
}
