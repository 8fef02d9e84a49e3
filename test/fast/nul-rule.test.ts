import { describe, expect, it } from 'vitest';
import { holdsNul } from '../../src/core/db/prepared.js';

// PostgreSQL text cannot hold U+0000 and jsonb refuses its escape: both guards (the ORM's and the
// named statements') refuse such a parameter as the caller's 400 instead of a failed query.
describe('holdsNul', () => {
  it('finds U+0000 in text and in arrays of text', () => {
    expect(holdsNul('a\u0000b')).toBe(true);
    expect(holdsNul(['ok', ['x\u0000']])).toBe(true);
    expect(holdsNul('plain')).toBe(false);
    expect(holdsNul(42)).toBe(false);
  });

  it('finds the escaped NUL in JSON text bound for jsonb, as JSON.stringify writes it', () => {
    expect(holdsNul(JSON.stringify({ state: '\u0000' }))).toBe(true);
    expect(holdsNul(JSON.stringify(['\u0000']))).toBe(true);
  });

  it('leaves an escaped backslash followed by u0000 alone: that is text, not a NUL', () => {
    expect(holdsNul(JSON.stringify({ state: '\\u0000' }))).toBe(false);
    expect(holdsNul('\\u0000 outside JSON')).toBe(false);
  });
});
