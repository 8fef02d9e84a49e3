import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGO_MAX_BYTES } from '../src/core/tenancy/logo.js';
import { startTestService, type TestService } from './helpers/service.js';

// The hosted page's branding, set by an admin through GraphQL: a privacy policy link (https only)
// and a logo (PNG/JPEG/WebP only, re-encoded as PNG), served to the session's page from our origin.

let service: TestService;
let admin: string;

const gql = (token: string, query: string, variables: Record<string, unknown> = {}) =>
  service.http
    .post('/graphql')
    .set('Content-Type', 'application/json')
    .set('Authorization', `Bearer ${token}`)
    .send({ query, variables });
const SET =
  'mutation($input: ProjectBrandingInput!) { setProjectBranding(input: $input) { privacyPolicyUrl hasLogo } }';
const setBranding = (input: Record<string, unknown>, token = admin) =>
  gql(token, SET, { input: { projectId: service.demo.project_id, ...input } });

async function openSession(projectId: string, apiKey: string): Promise<string> {
  const workflow = await service.core.tenancy.createWorkflow({ projectId, name: 'location', features: ['location'] });
  const response = await service.http
    .post('/api/v2/session')
    .set('X-API-Key', apiKey)
    .send({ workflow_id: workflow.id });
  expect(response.status).toBe(201);
  return response.body.data.session_token;
}
const hosted = (token: string, path: string) => service.http.get(`/api/hosted${path}`).set('X-Session-Token', token);

/** A JPEG logo carrying EXIF (a camera make and a comment) that must not survive. */
const jpegWithExif = () =>
  sharp({ create: { width: 300, height: 120, channels: 3, background: { r: 20, g: 80, b: 200 } } })
    .jpeg()
    .withExif({ IFD0: { Make: 'SecretCam', ImageDescription: 'internal note' } })
    .toBuffer();

beforeAll(async () => {
  service = await startTestService({});
  admin = (await service.core.tenancy.createAdminToken({ role: 'admin' })).token;
}, 120_000);
afterAll(async () => {
  await service?.close();
});

describe('hosted page branding', () => {
  it('an https privacy policy link is kept and shown to the session; http and other schemes are refused', async () => {
    for (const url of ['http://acme.example/privacy', 'javascript:alert(1)', 'not a url']) {
      const refused = await setBranding({ privacyPolicyUrl: url });
      expect(refused.body.errors[0].extensions.code, url).toBe('validation_error');
    }
    const set = await setBranding({ privacyPolicyUrl: 'https://acme.example/privacy' });
    expect(set.body.data.setProjectBranding).toEqual({
      privacyPolicyUrl: 'https://acme.example/privacy',
      hasLogo: false,
    });
    const token = await openSession(service.demo.project_id, service.demo.api_key);
    expect((await hosted(token, '/session')).body.data).toMatchObject({
      privacy_policy_url: 'https://acme.example/privacy',
      logo: false,
    });
    expect((await hosted(token, '/session/logo')).body.error.code).toBe('not_found');
  });

  it("a support link (https or mailto) and the project's retention reach the session's page; other schemes are refused", async () => {
    for (const url of ['http://acme.example/help', 'javascript:alert(1)']) {
      const refused = await setBranding({ supportUrl: url });
      expect(refused.body.errors[0].extensions.code, url).toBe('validation_error');
    }
    const set = await gql(
      admin,
      'mutation($input: ProjectBrandingInput!) { setProjectBranding(input: $input) { supportUrl privacyPolicyUrl } }',
      {
        input: { projectId: service.demo.project_id, supportUrl: 'mailto:help@acme.example' },
      },
    );
    expect(set.body.data.setProjectBranding).toEqual({
      supportUrl: 'mailto:help@acme.example',
      privacyPolicyUrl: 'https://acme.example/privacy',
    });
    await service.core.tenancy.setEvidenceRetention({ projectId: service.demo.project_id, days: 7 });
    const token = await openSession(service.demo.project_id, service.demo.api_key);
    // What the start screen says is kept, and for how long, comes from the project's settings.
    expect((await hosted(token, '/session')).body.data).toMatchObject({
      support_url: 'mailto:help@acme.example',
      retention_days: 7,
    });
    await service.core.tenancy.setEvidenceRetention({ projectId: service.demo.project_id, days: 30 });
  });

  it('a JPEG logo is re-encoded as a PNG without its metadata and served to the session from our origin', async () => {
    const jpeg = await jpegWithExif();
    expect(jpeg.includes('SecretCam')).toBe(true);
    const set = await setBranding({ logo: `data:image/jpeg;base64,${jpeg.toString('base64')}` });
    expect(set.body.data.setProjectBranding.hasLogo).toBe(true);
    // Setting one field leaves the other.
    expect(set.body.data.setProjectBranding.privacyPolicyUrl).toBe('https://acme.example/privacy');

    const token = await openSession(service.demo.project_id, service.demo.api_key);
    expect((await hosted(token, '/session')).body.data.logo).toBe(true);
    const logo = await hosted(token, '/session/logo').buffer(true);
    expect(logo.status).toBe(200);
    expect(logo.headers['content-type']).toBe('image/png');
    expect(logo.headers['x-content-type-options']).toBe('nosniff');
    const served = logo.body as Buffer;
    expect((await sharp(served).metadata()).format).toBe('png');
    expect(served.includes('SecretCam')).toBe(false);
    expect(served.includes('internal note')).toBe(false);
  });

  it("another project's session never gets this logo", async () => {
    const other = await service.core.tenancy.createProject({ name: 'Other', balance: 10 });
    const token = await openSession(other.project.id, other.key);
    expect((await hosted(token, '/session')).body.data).toMatchObject({
      project_name: 'Other',
      logo: false,
      privacy_policy_url: null,
    });
    expect((await hosted(token, '/session/logo')).status).toBe(404);
  });

  it('refuses SVG, GIF, non-images and oversized logos; null clears', async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script><rect width="10" height="10"/></svg>',
    );
    const gif = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000' } })
      .gif()
      .toBuffer();
    for (const [name, bytes] of [
      ['svg', svg],
      ['gif', gif],
      ['text', Buffer.from('hello')],
    ] as const) {
      const refused = await setBranding({ logo: bytes.toString('base64') });
      expect(refused.body.errors[0].extensions.code, name).toBe('validation_error');
    }
    await expect(
      service.core.tenancy.setBranding({
        projectId: service.demo.project_id,
        logo: Buffer.alloc(LOGO_MAX_BYTES + 1, 1).toString('base64'),
      }),
    ).rejects.toMatchObject({ code: 'validation_error' });
    const cleared = await setBranding({ logo: null, privacyPolicyUrl: null });
    expect(cleared.body.data.setProjectBranding).toEqual({ privacyPolicyUrl: null, hasLogo: false });
  });

  it('a viewer cannot change the branding', async () => {
    const viewer = (await service.core.tenancy.createAdminToken({ role: 'viewer' })).token;
    expect(
      (await setBranding({ privacyPolicyUrl: 'https://x.example/p' }, viewer)).body.errors[0].extensions.code,
    ).toBe('forbidden');
  });
});
