import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger.js';
import { startListeningService, type ListeningService, type TestOptions } from '../../test/helpers/service.js';

// The whole service in this process, listening on loopback, on a fresh database (PostgreSQL from
// TEST_DATABASE_URL in CI, else PGlite), with the production logger writing into memory: the
// suite reads what would have been logged (errors during fuzzing, secrets that must not appear).

export interface CapturedLog {
  lines: string[];
  /** Parsed lines at pino level `error` (50) or above. */
  errors(): Record<string, unknown>[];
}

export interface InProcessService extends ListeningService {
  log: CapturedLog;
}

/** `createLogger` (redaction and serializers included) writing every line into memory. */
export function capturingLogger(level = 'info') {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const log: CapturedLog = {
    lines,
    errors: () =>
      lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => Number(entry.level) >= 50),
  };
  return { logger: createLogger(level, sink), log };
}

export async function startInProcess(
  overrides: Parameters<typeof startListeningService>[0] = {},
  options: Omit<TestOptions, 'logger'> = {},
): Promise<InProcessService> {
  const { logger, log } = capturingLogger();
  return { ...(await startListeningService(overrides, { ...options, logger })), log };
}
