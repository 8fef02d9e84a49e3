import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizePath, interactionOf, PageDriver, pkce } from './helpers/oidc.js';
import { freePort } from './helpers/processes.js';
import { startTestService, type TestService } from './helpers/service.js';

// Invitations through a real SMTP server on loopback (nodemailer on our side, smtp-server as the
// receiving end): what an operator gets with VERITY_SMTP_URL set.

const received: { to: string[]; body: string }[] = [];
let smtp: SMTPServer;
let service: TestService;

const add = (svc: TestService, email: string) =>
  svc.http
    .post('/api/sdk/members')
    .set({ 'X-Client-Id': svc.demo.org.client_id, 'X-Client-Secret': svc.demo.org.client_secret })
    .send({ members: [{ email, first_name: 'Grace' }], invite: 'email', notify: true });

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      let body = '';
      stream.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), body });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  service = await startTestService({ smtpUrl: `smtp://127.0.0.1:${port}`, mailFrom: 'Verity <invites@verity.test>' });
}, 120_000);

afterAll(async () => {
  await service?.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

describe('invitations by SMTP', () => {
  it('sends the invitation with its activation link to the member, and keeps nothing in the outbox', async () => {
    const response = await add(service, 'grace@hospital.example');
    expect(response.status).toBe(201);
    expect(response.body.data.notified).toBe(true);
    expect(response.body.data.created[0].activation_link).toBeNull();
    const mail = received.find((m) => m.to.includes('grace@hospital.example'));
    expect(mail).toBeDefined();
    expect(mail!.body).toMatch(/^From: Verity <invites@verity\.test>/m);
    expect(mail!.body).toContain('http://verity.test/activate/');
    expect(await service.core.mail.outbox.list()).toEqual([]);
  });

  it('says notified: false when the mail server cannot be reached, and still adds the member', async () => {
    const down = await startTestService({ smtpUrl: `smtp://127.0.0.1:${await freePort()}` });
    try {
      const response = await add(down, 'ada@hospital.example');
      expect(response.status).toBe(201);
      expect(response.body.data.created).toHaveLength(1);
      expect(response.body.data.notified).toBe(false);
    } finally {
      await down.close();
    }
  }, 60_000);

  it("sends sign-up's email verification link by SMTP as well", async () => {
    const driver = new PageDriver(service);
    const {
      client_id: clientId,
      redirect_uris: [redirectUri],
    } = service.demo.oidc;
    const page = await driver.get(
      authorizePath({
        client_id: clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid',
        state: 's',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
    );
    const res = await driver.post('/api/auth/oidc/signup', {
      interaction: interactionOf(page.text),
      email: 'new.nurse@hospital.example',
      password: 'a fine long password',
    });
    expect(res.status).toBe(200);
    const mail = received.find((m) => m.to.includes('new.nurse@hospital.example'));
    expect(mail?.body).toContain('http://verity.test/api/auth/oidc/verify-email');
    expect(await service.core.mail.outbox.list()).toEqual([]);
  });
});
