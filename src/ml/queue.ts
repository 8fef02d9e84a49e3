// Runs tasks one at a time in arrival order. TF.js models hold shared state per backend, and on
// 2 cores parallel inference only adds contention; a queue keeps requests from interleaving.

export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task); // tail never rejects (see below)
    this.tail = result.catch(() => undefined);
    return result;
  }
}
