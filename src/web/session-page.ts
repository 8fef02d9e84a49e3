import { Router } from 'express';

// The hosted verification page. One HTML shell and one script, served from our origin only (no
// CDN, no fonts, no network beyond us). The session token arrives in the URL fragment, which
// browsers never send to servers; the script moves it to sessionStorage and out of the address bar.

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#17202e;background:#f3f5f9}
main{max-width:34rem;margin:0 auto;padding:1.25rem 1rem 3rem}
header{display:flex;align-items:center;gap:.5rem;margin-bottom:1rem;font-weight:700;color:#2457c5}
.card{background:#fff;border-radius:14px;padding:1.25rem;box-shadow:0 1px 3px rgba(20,30,50,.12)}
h1{font-size:1.35rem;margin:.2rem 0 .6rem}p{margin:.4rem 0}
ol.progress{display:flex;gap:.35rem;list-style:none;padding:0;margin:0 0 1rem}
ol.progress li{flex:1;height:6px;border-radius:3px;background:#d9dfea}ol.progress li.done{background:#2e9e6a}ol.progress li.current{background:#2457c5}
label{display:block;font-weight:600;margin:.8rem 0 .25rem}
input,select{width:100%;font:inherit;padding:.6rem;border:1px solid #b9c3d4;border-radius:8px;background:#fff}
button{font:inherit;font-weight:600;border:0;border-radius:10px;padding:.8rem 1rem;width:100%;margin-top:1rem;background:#2457c5;color:#fff;cursor:pointer}
button.secondary{background:#e6ebf4;color:#17202e}button:disabled{opacity:.55;cursor:progress}
video,canvas.preview{width:100%;border-radius:12px;background:#0b1220;transform:scaleX(-1)}
.error{color:#b42318;background:#fdecea;border-radius:8px;padding:.6rem .8rem;margin-top:.8rem}
.hint{color:#5a6577;font-size:.92rem}.ok{color:#1f7a4f}
.instruction{font-size:1.15rem;font-weight:700;color:#2457c5;text-align:center;min-height:1.6em;margin:.6rem 0 0}
`;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Verify your identity</title><style>${STYLE}</style></head>
<body><main><header>&#9673; Verity</header>
<ol class="progress" id="progress" aria-label="Progress"></ol>
<section class="card" id="step" aria-live="polite"><h1>Loading&hellip;</h1></section>
</main><script src="/verify/assets/app.js" defer></script></body></html>`;

const SCRIPT = String.raw`
'use strict';
const api = '/api/hosted';
const $step = document.getElementById('step');
const $progress = document.getElementById('progress');
const sessionId = location.pathname.split('/').filter(Boolean)[1];
const storeKey = 'verity-session-' + sessionId;
if (location.hash.length > 1) {
  sessionStorage.setItem(storeKey, location.hash.slice(1));
  history.replaceState(null, '', location.pathname);
}
const token = sessionStorage.getItem(storeKey);

const TITLES = { document: 'Photo of your ID document', selfie: 'Take a selfie', location: 'Share your location', licence: 'Your professional licence' };
const FRIENDLY = {
  no_face: 'We could not see your face clearly. Face the camera in good, even light and try again.',
  challenge_expired: 'That took too long. Press the button and try again.',
  unprocessable: 'We could not read that photo. Make sure the whole document is in the frame, sharp and well lit.',
  image_too_large: 'That photo is too large (over 20 MB). Try again with a smaller one.',
  session_expired: 'This verification link has expired. Ask for a new one.',
  session_closed: 'This verification is already complete.',
  invalid_token: 'This verification link is not valid.',
  token_missing: 'This verification link is incomplete. Open the full link you were sent.',
};

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === 'text') node.textContent = value; else if (key.startsWith('on')) node.addEventListener(key.slice(2), value); else node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}
function show(title, ...children) { $step.replaceChildren(el('h1', { text: title }), ...children); }
function showError(where, error) {
  where.querySelector('.error')?.remove();
  where.append(el('p', { class: 'error', role: 'alert', text: FRIENDLY[error.code] || error.message || 'Something went wrong. Try again.' }));
}

async function call(path, body) {
  const response = await fetch(api + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: Object.assign({ 'X-Session-Token': token || '' }, body === undefined ? {} : { 'Content-Type': 'application/json' }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = await response.json().catch(() => ({ success: false, error: { code: 'network', message: 'The server did not answer. Check your connection and try again.' } }));
  if (!envelope.success) throw envelope.error;
  return envelope.data;
}

/** Mean brightness (0-255) of a canvas: refuse photos too dark to read. */
function brightness(canvas) {
  const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
  let sum = 0; let n = 0;
  for (let i = 0; i < data.length; i += 40) { sum += 0.299 * data[i] + 0.587 * data[i + 1] + 0.114 * data[i + 2]; n++; }
  return sum / n;
}
function toCanvas(source, width, height, maxSide) {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(width * scale); canvas.height = Math.round(height * scale);
  canvas.getContext('2d').drawImage(source, 0, 0, canvas.width, canvas.height);
  return canvas;
}
async function fileToDataUrl(file) {
  const bitmap = await createImageBitmap(file);
  const canvas = toCanvas(bitmap, bitmap.width, bitmap.height, 2400);
  if (brightness(canvas) < 35) throw { message: 'That photo is too dark. Turn on a light or move to a brighter place and retake it.' };
  return canvas.toDataURL('image/jpeg', 0.92);
}

function render(state) {
  $progress.replaceChildren(...state.steps.map((s, i) => el('li', { class: s.done ? 'done' : (state.steps.findIndex((x) => !x.done) === i ? 'current' : ''), title: TITLES[s.step] })));
  if (state.finished) return finish(state);
  const next = state.steps.find((s) => !s.done);
  if (!next) return show('Checking your details…', el('p', { class: 'hint', text: 'This takes a moment.' }));
  ({ document: documentStep, selfie: selfieStep, location: locationStep, licence: licenceStep })[next.step](state);
}

function finish(state) {
  const words = { APPROVED: 'You are verified.', DECLINED: 'We could not verify you.', IN_REVIEW: 'Thanks: a person will review your verification.', EXPIRED: 'This verification link has expired.', ABANDONED: 'This verification was not finished in time.' };
  show('Verification complete', el('p', { text: words[state.status] || 'Thank you.' }),
    state.redirect_to ? el('p', { class: 'hint', text: 'Taking you back…' }) : el('p', { class: 'hint', text: 'You can close this page.' }));
  $step.dataset.status = state.status;
  if (state.redirect_to) setTimeout(() => location.assign(state.redirect_to), 1500);
}

async function submit(step, body, button, where) {
  button.disabled = true; button.textContent = 'Checking…';
  try { render(await call('/session/steps/' + step, body)); }
  catch (error) { button.disabled = false; button.textContent = 'Try again'; showError(where, error); }
}

function documentStep() {
  const front = el('input', { type: 'file', id: 'front', accept: 'image/*', capture: 'environment' });
  const back = el('input', { type: 'file', id: 'back', accept: 'image/*', capture: 'environment' });
  const button = el('button', { type: 'button', text: 'Continue' });
  const form = el('div', {}, el('p', { class: 'hint', text: 'Place the document on a dark, flat surface in good light, with all four corners visible.' }),
    el('label', { for: 'front', text: 'Front of the document' }), front,
    el('label', { for: 'back', text: 'Back of the document (if it has a barcode or text lines)' }), back, button);
  show(TITLES.document, form);
  button.addEventListener('click', async () => {
    if (!front.files[0]) return showError(form, { message: 'Add a photo of the front of your document.' });
    try {
      const body = { front_image: await fileToDataUrl(front.files[0]) };
      if (back.files[0]) body.back_image = await fileToDataUrl(back.files[0]);
      await submit('document', body, button, form);
    } catch (error) { showError(form, error); }
  });
}

const GESTURES = {
  turn_left: 'Slowly turn your head to your left',
  turn_right: 'Slowly turn your head to your right',
  look_up: 'Slowly look up',
  blink: 'Blink a few times',
  smile: 'Smile',
};

async function selfieStep() {
  const video = el('video', { autoplay: '', playsinline: '', muted: '' });
  const instruction = el('p', { class: 'instruction', role: 'status', 'aria-live': 'assertive' });
  const button = el('button', { type: 'button', text: 'Take selfie' });
  const form = el('div', {}, el('p', { class: 'hint', text: 'Hold the phone at eye level in good light. When you press the button we ask for a small movement and take a few frames.' }), video, instruction, button);
  show(TITLES.selfie, form);
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'user', width: { ideal: 640 }, height: { ideal: 480 } }, audio: false });
  } catch (error) {
    button.disabled = true;
    return showError(form, { message: 'We need your camera for the selfie. Allow camera access in your browser settings and reload this page.' });
  }
  video.srcObject = stream;
  button.addEventListener('click', async () => {
    button.disabled = true;
    form.querySelector('.error')?.remove();
    let challenge;
    try { challenge = await call('/session/challenge', {}); }
    catch (error) { button.disabled = false; return showError(form, error); }
    instruction.textContent = GESTURES[challenge.gesture] || 'Move your head a little';
    button.textContent = 'Recording…';
    // Six frames over two seconds, while the person does the gesture; each with the time it was
    // taken, in ms after the challenge arrived (the server refuses frames older than the challenge).
    const received = performance.now();
    const frames = [];
    const captured_ms = [];
    for (let i = 0; i < 6; i++) {
      const canvas = toCanvas(video, video.videoWidth, video.videoHeight, 960);
      captured_ms.push(Math.round(performance.now() - received));
      if (i === 0 && brightness(canvas) < 35) { instruction.textContent = ''; button.disabled = false; button.textContent = 'Try again'; return showError(form, { message: 'It is too dark. Turn on a light or face a window and try again.' }); }
      frames.push(canvas.toDataURL('image/jpeg', 0.9));
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    instruction.textContent = '';
    await submit('selfie', { frames, challenge_id: challenge.challenge_id, captured_ms }, button, form);
    if (!form.isConnected) stream.getTracks().forEach((track) => track.stop());
  });
}

function locationStep(state) {
  const button = el('button', { type: 'button', text: 'Share my location' });
  const form = el('div', {}, el('p', { class: 'hint', text: state.geofence ? 'We check that you are where this verification expects you to be.' : 'We record where this verification took place.' }), button);
  show(TITLES.location, form);
  button.addEventListener('click', () => {
    button.disabled = true; button.textContent = 'Locating…';
    navigator.geolocation.getCurrentPosition(
      (position) => submit('location', { latitude: position.coords.latitude, longitude: position.coords.longitude, accuracy: position.coords.accuracy, source: 'gps', captured_at: new Date(position.timestamp).toISOString() }, button, form),
      (error) => submit('location', { source: 'permission_denied', error: error.code === 1 ? 'location permission denied' : 'location unavailable' }, button, form),
      { enableHighAccuracy: true, timeout: 20000, maximumAge: 0 },
    );
  });
}

async function licenceStep() {
  const state = el('select', { id: 'state' }, el('option', { value: '', text: 'Choose a state' }));
  const provider = el('select', { id: 'provider', disabled: '' }, el('option', { value: '', text: 'Choose the state first' }));
  const first = el('input', { id: 'first', autocomplete: 'given-name' });
  const last = el('input', { id: 'last', autocomplete: 'family-name' });
  const number = el('input', { id: 'number', autocomplete: 'off' });
  const extra = el('div');
  const button = el('button', { type: 'button', text: 'Check my licence' });
  const form = el('div', {}, el('label', { for: 'state', text: 'State' }), state, el('label', { for: 'provider', text: 'Licensing board' }), provider,
    el('label', { for: 'first', text: 'First name' }), first, el('label', { for: 'last', text: 'Last name' }), last,
    el('label', { for: 'number', text: 'Licence number' }), number, extra, button);
  show(TITLES.licence, form);
  let providers = [];
  try {
    for (const s of (await call('/credential/states')).states) state.append(el('option', { value: s.state_code, text: s.state_name }));
  } catch (error) { showError(form, error); }
  state.addEventListener('change', async () => {
    provider.replaceChildren(el('option', { value: '', text: 'Choose a board' }));
    if (!state.value) return;
    providers = (await call('/credential/states/' + state.value + '/providers')).providers;
    for (const p of providers) provider.append(el('option', { value: p.provider_code, text: p.provider_display_name + ' (' + p.credential_name + ')' }));
    provider.removeAttribute('disabled');
  });
  provider.addEventListener('change', () => {
    const chosen = providers.find((p) => p.provider_code === provider.value);
    const known = ['license_number', 'first_name', 'last_name', 'full_name'];
    extra.replaceChildren(...(chosen ? chosen.required_fields.filter((f) => !known.includes(f)) : []).flatMap((field) => [
      el('label', { for: 'f-' + field, text: field.replace(/_/g, ' ').toUpperCase() === 'NPI' ? 'NPI' : field.replace(/_/g, ' ') }), el('input', { id: 'f-' + field, 'data-field': field })]));
  });
  button.addEventListener('click', () => {
    if (!state.value || !provider.value || !number.value.trim() || !first.value.trim() || !last.value.trim()) return showError(form, { message: 'Fill in the state, the board, your name and the licence number.' });
    const body = { license_state: state.value, provider_code: provider.value, license_number: number.value.trim(), first_name: first.value.trim(), last_name: last.value.trim() };
    for (const input of extra.querySelectorAll('input')) if (input.value.trim()) body[input.dataset.field] = input.value.trim();
    submit('licence', body, button, form);
  });
}

(async () => {
  try { render(await call('/session/start', {})); }
  catch (error) { show('We could not open this verification', el('p', { class: 'error', role: 'alert', text: FRIENDLY[error.code] || error.message })); }
})();
`;

/** `GET /verify/{session_id}`: the page a person completes; `/verify/assets/app.js`: its script. */
export function sessionPageRouter() {
  const router = Router();
  router.get('/verify/assets/app.js', (_req, res) => {
    res.type('application/javascript').setHeader('Cache-Control', 'public, max-age=300');
    res.send(SCRIPT);
  });
  router.get('/verify/:sessionId', (_req, res) => {
    res.setHeader('Content-Security-Policy', "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; style-src 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'");
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Permissions-Policy', 'camera=(self), geolocation=(self)');
    res.type('html').send(PAGE);
  });
  return router;
}
