// @vitest-environment happy-dom
import { render } from 'preact';
import { act } from 'preact/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The hosted page's app in happy-dom, against a stubbed API: what the person sees at each answer.

const answers: { path: string; body: unknown }[] = [];
let reply: (path: string) => unknown;

beforeEach(() => {
  history.replaceState(null, '', '/verify/ses_1#tok_1');
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      const path = url.replace('/api/hosted', '');
      answers.push({ path, body: init.body ? JSON.parse(String(init.body)) : undefined });
      const answer = JSON.parse(JSON.stringify(reply(path)));
      return { json: async () => answer };
    }),
  );
});
afterEach(() => {
  vi.unstubAllGlobals();
  sessionStorage.clear();
  document.documentElement.lang = '';
  answers.length = 0;
  document.body.replaceChildren();
});

const settle = () =>
  act(async () => {
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setTimeout(resolve, 1));
  });
async function mount(): Promise<HTMLElement> {
  vi.resetModules();
  const { App } = await import('./app.js');
  const root = document.createElement('div');
  document.body.append(root);
  act(() => render(<App />, root));
  await settle();
  return root;
}
const started = (steps: { step: string; done: boolean }[], extra: object = {}) => ({ success: true, data: { status: 'IN_PROGRESS', project_name: 'Acme', finished: false, steps, ...extra } });

