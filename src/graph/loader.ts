/**
 * A per-request batch loader (DataLoader-style): every `load` made while GraphQL resolves one
 * level of a list is collected and fetched with one call, so a page of 100 sessions asking for
 * their checks costs one query, not 100. Results are cached for the request.
 */
export class BatchLoader<K, V> {
  private readonly cache = new Map<K, Promise<V>>();
  private queue: { key: K; resolve: (value: V) => void; reject: (error: unknown) => void }[] = [];

  constructor(
    private readonly fetch: (keys: K[]) => Promise<Map<K, V>>,
    private readonly missing: () => V,
  ) {}

  load(key: K): Promise<V> {
    const cached = this.cache.get(key);
    if (cached) return cached;
    const promise = new Promise<V>((resolve, reject) => {
      this.queue.push({ key, resolve, reject });
      // After the resolvers of this level have all asked (they run before any I/O completes).
      if (this.queue.length === 1) setImmediate(() => void this.flush());
    });
    this.cache.set(key, promise);
    return promise;
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    try {
      const found = await this.fetch([...new Set(batch.map((entry) => entry.key))]);
      for (const entry of batch) entry.resolve(found.get(entry.key) ?? this.missing());
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  }
}
