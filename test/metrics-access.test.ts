import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { mayReadMetrics } from '../src/rest/routes/system.js';
import { startTestService, type TestService } from './helpers/service.js';

// /metrics holds balances, traffic and queue depths: closed unless a token is configured (and
// sent) or the operator opens it explicitly; project ids are label values only when asked for
// (issue #46, item 11).

describe('mayReadMetrics', () => {
  it('lets only the token holder in when a token is set, nobody without one unless opened', () => {
    expect(mayReadMetrics(undefined, {})).toBe(false);
    expect(mayReadMetrics('Bearer anything', {})).toBe(false);
    expect(mayReadMetrics(undefined, { public: true })).toBe(true);
    expect(mayReadMetrics('Bearer s3cret', { token: 's3cret' })).toBe(true);
    expect(mayReadMetrics('bearer s3cret', { token: 's3cret' })).toBe(true);
    expect(mayReadMetrics('Bearer s3cre', { token: 's3cret' })).toBe(false);
    // A token, once set, is needed even when the metrics are also declared public.
    expect(mayReadMetrics(undefined, { token: 's3cret', public: true })).toBe(false);
  });

  it('reads VERITY_METRICS_PUBLIC and VERITY_METRICS_PROJECT_LABELS, both off by default', () => {
    expect(loadConfig({})).toMatchObject({ metricsPublic: false, metricsProjectLabels: false });
    expect(loadConfig({ VERITY_METRICS_PUBLIC: '1', VERITY_METRICS_PROJECT_LABELS: 'true' })).toMatchObject({
      metricsPublic: true,
      metricsProjectLabels: true,
    });
  });
});

async function withService(
  overrides: Parameters<typeof startTestService>[0],
  run: (service: TestService) => Promise<void>,
): Promise<void> {
  const service = await startTestService(overrides);
  try {
    await run(service);
  } finally {
    await service.close();
  }
}

describe('GET /metrics', () => {
  it('is closed by default: 401 invalid_token with a Bearer challenge, whatever is sent', async () => {
    await withService({ metricsPublic: false }, async (service) => {
      for (const authorization of [undefined, 'Bearer guess']) {
        const request = service.http.get('/metrics');
        const answer = await (authorization ? request.set('Authorization', authorization) : request);
        expect(answer.status).toBe(401);
        expect(answer.headers['www-authenticate']).toMatch(/^Bearer realm="metrics"/);
        expect(answer.body.error).toBe('invalid_token');
        expect(answer.text).not.toContain('verity_');
      }
    });
  });

  it('with VERITY_METRICS_TOKEN answers its holder, and names no project unless asked', async () => {
    await withService({ metricsPublic: false, metricsToken: 'scrape-secret' }, async (service) => {
      expect((await service.http.get('/metrics')).status).toBe(401);
      const scraped = await service.http.get('/metrics').set('Authorization', 'Bearer scrape-secret');
      expect(scraped.status).toBe(200);
      expect(scraped.text).toMatch(/^verity_wallet_balance_minor \d+$/m);
      expect(scraped.text).toMatch(/^verity_webhook_destination_unhealthy 0$/m);
      expect(scraped.text).not.toContain(service.demo.project_id);
      expect(scraped.text).not.toMatch(/project="/);
    });
  });

  it('VERITY_METRICS_PUBLIC opens it; VERITY_METRICS_PROJECT_LABELS labels the per-project gauges', async () => {
    await withService({ metricsPublic: true, metricsProjectLabels: true }, async (service) => {
      const scraped = await service.http.get('/metrics');
      expect(scraped.status).toBe(200);
      expect(scraped.text).toMatch(
        new RegExp(`^verity_wallet_balance_minor\\{project="${service.demo.project_id}"\\} \\d+$`, 'm'),
      );
    });
  });
});
