// The hosted verification page's script. The session token arrives in the URL fragment, which
// browsers never send to servers; this moves it to sessionStorage and out of the address bar.
import '../design/components.css';
import './hosted.css';
import { h, showError } from '../lib/dom.js';

type StepName = 'document' | 'selfie' | 'location' | 'licence';
interface HostedState {
  status: string;
  finished: boolean;
  steps: { step: StepName; done: boolean }[];
  geofence?: unknown;
  redirect_to?: string | null;
}
interface ApiError { code?: string; message?: string }
interface Challenge { challenge_id: string; gesture: string }
interface LicenceState { state_code: string; state_name: string }
interface Provider { provider_code: string; provider_display_name: string; credential_name: string; required_fields: string[] }

const API = '/api/hosted';
const $step = document.getElementById('step') as HTMLElement;
const $progress = document.getElementById('progress') as HTMLElement;
const sessionId = location.pathname.split('/').filter(Boolean)[1];
const storeKey = 'verity-session-' + sessionId;
if (location.hash.length > 1) {
  sessionStorage.setItem(storeKey, location.hash.slice(1));
  history.replaceState(null, '', location.pathname);
}
const token = sessionStorage.getItem(storeKey);

const TITLES: Record<StepName, string> = { document: 'Photo of your ID document', selfie: 'Take a selfie', location: 'Share your location', licence: 'Your professional licence' };
const FRIENDLY: Record<string, string> = {
  no_face: 'We could not see your face clearly. Face the camera in good, even light and try again.',
  challenge_expired: 'That took too long. Press the button and try again.',
  unprocessable: 'We could not read that photo. Make sure the whole document is in the frame, sharp and well lit.',
  image_too_large: 'That photo is too large (over 20 MB). Try again with a smaller one.',
  session_expired: 'This verification link has expired. Ask for a new one.',
  session_closed: 'This verification is already complete.',
  invalid_token: 'This verification link is not valid.',
  token_missing: 'This verification link is incomplete. Open the full link you were sent.',
};
const GESTURES: Record<string, string> = {
  turn_left: 'Slowly turn your head to your left',
  turn_right: 'Slowly turn your head to your right',
  look_up: 'Slowly look up',
  blink: 'Blink a few times',
  smile: 'Smile',
};
const OUTCOMES: Record<string, string> = {
  APPROVED: 'You are verified.',
  DECLINED: 'We could not verify you.',
  IN_REVIEW: 'Thanks: a person will review your verification.',
  EXPIRED: 'This verification link has expired.',
  ABANDONED: 'This verification was not finished in time.',
};

const friendly = (error: ApiError) => (error.code && FRIENDLY[error.code]) || error.message || 'Something went wrong. Try again.';
const fail = (where: Element, error: unknown) => showError(where, friendly(error as ApiError));
const show = (title: string, ...children: Node[]) => $step.replaceChildren(h('h1', null, title), ...children);

async function call<T>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(API + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'X-Session-Token': token ?? '', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = await response.json().catch(() => ({ success: false, error: { code: 'network', message: 'The server did not answer. Check your connection and try again.' } }));
  if (!envelope.success) throw envelope.error as ApiError;
  return envelope.data as T;
}

/** Mean brightness (0-255) of a canvas: refuse photos too dark to read. */
function brightness(canvas: HTMLCanvasElement): number {
  const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
  let sum = 0;
  let n = 0;
  for (let i = 0; i < data.length; i += 40) {
    sum += 0.299 * data[i]! + 0.587 * data[i + 1]! + 0.114 * data[i + 2]!;
    n++;
  }
  return sum / n;
}

function toCanvas(source: CanvasImageSource, width: number, height: number, maxSide: number): HTMLCanvasElement {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round(height * scale);
  canvas.getContext('2d')!.drawImage(source, 0, 0, canvas.width, canvas.height);
  return canvas;
}

async function fileToDataUrl(file: File): Promise<string> {
  const bitmap = await createImageBitmap(file);
  const canvas = toCanvas(bitmap, bitmap.width, bitmap.height, 2400);
  if (brightness(canvas) < 35) throw { message: 'That photo is too dark. Turn on a light or move to a brighter place and retake it.' } satisfies ApiError;
  return canvas.toDataURL('image/jpeg', 0.92);
}

