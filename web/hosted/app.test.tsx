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
const started = (steps: { step: string; done: boolean; outcome?: string | null }[], extra: object = {}) => ({
  success: true,
  data: { status: 'IN_PROGRESS', project_name: 'Acme', finished: false, steps, ...extra },
});

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
        : {
            success: false,
            error: { code: 'step_retry_required', message: 'location permission denied. Try again (1 try left).' },
            data: { step: 'location', reason: 'permission_denied', tries_left: 1 },
          };
    vi.stubGlobal('navigator', {
      ...navigator,
      geolocation: { getCurrentPosition: (_ok: unknown, fail: (error: { code: number }) => void) => fail({ code: 1 }) },
    });
    const page = await mount();
    expect([...page.querySelectorAll('#progress li')].map((li) => li.className)).toEqual(['done', 'current']);
    expect(page.querySelector('h1')!.textContent).toBe('Share your location');
    act(() => page.querySelector('button')!.click());
    await settle();
    expect(answers.at(-1)).toEqual({
      path: '/session/steps/location',
      body: { source: 'permission_denied', error: 'location permission denied' },
    });
    expect(page.querySelector('button')!.textContent).toBe('Try again');
    expect(page.querySelector('[role=alert]')!.textContent).toBe(
      'We need your location to continue. Allow it when your browser asks, then try again. Tries left: 1.',
    );
  });

  it('an error the person can act on is said in plain words', async () => {
    reply = () => ({ success: false, error: { code: 'token_missing', message: 'session token required' } });
    const page = await mount();
    expect(page.querySelector('h1')!.textContent).toBe('We could not open this verification');
    expect(page.querySelector('[role=alert]')!.textContent).toBe(
      'This verification link is incomplete. Open the full link you were sent.',
    );
  });

  it('an expired, abandoned or finished session opened again gets its own page, without a progress bar', async () => {
    const cases: [unknown, string][] = [
      [{ success: false, error: { code: 'session_expired', message: 'expired' } }, 'This link has expired'],
      [started([{ step: 'document', done: true }], { finished: true, status: 'EXPIRED' }), 'This link has expired'],
      [
        started([{ step: 'document', done: true }], { finished: true, status: 'ABANDONED' }),
        'This verification was not finished in time',
      ],
      [
        started([{ step: 'document', done: true }], { finished: true, status: 'APPROVED' }),
        'This verification is already finished',
      ],
      [
        { success: false, error: { code: 'session_closed', message: 'closed' } },
        'This verification is already finished',
      ],
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
    reply = (path) =>
      path === '/session'
        ? started([{ step: 'location', done: false }])
        : started([{ step: 'location', done: true }], { finished: true, status: 'IN_REVIEW' });
    vi.stubGlobal('navigator', {
      ...navigator,
      geolocation: {
        getCurrentPosition: (ok: (position: unknown) => void) =>
          ok({ coords: { latitude: 1, longitude: 2, accuracy: 5 }, timestamp: Date.now() }),
      },
    });
    const page = await mount();
    act(() => page.querySelector('button')!.click());
    await settle();
    expect(page.querySelector('h1')!.textContent).toBe('Verification complete');
    expect(page.textContent).toContain('Thanks: a person will review your verification.');
    expect(page.querySelector('#step')!.getAttribute('data-status')).toBe('IN_REVIEW');
  });

  it('the licence step asks for the missing fields before sending anything', async () => {
    reply = (path) =>
      path === '/session'
        ? started([{ step: 'licence', done: false }])
        : { success: true, data: { states: [{ state_code: 'NY', state_name: 'New York' }] } };
    const page = await mount();
    await vi.waitFor(() =>
      expect([...page.querySelectorAll('#state option')].map((option) => option.textContent)).toEqual([
        'Choose a state',
        'New York',
      ]),
    );
    act(() => page.querySelector('button')!.click());
    await settle();
    expect(page.querySelector('[role=alert]')!.textContent).toBe(
      'Fill in the state, the board, your name and the licence number.',
    );
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
        path === '/session'
          ? { status: 'NOT_STARTED', privacy_policy_url: 'https://acme.example/privacy', retention_days: 14 }
          : {},
      );
    const page = await mount();
    expect(page.querySelector('h1')!.textContent).toBe('Verify your identity for Acme');
    expect([...page.querySelectorAll('li')].map((li) => li.textContent)).toEqual([
      'take a photo of your ID document',
      'take a short selfie with a small head movement',
    ]);
    expect(page.textContent).toContain('It takes about 4 minutes.');
    // What is kept, for how long (the project's retention) and who sees it: never "not stored".
    expect(page.querySelector('#kept')!.textContent).toBe(
      'We keep the photos of your document and of your selfie while your verification is checked and for 14 days after the decision, so that the people at Acme who review verifications can look at them. Then they are deleted.',
    );
    expect(page.textContent).not.toContain('not stored');
    expect(page.textContent).toContain('Acme receives the result and the details read from your document');
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

  it('says what is kept in every language, for the retention the project set (none, one day, days)', async () => {
    const kept = async (language: string, days: number) => {
      reply = () => started([{ step: 'document', done: false }], { status: 'NOT_STARTED', retention_days: days });
      document.documentElement.lang = language;
      const page = await mount();
      const text = page.querySelector('#kept')!.textContent!;
      page.remove();
      return text;
    };
    expect(await kept('en', 0)).toBe(
      'Your photos are used for these checks and deleted as soon as the decision is made; no one looks at them afterwards.',
    );
    expect(await kept('en', 1)).toContain('for 1 day after the decision');
    expect(await kept('es', 30)).toContain('durante 30 días después de la decisión');
    expect(await kept('fr', 30)).toContain('30 jours après la décision');
    expect(await kept('de', 30)).toContain('30 Tage nach der Entscheidung');
  });

  it('words a selfie asked again from its reason code in the page language, never the server English', async () => {
    const { friendly } = await import('./words.js');
    const { translator } = await import('./i18n.js');
    const error = {
      code: 'face_rescan_required',
      message:
        'the frames are not one continuous capture (face_track): take the burst in one go with the camera. Try again (2 left).',
      data: { step: 'selfie', reason: 'spoof', tries_left: 2 },
    };
    expect(friendly(translator('es'), error)).toBe(
      'No pudimos confirmar que haya una persona real delante de la cámara. Sujeta el teléfono a la altura de los ojos, con buena luz, con solo tu cara en la imagen, y haz el movimiento de una vez. Intentos restantes: 2.',
    );
    expect(
      friendly(translator('es'), {
        code: 'face_rescan_required',
        data: { step: 'selfie', reason: 'something_new', tries_left: 1 },
      }),
    ).toContain('No pudimos confirmar tu selfi.');
    // A code without words of its own gets the generic sentence in the language, not the message.
    expect(friendly(translator('de'), { code: 'brand_new_code', message: 'developer text' })).toBe(
      'Etwas ist schiefgelaufen. Versuchen Sie es erneut.',
    );
  });

  it('the declined end screen shows each step as it ended and what happens next, with the support link', async () => {
    // Finished on this page: the app shows the end (a session already finished when opened has its own page).
    reply = (path) =>
      path === '/session'
        ? started([{ step: 'location', done: false }])
        : started(
            [
              { step: 'selfie', done: true, outcome: 'failed' },
              { step: 'location', done: true, outcome: 'not_run' },
            ],
            { finished: true, status: 'DECLINED', support_url: 'mailto:help@acme.example' },
          );
    vi.stubGlobal('navigator', {
      ...navigator,
      geolocation: {
        getCurrentPosition: (ok: (position: unknown) => void) =>
          ok({ coords: { latitude: 1, longitude: 2, accuracy: 5 }, timestamp: Date.now() }),
      },
    });
    const page = await mount();
    act(() => page.querySelector('button')!.click());
    await settle();
    expect(page.textContent).toContain('We could not verify you.');
    expect([...page.querySelectorAll('ul.step-results li')].map((li) => li.textContent)).toEqual([
      'Take a selfie: not confirmed',
      'Share your location: not done',
    ]);
    expect([...page.querySelectorAll('#progress li')].map((li) => li.className)).toEqual([
      'done failed',
      'done not_run',
    ]);
    expect(page.textContent).toContain('If you think this is a mistake, or you want to try again, contact Acme.');
    expect(page.querySelector<HTMLAnchorElement>('a[href="mailto:help@acme.example"]')!.textContent).toBe(
      'Contact Acme',
    );
  });

  it('progress items tell assistive technology which step is current and how each ended', async () => {
    reply = () =>
      started([
        { step: 'document', done: true, outcome: 'passed' },
        { step: 'selfie', done: false, outcome: null },
        { step: 'location', done: false, outcome: null },
      ]);
    const page = await mount();
    const items = [...page.querySelectorAll('#progress li')];
    expect(items.map((li) => li.getAttribute('aria-current'))).toEqual([null, 'step', null]);
    expect(items.map((li) => li.textContent)).toEqual([
      'Step 1 of 3: Photo of your ID document (done)',
      'Step 2 of 3: Take a selfie (current step)',
      'Step 3 of 3: Share your location (to do)',
    ]);
  });

  it('a test session says Test mode and picks its outcome instead of running the checks; a picked error shows as the page shows it', async () => {
    let next: unknown = started([{ step: 'location', done: true, outcome: 'not_run' }], {
      finished: true,
      status: 'APPROVED',
      livemode: false,
    });
    reply = (path) => (path === '/session' ? started([{ step: 'location', done: false }], { livemode: false }) : next);
    const page = await mount();
    expect(page.querySelector('.test-banner')!.textContent).toContain('Test mode');
    const button = (name: string) => [...page.querySelectorAll('button')].find((b) => b.textContent === name)!;
    act(() => button('Approve').click());
    await settle();
    expect(answers.at(-1)).toEqual({ path: '/session/test-outcome', body: { outcome: 'approve' } });
    expect(page.querySelector('#step')!.getAttribute('data-status')).toBe('APPROVED');
    expect(page.querySelector('.test-banner')).not.toBeNull();
    expect(page.querySelector('.test-picker')).toBeNull();
    page.remove();

    next = { success: false, error: { code: 'session_expired', message: 'forced by the hosted page' } };
    const again = await mount();
    const select = again.querySelector<HTMLSelectElement>('#test-error')!;
    expect(select.value).toBe('session_expired');
    act(() => [...again.querySelectorAll('button')].find((b) => b.textContent === 'Answer with this error')!.click());
    await settle();
    expect(answers.at(-1)).toEqual({ path: '/session/test-outcome', body: { outcome: 'session_expired' } });
    expect(again.querySelector('h1')!.textContent).toBe('This link has expired');
  });

  it('a live session shows no test mode', async () => {
    reply = () => started([{ step: 'location', done: false }]);
    const page = await mount();
    expect(page.querySelector('.test-banner')).toBeNull();
    expect(page.querySelector('.test-picker')).toBeNull();
  });
});
