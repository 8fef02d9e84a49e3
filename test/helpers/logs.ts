import { Writable } from 'node:stream';
import pino from 'pino';

/** A logger at info level whose every line a test reads back, parsed, from `lines`. */
export function loggerIntoMemory() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}