function render(state: HostedState): void {
  const current = state.steps.findIndex((s) => !s.done);
  $progress.replaceChildren(...state.steps.map((s, i) => h('li', { class: s.done ? 'done' : current === i ? 'current' : '', title: TITLES[s.step] })));
  const next = state.steps[current];
  if (state.finished) finish(state);
  else if (!next) show('Checking your details…', h('p', { class: 'hint' }, 'This takes a moment.'));
  else void STEPS[next.step](state);
}

function finish(state: HostedState): void {
  show('Verification complete', h('p', null, OUTCOMES[state.status] ?? 'Thank you.'), h('p', { class: 'hint' }, state.redirect_to ? 'Taking you back…' : 'You can close this page.'));
  $step.dataset.status = state.status;
  const redirect = state.redirect_to;
  if (redirect) setTimeout(() => location.assign(redirect), 1500);
}

async function submit(step: StepName, body: unknown, button: HTMLButtonElement, where: Element): Promise<void> {
  button.disabled = true;
  button.textContent = 'Checking…';
  try {
    render(await call<HostedState>('/session/steps/' + step, body));
  } catch (error) {
    button.disabled = false;
    button.textContent = 'Try again';
    fail(where, error);
  }
}

function documentStep(): void {
  const front = h('input', { type: 'file', id: 'front', accept: 'image/*', capture: 'environment' });
  const back = h('input', { type: 'file', id: 'back', accept: 'image/*', capture: 'environment' });
  const button = h('button', { type: 'button' }, 'Continue');
  const form = h('div', null, h('p', { class: 'hint' }, 'Place the document on a dark, flat surface in good light, with all four corners visible.'),
    h('label', { for: 'front' }, 'Front of the document'), front,
    h('label', { for: 'back' }, 'Back of the document (if it has a barcode or text lines)'), back, button);
  show(TITLES.document, form);
  button.addEventListener('click', async () => {
    const frontFile = front.files?.[0];
    if (!frontFile) return showError(form, 'Add a photo of the front of your document.');
    try {
      const body: { front_image: string; back_image?: string } = { front_image: await fileToDataUrl(frontFile) };
      const backFile = back.files?.[0];
      if (backFile) body.back_image = await fileToDataUrl(backFile);
      await submit('document', body, button, form);
    } catch (error) {
      fail(form, error);
    }
  });
}

async function selfieStep(): Promise<void> {
  const video = h('video', { class: 'camera', autoplay: true, playsinline: true, muted: true });
  const instruction = h('p', { class: 'instruction', role: 'status', 'aria-live': 'assertive' });
  const button = h('button', { type: 'button' }, 'Take selfie');
  const form = h('div', null, h('p', { class: 'hint' }, 'Hold the phone at eye level in good light. When you press the button we ask for a small movement and take a few frames.'), video, instruction, button);
  show(TITLES.selfie, form);
  let stream: MediaStream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'user', width: { ideal: 640 }, height: { ideal: 480 } }, audio: false });
  } catch {
    button.disabled = true;
    return showError(form, 'We need your camera for the selfie. Allow camera access in your browser settings and reload this page.');
  }
  video.srcObject = stream;
  button.addEventListener('click', async () => {
    button.disabled = true;
    form.querySelector('.error')?.remove();
    let challenge: Challenge;
    try {
      challenge = await call<Challenge>('/session/challenge', {});
    } catch (error) {
      button.disabled = false;
      return fail(form, error);
    }
    instruction.textContent = GESTURES[challenge.gesture] ?? 'Move your head a little';
    button.textContent = 'Recording…';
    // Six frames over two seconds, while the person does the gesture; each with the time it was
    // taken, in ms after the challenge arrived (the server refuses frames older than the challenge).
    const received = performance.now();
    const frames: string[] = [];
    const capturedMs: number[] = [];
    for (let i = 0; i < 6; i++) {
      const canvas = toCanvas(video, video.videoWidth, video.videoHeight, 960);
      capturedMs.push(Math.round(performance.now() - received));
      if (i === 0 && brightness(canvas) < 35) {
        instruction.textContent = '';
        button.disabled = false;
        button.textContent = 'Try again';
        return showError(form, 'It is too dark. Turn on a light or face a window and try again.');
      }
      frames.push(canvas.toDataURL('image/jpeg', 0.9));
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    instruction.textContent = '';
    await submit('selfie', { frames, challenge_id: challenge.challenge_id, captured_ms: capturedMs }, button, form);
    if (!form.isConnected) for (const track of stream.getTracks()) track.stop();
  });
}

