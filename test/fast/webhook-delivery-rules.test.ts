// The delivery rules of webhooks on a fake outbox, against a receiver on loopback, in
// milliseconds: what each answer does to the event (delivered, retried with back-off or after
// Retry-After, failed after the last attempt, disabled by 410), one sender per event, and ops'
// resend. The fake is held to its store's contract (test/contracts/webhook-store.ts); the SQL runs in
// webhooks.test.ts, admin-ops.test.ts and the faults.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import type { TenancyService } from '../../src/core/tenancy/service.js';
import { WebhookService, webhookSignature } from '../../src/core/webhooks/service.js';
import { FakeWebhookStore } from '../fakes/webhook-store.js';

/** A receiver on loopback that answers what the test sets, and keeps what it was sent. */
const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
let answer: { status: number; headers?: Record<string, string> } = { status: 200 };
const receiver = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => {
    body += chunk;
  });
  req.on('end', () => {
    received.push({ headers: req.headers, body });
    res.writeHead(answer.status, answer.headers).end('ok');
  });
});
let url = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

const SECRET = 'whsec_rules';
const TEST_SECRET = 'whsec_test_rules';
const policy = { baseSeconds: 30, capSeconds: 3600, maxAttempts: 3, timeoutMs: 2000 };

function setUp(
  options: {
    defaultCallbackUrl?: string | null;
    testDefaultCallbackUrl?: string | null;
    testSecret?: string | null;
  } = {},
) {
  received.length = 0;
  answer = { status: 200 };
  const clock = new ManualClock(new Date('2026-11-28T12:00:00Z'));
  const store = new FakeWebhookStore();
  const disabled: string[] = [];
  const secrets = { live: SECRET, test: options.testSecret === undefined ? TEST_SECRET : options.testSecret };
  const tenancy = {
    webhookSigningSecrets: async (_projectId: string, mode: 'live' | 'test') => ({
      current: secrets[mode],
      previous: null,
    }),
    projectSettingsOf: async () => ({
      evidenceRetentionDays: 30,
      defaultCallbackUrl: options.defaultCallbackUrl ?? null,
      testDefaultCallbackUrl: options.testDefaultCallbackUrl ?? null,
    }),
    disableCallback: async (_projectId: string, callback: string, mode: string) => {
      disabled.push(mode === 'live' ? callback : `${mode} ${callback}`);
    },
  } as unknown as TenancyService;
  const webhooks = new WebhookService({ store, clock, tenancy, policy, allowPrivateDestinations: true });
  const record = async (callback: string | null = url, livemode = true) =>
    webhooks.record({} as never, 'prj_1', 'ses_1', {
      type: 'session.completed',
      livemode,
      callback,
      body: { session_id: 'ses_1' },
    });
  return { clock, store, webhooks, disabled, record };
}