describe('the hosted page app', () => {
  it('moves the link token out of the address bar and sends it with every call', async () => {
    reply = () => started([{ step: 'location', done: false }]);
    await mount();
    expect(location.hash).toBe('');
    expect(sessionStorage.getItem('verity-session-ses_1')).toBe('tok_1');
    const init = (fetch as unknown as { mock: { calls: [string, RequestInit][] } }).mock.calls[0]![1];
    expect((init.headers as Record<string, string>)['X-Session-Token']).toBe('tok_1');
  });

  it('shows the progress and the first step not done; a failed step says why and offers to try again', async () => {
    reply = (path) =>
      path === '/session'
        ? started([
            { step: 'document', done: true },
            { step: 'location', done: false },
          ])
        : { success: false, error: { code: 'step_retry_required', message: 'location permission denied. Try again (1 try left).' }, data: { step: 'location', reason: 'permission_denied', tries_left: 1 } };
    vi.stubGlobal('navigator', { ...navigator, geolocation: { getCurrentPosition: (_ok: unknown, fail: (error: { code: number }) => void) => fail({ code: 1 }) } });
    const page = await mount();
    expect([...page.querySelectorAll('#progress li')].map((li) => li.className)).toEqual(['done', 'current']);
    expect(page.querySelector('h1')!.textContent).toBe('Share your location');
    act(() => page.querySelector('button')!.click());
    await settle();
    expect(answers.at(-1)).toEqual({ path: '/session/steps/location', body: { source: 'permission_denied', error: 'location permission denied' } });
    expect(page.querySelector('button')!.textContent).toBe('Try again');
    expect(page.querySelector('[role=alert]')!.textContent).toBe('We need your location to continue. Allow it when your browser asks, then try again. Tries left: 1.');
  });

  it('an error the person can act on is said in plain words', async () => {
    reply = () => ({ success: false, error: { code: 'token_missing', message: 'session token required' } });
    const page = await mount();
    expect(page.querySelector('h1')!.textContent).toBe('We could not open this verification');
    expect(page.querySelector('[role=alert]')!.textContent).toBe('This verification link is incomplete. Open the full link you were sent.');
  });

  it('an expired, abandoned or finished session opened again gets its own page, without a progress bar', async () => {
    const cases: [unknown, string][] = [
      [{ success: false, error: { code: 'session_expired', message: 'expired' } }, 'This link has expired'],
      [started([{ step: 'document', done: true }], { finished: true, status: 'EXPIRED' }), 'This link has expired'],
      [started([{ step: 'document', done: true }], { finished: true, status: 'ABANDONED' }), 'This verification was not finished in time'],
      [started([{ step: 'document', done: true }], { finished: true, status: 'APPROVED' }), 'This verification is already finished'],
      [{ success: false, error: { code: 'session_closed', message: 'closed' } }, 'This verification is already finished'],
    ];
    for (const [answer, heading] of cases) {
      reply = () => answer;
      const page = await mount();
      expect(page.querySelector('h1')!.textContent).toBe(heading);
      expect(page.querySelectorAll('#progress li')).toHaveLength(0);
      expect(page.textContent).not.toContain('Verification complete');
      page.remove();
    }
  });

  it('says the outcome at the end of a flow finished on the page', async () => {
    reply = (path) => (path === '/session' ? started([{ step: 'location', done: false }]) : started([{ step: 'location', done: true }], { finished: true, status: 'IN_REVIEW' }));
    vi.stubGlobal('navigator', { ...navigator, geolocation: { getCurrentPosition: (ok: (position: unknown) => void) => ok({ coords: { latitude: 1, longitude: 2, accuracy: 5 }, timestamp: Date.now() }) } });
    const page = await mount();
    act(() => page.querySelector('button')!.click());
    await settle();
    expect(page.querySelector('h1')!.textContent).toBe('Verification complete');
    expect(page.textContent).toContain('Thanks: a person will review your verification.');
    expect(page.querySelector('#step')!.getAttribute('data-status')).toBe('IN_REVIEW');
  });

  it('the licence step asks for the missing fields before sending anything', async () => {
    reply = (path) => (path === '/session' ? started([{ step: 'licence', done: false }]) : { success: true, data: { states: [{ state_code: 'NY', state_name: 'New York' }] } });
    const page = await mount();
    await vi.waitFor(() => expect([...page.querySelectorAll('#state option')].map((option) => option.textContent)).toEqual(['Choose a state', 'New York']));
    act(() => page.querySelector('button')!.click());
    await settle();
    expect(page.querySelector('[role=alert]')!.textContent).toBe('Fill in the state, the board, your name and the licence number.');
    expect(answers.map((answer) => answer.path)).toEqual(['/session', '/credential/states']);
  });

  it('speaks the language the server chose, and switches on the page for this tab', async () => {
    reply = () => started([{ step: 'document', done: false }]);
    document.documentElement.lang = 'es';
    const page = await mount();
    expect(page.querySelector('h1')!.textContent).toBe('Foto de tu documento de identidad');
    expect(page.querySelector('label[for=front]')!.textContent).toBe('Parte delantera del documento');
    const switcher = page.querySelector<HTMLSelectElement>('select[aria-label=Idioma]')!;
    switcher.value = 'de';
    act(() => {
      switcher.dispatchEvent(new Event('change'));
    });
    expect(page.querySelector('h1')!.textContent).toBe('Foto Ihres Ausweisdokuments');
    expect(document.documentElement.lang).toBe('de');
    expect(sessionStorage.getItem('verity-language')).toBe('de');
  });

  it('a session not started shows the start screen (for whom, what, how long, what is kept) and starts only on consent', async () => {
    reply = (path) =>
      started(
        [
          { step: 'document', done: false },
          { step: 'selfie', done: false },
        ],
        path === '/session' ? { status: 'NOT_STARTED', privacy_policy_url: 'https://acme.example/privacy' } : {},
      );
    const page = await mount();
    expect(page.querySelector('h1')!.textContent).toBe('Verify your identity for Acme');
    expect([...page.querySelectorAll('li')].map((li) => li.textContent)).toEqual(['take a photo of your ID document', 'take a short selfie with a small head movement']);
    expect(page.textContent).toContain('It takes about 4 minutes.');
    expect(page.textContent).toContain('Acme receives the result and the details read from your document.');
    expect(page.querySelectorAll('#progress li')).toHaveLength(0);
    const privacy = page.querySelector<HTMLAnchorElement>('a[href="https://acme.example/privacy"]')!;
    expect(privacy.textContent).toBe('Privacy policy of Acme');
    expect(privacy.rel).toBe('noopener noreferrer');
    expect(answers.map((answer) => answer.path)).toEqual(['/session']);
    act(() => page.querySelector('button')!.click());
    await settle();
    // happy-dom has no camera: the document step offers to continue on a phone at once.
    expect(answers.map((answer) => answer.path)).toEqual(['/session', '/session/start', '/session/handoff']);
    expect(page.querySelector('h1')!.textContent).toBe('Photo of your ID document');
  });
});