function locationStep(state: HostedState): void {
  const button = h('button', { type: 'button' }, 'Share my location');
  const form = h('div', null, h('p', { class: 'hint' }, state.geofence ? 'We check that you are where this verification expects you to be.' : 'We record where this verification took place.'), button);
  show(TITLES.location, form);
  button.addEventListener('click', () => {
    button.disabled = true;
    button.textContent = 'Locating…';
    navigator.geolocation.getCurrentPosition(
      (position) => submit('location', { latitude: position.coords.latitude, longitude: position.coords.longitude, accuracy: position.coords.accuracy, source: 'gps', captured_at: new Date(position.timestamp).toISOString() }, button, form),
      (error) => submit('location', { source: 'permission_denied', error: error.code === 1 ? 'location permission denied' : 'location unavailable' }, button, form),
      { enableHighAccuracy: true, timeout: 20000, maximumAge: 0 },
    );
  });
}

/** The label of a board's extra field: `npi` reads NPI, others their words. */
const fieldLabel = (field: string) => (field.toLowerCase() === 'npi' ? 'NPI' : field.replace(/_/g, ' '));

async function licenceStep(): Promise<void> {
  const state = h('select', { id: 'state' }, h('option', { value: '' }, 'Choose a state'));
  const provider = h('select', { id: 'provider', disabled: true }, h('option', { value: '' }, 'Choose the state first'));
  const first = h('input', { id: 'first', autocomplete: 'given-name' });
  const last = h('input', { id: 'last', autocomplete: 'family-name' });
  const number = h('input', { id: 'number', autocomplete: 'off' });
  const extra = h('div');
  const button = h('button', { type: 'button' }, 'Check my licence');
  const form = h('div', null, h('label', { for: 'state' }, 'State'), state, h('label', { for: 'provider' }, 'Licensing board'), provider,
    h('label', { for: 'first' }, 'First name'), first, h('label', { for: 'last' }, 'Last name'), last,
    h('label', { for: 'number' }, 'Licence number'), number, extra, button);
  show(TITLES.licence, form);
  let providers: Provider[] = [];
  try {
    for (const s of (await call<{ states: LicenceState[] }>('/credential/states')).states) state.append(h('option', { value: s.state_code }, s.state_name));
  } catch (error) {
    fail(form, error);
  }
  state.addEventListener('change', async () => {
    provider.replaceChildren(h('option', { value: '' }, 'Choose a board'));
    if (!state.value) return;
    providers = (await call<{ providers: Provider[] }>('/credential/states/' + state.value + '/providers')).providers;
    for (const p of providers) provider.append(h('option', { value: p.provider_code }, p.provider_display_name + ' (' + p.credential_name + ')'));
    provider.removeAttribute('disabled');
  });
  provider.addEventListener('change', () => {
    const chosen = providers.find((p) => p.provider_code === provider.value);
    const known = ['license_number', 'first_name', 'last_name', 'full_name'];
    extra.replaceChildren(...(chosen ? chosen.required_fields.filter((f) => !known.includes(f)) : []).flatMap((field) => [
      h('label', { for: 'f-' + field }, fieldLabel(field)), h('input', { id: 'f-' + field, 'data-field': field })]));
  });
  button.addEventListener('click', () => {
    if (!state.value || !provider.value || !number.value.trim() || !first.value.trim() || !last.value.trim()) return showError(form, 'Fill in the state, the board, your name and the licence number.');
    const body: Record<string, string> = { license_state: state.value, provider_code: provider.value, license_number: number.value.trim(), first_name: first.value.trim(), last_name: last.value.trim() };
    for (const input of extra.querySelectorAll('input')) if (input.value.trim() && input.dataset.field) body[input.dataset.field] = input.value.trim();
    void submit('licence', body, button, form);
  });
}

const STEPS: Record<StepName, (state: HostedState) => void | Promise<void>> = { document: documentStep, selfie: selfieStep, location: locationStep, licence: licenceStep };

call<HostedState>('/session/start', {}).then(render, (error: ApiError) =>
  show('We could not open this verification', h('p', { class: 'error', role: 'alert' }, friendly(error))));
