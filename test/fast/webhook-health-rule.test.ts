import { describe, expect, it } from 'vitest';
import { destinationLabel, isDestinationHealthy } from '../../src/core/webhooks/health.js';

// The health rule alone: no database, no service.

describe('isDestinationHealthy', () => {
  const figures = (consecutiveFailures: number, attemptsLastHour: number, successfulLastHour: number) => ({
    consecutiveFailures,
    attemptsLastHour,
    successfulLastHour,
  });

  it('is healthy with no attempts, with occasional failures, and with some success in the last hour', () => {
    expect(isDestinationHealthy(figures(0, 0, 0))).toBe(true);
    expect(isDestinationHealthy(figures(4, 10, 6))).toBe(true);
    expect(isDestinationHealthy(figures(2, 2, 0))).toBe(true); // two failures are not yet a pattern
  });

  it('is unhealthy after 5 failed attempts in a row, whenever they happened', () => {
    expect(isDestinationHealthy(figures(5, 0, 0))).toBe(false);
    expect(isDestinationHealthy(figures(12, 1, 0))).toBe(false);
  });

  it('is unhealthy when the last hour had at least 3 attempts and none answered 2xx', () => {
    expect(isDestinationHealthy(figures(3, 3, 0))).toBe(false);
    expect(isDestinationHealthy(figures(3, 4, 1))).toBe(true);
  });
});

describe('destinationLabel', () => {
  it('shows host and path, never the query or fragment', () => {
    expect(destinationLabel('https://hooks.example.com:8443/verity/in?token=secret#x')).toBe(
      'hooks.example.com:8443/verity/in',
    );
    expect(destinationLabel('not a url')).toBe('invalid url');
  });
});
