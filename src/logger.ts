import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * JSON logs. Errors are reduced to type, code, message and stack: database errors carry
 * `detail` and `parameters` that may hold identity data, so those never reach the log.
 * `destination` defaults to stdout (tests pass a buffer to scan what would be logged). `fields`
 * go on every line (a cluster's processes say which one wrote it).
 */
export function createLogger(
  level = 'info',
  destination?: DestinationStream,
  fields: Record<string, unknown> = {},
): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'verity', ...fields },
    serializers: {
      err: (error: unknown) => {
        if (!(error instanceof Error)) return { message: String(error).slice(0, 200) };
        return {
          type: error.name,
          code: (error as { code?: unknown }).code,
          message: error.message.slice(0, 500),
          stack: error.stack?.split('\n').slice(0, 12).join('\n'),
        };
      },
    },
    redact: { paths: ['*.password', '*.secret', '*.token', '*.authorization', '*.api_key'], censor: '[redacted]' },
  };
  // Stdout written asynchronously: lines logged while a write is in flight go out together in the
  // next one (one system call per burst rather than per line); pino flushes what is left on exit.
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}

export type { Logger };