describe('webhook delivery on a fake outbox', () => {
  it('a 2xx delivers the event once, signed with the project secret over the timestamp and the raw body', async () => {
    const { store, webhooks, record } = setUp();
    const id = await record();
    await webhooks.deliver(id);
    expect(store.rows.get(id)).toMatchObject({ state: 'delivered', attempts: 1 });
    const [sent] = received;
    expect(sent!.headers['x-svc-event-id']).toBe(id);
    expect(sent!.headers['x-svc-signature']).toBe(
      webhookSignature(SECRET, Number(sent!.headers['x-svc-timestamp']), sent!.body),
    );
    expect(JSON.parse(sent!.body)).toEqual({ event_id: id, session_id: 'ses_1', livemode: true });
    await webhooks.deliver(id); // delivered: nothing to claim, nothing sent
    expect(received).toHaveLength(1);
  });

  it('a failure is retried with back-off, and the last allowed attempt leaves it failed', async () => {
    const { clock, store, webhooks, record } = setUp();
    const id = await record();
    answer = { status: 500 };
    await webhooks.deliver(id);
    const first = store.rows.get(id)!;
    expect(first.state).toBe('pending');
    const wait = (first.nextAttemptAt.getTime() - clock.now().getTime()) / 1000;
    expect(wait).toBeGreaterThanOrEqual(30 * 0.8);
    expect(wait).toBeLessThanOrEqual(30 * 1.2);
    await webhooks.deliver(id); // not due yet: not sent
    expect(received).toHaveLength(1);
    for (let attempt = 2; attempt <= 3; attempt++) {
      clock.set(store.rows.get(id)!.nextAttemptAt);
      await webhooks.deliver(id);
    }
    expect(store.rows.get(id)).toMatchObject({ state: 'failed', attempts: 3 });
    expect((await webhooks.attempts('prj_1', id)).map((row) => row.http_status)).toEqual([500, 500, 500]);
  });

  it('waits as long as Retry-After asks when that is longer than the back-off', async () => {
    const { clock, store, webhooks, record } = setUp();
    const id = await record();
    answer = { status: 503, headers: { 'retry-after': '600' } };
    await webhooks.deliver(id);
    expect(store.rows.get(id)!.nextAttemptAt.getTime() - clock.now().getTime()).toBe(600_000);
  });

  it('a 410 disables the event and the callback it was sent to', async () => {
    const { store, webhooks, disabled, record } = setUp();
    const id = await record();
    answer = { status: 410 };
    await webhooks.deliver(id);
    expect(store.rows.get(id)!.state).toBe('disabled');
    expect(disabled).toEqual([url]);
  });

  it('two senders of one event at once: one claims it, the receiver hears it once', async () => {
    const { store, webhooks, record } = setUp();
    const id = await record();
    await Promise.all([webhooks.deliver(id), webhooks.deliver(id), webhooks.deliver(id)]);
    expect(received).toHaveLength(1);
    expect(store.attemptRows.get(id)).toHaveLength(1);
  });

  it('resend: another project gets not_found, a running attempt conflict, no destination callback_not_allowed', async () => {
    const { store, webhooks, record } = setUp();
    const id = await record();
    answer = { status: 500 };
    for (let attempt = 1; attempt <= 3; attempt++) {
      store.rows.get(id)!.nextAttemptAt = new Date(0);
      await webhooks.deliver(id);
    }
    expect(store.rows.get(id)!.state).toBe('failed');
    await expect(webhooks.resend('prj_other', id)).rejects.toMatchObject({ code: 'not_found' });
    const resent = await webhooks.resend('prj_1', id);
    expect(resent).toMatchObject({ event_id: id, state: 'pending', attempts: 3 });
    store.rows.get(id)!.state = 'sending';
    await expect(webhooks.resend('prj_1', id)).rejects.toMatchObject({ code: 'conflict' });
    const nowhere = await record(null);
    expect(store.rows.get(nowhere)!.state).toBe('no_destination');
    await expect(webhooks.resend('prj_1', nowhere)).rejects.toMatchObject({ code: 'callback_not_allowed' });
  });

  it('resend of an event without a destination goes to the project default once there is one', async () => {
    const { store, webhooks } = setUp({ defaultCallbackUrl: 'https://hooks.example.com/in' });
    const id = await webhooks.record({} as never, 'prj_1', 'ses_2', {
      type: 'session.completed',
      livemode: true,
      callback: null,
      body: {},
    });
    expect(store.rows.get(id)).toMatchObject({ url: 'https://hooks.example.com/in', state: 'pending' });
    // As if it was made before the project had a default.
    store.rows.get(id)!.url = null;
    store.rows.get(id)!.state = 'no_destination';
    expect(await webhooks.resend('prj_1', id)).toMatchObject({ url: 'https://hooks.example.com/in', state: 'pending' });
  });

  it('a test-mode event goes to the test default only, signed with the test secret, and says livemode: false inside the signed bytes', async () => {
    const { store, webhooks, record } = setUp({
      defaultCallbackUrl: 'https://hooks.example.com/live',
      testDefaultCallbackUrl: url,
    });
    const id = await record(null, false);
    expect(store.rows.get(id)).toMatchObject({ url, livemode: false, state: 'pending' });
    await webhooks.deliver(id);
    const [sent] = received;
    const timestamp = Number(sent!.headers['x-svc-timestamp']);
    expect(sent!.headers['x-svc-signature']).toBe(webhookSignature(TEST_SECRET, timestamp, sent!.body));
    expect(sent!.headers['x-svc-signature']).not.toBe(webhookSignature(SECRET, timestamp, sent!.body));
    expect(JSON.parse(sent!.body)).toEqual({ event_id: id, session_id: 'ses_1', livemode: false });
  });

  it('a test-mode event with no test destination is kept as no_destination, never sent to the live default', async () => {
    const { store, webhooks, record } = setUp({ defaultCallbackUrl: url });
    const id = await record(null, false);
    expect(store.rows.get(id)).toMatchObject({ url: null, state: 'no_destination', livemode: false });
    await expect(webhooks.resend('prj_1', id)).rejects.toMatchObject({ code: 'callback_not_allowed' });
    expect(received).toHaveLength(0);
  });

  it('a test-mode event of a project without a test secret is not sent, and its attempt says why; a 410 disables the test destination only', async () => {
    const unsigned = setUp({ testSecret: null });
    const id = await unsigned.record(url, false);
    await unsigned.webhooks.deliver(id);
    expect(received).toHaveLength(0);
    expect((await unsigned.webhooks.attempts('prj_1', id))[0]).toMatchObject({
      http_status: null,
      error: expect.stringContaining('no test signing secret'),
    });
    const gone = setUp();
    const test = await gone.record(url, false);
    answer = { status: 410 };
    await gone.webhooks.deliver(test);
    expect(gone.disabled).toEqual([`test ${url}`]);
  });
});
