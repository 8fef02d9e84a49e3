import net from 'node:net';

// The listening port, said in one line when it cannot be had. `verity serve` asks before it
// opens the store, runs migrations, loads models or starts jobs; the real listen says the same
// if the port was taken meanwhile.

/** One line for an operator: why `port` on `host` cannot be listened on; other errors as they are. */
export function listenFailure(error: NodeJS.ErrnoException, port: number, host: string): Error {
  if (error.code === 'EADDRINUSE')
    return new Error(`port ${port} on ${host} is in use: stop what listens there or set PORT`);
  if (error.code === 'EACCES')
    return new Error(`not allowed to listen on port ${port} on ${host}: use a port above 1023 or set PORT`);
  return error;
}

/**
 * Listens on `port` and lets go at once: rejects with `listenFailure` when it cannot (port 0, any free port, always
 * can).
 */
export function ensurePortFree(port: number, host: string): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => reject(listenFailure(error, port, host)));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}
