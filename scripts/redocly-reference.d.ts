// Types of redocly-reference.js (a plain JavaScript module: Redocly CLI loads it as it is).

/** What a reader learning the API misses in one operation (empty when nothing). */
export function operationProblems(operation: Record<string, unknown>): string[];

export default function referencePlugin(): { id: string; rules: Record<string, Record<string, () => unknown>> };
