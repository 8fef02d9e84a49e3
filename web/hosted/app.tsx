// The hosted verification page (Preact): a progress bar and one step at a time, each step a
// component of this file; the API in api.ts, the words in words.ts. main.tsx mounts it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { Button, CameraView, Card, Field, Message } from '../components/index.js';
import QRCode from 'qrcode';
import {
  type ApiError,
  type Challenge,
  call,
  claimHandoffLink,
  type Handoff,
  type HostedState,
  type LicenceState,
  logoUrl,
  type Provider,
  type StepName,
  type StepOutcome,
} from './api.js';
import { fileToDataUrl, toCanvas } from './capture.js';
import {
  faceTooDark,
  frameInPicture,
  GIVE_UP_MS,
  type Gray,
  type Hint,
  hintFor,
  nextStreak,
  READY_FRAMES,
  toGray,
  WHOLE,
} from './guidance.js';
import {
  I18n,
  initialLanguage,
  LANGUAGE_NAMES,
  LANGUAGES,
  type Language,
  rememberLanguage,
  translator,
  useT,
} from './i18n.js';
import { fieldLabel, friendly, wordsFor } from './words.js';

type Advance = (state: HostedState) => void;
/** What a step gets: the session, how to move on, and how to say the person went on on their phone. */
type StepProps = { state: HostedState; advance: Advance; toPhone: () => void };

/** How often a page waiting on the phone reads the session (ms). */
const FOLLOW_EVERY_MS = 2000;

/**
 * What a page following another device compares: a new status or step, or the phone claiming the link (even while it
 * retries a step).
 */
const progressOf = (state: HostedState) =>
  JSON.stringify([state.status, state.steps, state.continued_on_phone ?? false]);

/**
 * Follows the session while another device moves it on: when its steps or status change, or the phone takes over, the
 * page moves with them.
 */
function useFollowSession(state: HostedState, advance: Advance, onMoved?: () => void) {
  useEffect(() => {
    const seen = progressOf(state);
    const timer = setInterval(async () => {
      const now = await call<HostedState>('/session').catch(() => null);
      if (!now || progressOf(now) === seen) return;
      onMoved?.();
      advance(now);
    }, FOLLOW_EVERY_MS);
    return () => clearInterval(timer);
  }, [state]);
}

/** On a device without a camera: a QR code of a one-time link that moves the session to the phone. */
function ContinueOnPhone({ state, advance, toPhone }: StepProps) {
  const t = useT();
  const [link, setLink] = useState<{ url: string; svg: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    call<Handoff>('/session/handoff', {})
      .then(async (handoff) =>
        setLink({
          url: handoff.url,
          svg: await QRCode.toString(handoff.url, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }),
        }),
      )
      .catch((failure) => setError(friendly(t, failure)));
  }, []);
  useFollowSession(state, advance, toPhone);
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    if (!link) return;
    await navigator.clipboard?.writeText(link.url).catch(() => undefined);
    setCopied(true);
  };
  return (
    <section class="handoff">
      <h2>{t('phone.title')}</h2>
      <p class="hint">{t('phone.hint')}</p>
      {/* The SVG is the qrcode package's own drawing of our link: no markup from elsewhere. */}
      {link ? (
        <div
          class="qr"
          role="img"
          aria-label={t('phone.qr')}
          data-handoff-url={link.url}
          dangerouslySetInnerHTML={{ __html: link.svg }}
        />
      ) : (
        <div class="qr qr--waiting" aria-hidden="true" />
      )}
      {link ? (
        <div class="copy-link">
          <label for="handoff-link" class="visually-hidden">
            {t('phone.link')}
          </label>
          <input
            id="handoff-link"
            readOnly
            value={link.url}
            onFocus={(event) => (event.target as HTMLInputElement).select()}
          />
          <Button variant="secondary" onClick={copy}>
            {t('phone.copy')}
          </Button>
        </div>
      ) : null}
      <p class="hint" role="status">
        {copied ? t('phone.copied') : ''}
      </p>
      {error ? <Message kind="error">{error}</Message> : null}
    </section>
  );
}

/** This device after the phone took over: the progress follows, and the end shows here too. */
function FollowingPhone({ state, advance }: { state: HostedState; advance: Advance }) {
  const t = useT();
  useFollowSession(state, advance);
  return (
    <>
      <h1>{t('phone.following.title')}</h1>
      <p class="hint">{t('phone.following.hint')}</p>
    </>
  );
}

/**
 * Sending a step: the button says "Checking…" meanwhile and, where the same action is what to do
 * again (`sameAgain`: sharing the location, a corrected form), "Try again" after a failure.
 */
function useStepSubmit(step: StepName, label: string, advance: Advance, sameAgain = true) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const send = async (body: unknown) => {
    setBusy(true);
    setError(null);
    try {
      advance(await call<HostedState>('/session/steps/' + step, body));
    } catch (failure) {
      setBusy(false);
      setFailed(true);
      setError(friendly(t, failure));
    }
  };
  const fail = (message: string) => {
    setBusy(false);
    setFailed(true);
    setError(message);
  };
  return {
    busy,
    error,
    setError,
    fail,
    send,
    setBusy,
    label: busy ? t('button.checking') : failed && sameAgain ? t('button.tryAgain') : label,
  };
}

/** A step's error, right under its title where the eyes are, brought into view whenever it changes. */
function StepError({ error }: { error: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    box.current?.scrollIntoView?.({ block: 'center' });
  }, [error]);
  return (
    <div ref={box} class="step-error">
      <Message kind="error">{error}</Message>
    </div>
  );
}

function Step({
  title,
  error,
  children,
}: {
  title: string;
  error?: string | null;
  children?: preact.ComponentChildren;
}) {
  return (
    <>
      <h1>{title}</h1>
      {error ? <StepError error={error} /> : null}
      <div>{children}</div>
    </>
  );
}

/**
 * The camera facing `facing`, off when the step is done (or the page moves on); null until it opens, `false` when there
 * is none or it is refused.
 */
function useCamera(
  facing: 'user' | 'environment',
  ideal: { width: number; height: number },
): MediaStream | null | false {
  const [stream, setStream] = useState<MediaStream | null | false>(null);
  useEffect(() => {
    let opened: MediaStream | null = null;
    const media = navigator.mediaDevices;
    if (!media?.getUserMedia) {
      setStream(false);
      return;
    }
    media
      .getUserMedia({
        video: { facingMode: facing, width: { ideal: ideal.width }, height: { ideal: ideal.height } },
        audio: false,
      })
      .then(
        (camera) => {
          opened = camera;
          setStream(camera);
        },
        () => setStream(false),
      );
    return () => {
      for (const track of opened?.getTracks() ?? []) track.stop();
    };
  }, []);
  return stream;
}

/** How often the document camera is looked at for hints (ms), on a frame this wide (px). */
const GUIDE_EVERY_MS = 250;
const GUIDE_WIDTH = 160;

/** A small grey copy of the video's current frame, and where the overlay element `guide` lies in it. */
function lookAt(
  camera: HTMLVideoElement,
  guide: HTMLElement | null,
): { frame: Gray; box: ReturnType<typeof frameInPicture> } {
  const small = toCanvas(camera, camera.videoWidth, camera.videoHeight, GUIDE_WIDTH);
  const frame = toGray(
    small.getContext('2d')!.getImageData(0, 0, small.width, small.height).data,
    small.width,
    small.height,
  );
  return {
    frame,
    box: guide ? frameInPicture(frame, camera.getBoundingClientRect(), guide.getBoundingClientRect()) : WHOLE,
  };
}

/** The camera's current frame as the photo the API takes (JPEG, at most 2400 px). */
const photoOf = (camera: HTMLVideoElement) =>
  toCanvas(camera, camera.videoWidth, camera.videoHeight, 2400).toDataURL('image/jpeg', 0.92);

/**
 * Watches the video for hints until the document has been ready READY_FRAMES times in a row, then
 * takes the photo. The document is judged inside the overlay's frame (`guide`), located in the
 * picture from where both are on screen, so what the person sees framed is what is measured. A hint
 * that stays GIVE_UP_MS is given up on (`stuck`): the page keeps saying it and offers the shutter.
 */
function useGuidedCapture(
  video: { current: HTMLVideoElement | null },
  guide: { current: HTMLDivElement | null },
  active: boolean,
  afterRetake: boolean,
  onCapture: (photo: string) => void,
) {
  const [hint, setHint] = useState<Hint | 'searching' | 'ready'>('searching');
  const [stuck, setStuck] = useState(false);
  useEffect(() => {
    if (!active) return;
    let previous: Gray | null = null;
    let streak = 0;
    let hintedSince = performance.now();
    // After Retake the person rejected what the camera sees now: the page waits for a change (a
    // hint: moved, out of the frame) before it takes a photo by itself again; the shutter still works.
    let waitingForChange = afterRetake;
    const timer = setInterval(() => {
      const camera = video.current;
      if (!camera?.videoWidth) return;
      const { frame, box } = lookAt(camera, guide.current);
      const now = hintFor(frame, previous, box);
      previous = frame;
      if (now !== null) waitingForChange = false;
      streak = waitingForChange ? 0 : nextStreak(streak, now);
      setHint(now ?? 'ready');
      if (now === null) hintedSince = performance.now();
      else if (performance.now() - hintedSince >= GIVE_UP_MS) setStuck(true);
      if (streak >= READY_FRAMES) {
        clearInterval(timer);
        onCapture(photoOf(camera));
      }
    }, GUIDE_EVERY_MS);
    return () => clearInterval(timer);
  }, [active, afterRetake]);
  return { hint, stuck };
}

/** The camera's picture, or, while it opens, a box of the same shape: the page does not jump when it arrives. */
function Viewfinder({
  stream,
  video,
  rear,
  children,
}: {
  stream: MediaStream | null;
  video: { current: HTMLVideoElement | null };
  rear?: boolean;
  children?: preact.ComponentChildren;
}) {
  const t = useT();
  return (
    <div class={rear ? 'viewfinder rear' : 'viewfinder'}>
      {stream ? (
        <CameraView stream={stream} videoRef={video} />
      ) : (
        <div class="camera camera--opening">
          <span>{t('camera.opening')}</span>
        </div>
      )}
      {children}
    </div>
  );
}

/**
 * The document: the camera with a frame and live hints takes the photo by itself, and the shutter
 * takes it whenever the person presses it; the photo is shown for Retake/Use. Uploading a photo
 * stays possible. A refused photo is said at the top, and a new one is asked for (the refused file
 * is cleared, never sent again).
 */
function DocumentStep({ state, advance, toPhone }: StepProps) {
  const t = useT();
  const front = useRef<HTMLInputElement>(null);
  const back = useRef<HTMLInputElement>(null);
  const video = useRef<HTMLVideoElement>(null);
  const guide = useRef<HTMLDivElement>(null);
  const camera = useCamera('environment', { width: 1920, height: 1080 });
  const [photo, setPhoto] = useState<string | null>(null);
  const [retaken, setRetaken] = useState(false);
  const submit = useStepSubmit('document', t('document.continue'), advance, false);
  const guided = useGuidedCapture(video, guide, Boolean(camera) && !photo && !submit.busy, retaken, setPhoto);
  const backImage = async () => {
    const backFile = back.current?.files?.[0];
    return backFile ? { back_image: await fileToDataUrl(backFile) } : {};
  };
  /** After a refusal the chosen files are cleared: the person chooses or takes a new photo. */
  const clearFiles = () => {
    for (const input of [front.current, back.current]) if (input) input.value = '';
  };
  const send = async (frontImage: string) => {
    // A photo sent starts a new try: if it is refused, the camera takes the next one by itself again.
    setRetaken(false);
    await submit.send({ front_image: frontImage, ...(await backImage()) });
    clearFiles();
  };
  const upload = async () => {
    const frontFile = front.current?.files?.[0];
    if (!frontFile) return submit.setError(t('document.needFront'));
    try {
      await send(await fileToDataUrl(frontFile));
    } catch (error) {
      submit.setError(friendly(t, error));
      clearFiles();
    }
  };
  // A refused photo (unreadable, or an expired document) goes back to the camera for another.
  const use = async () => {
    try {
      await send(photo!);
    } catch (error) {
      submit.setError(friendly(t, error));
    }
    setPhoto(null);
  };
  const retake = () => {
    setRetaken(true);
    setPhoto(null);
  };
  const shoot = () => {
    if (video.current?.videoWidth) setPhoto(photoOf(video.current));
  };
  return (
    <Step title={t('title.document')} error={submit.error}>
      {camera !== false ? (
        photo ? (
          <div class="preview">
            <p class="hint">{t('document.previewHint')}</p>
            <img src={photo} alt={t('document.preview')} class="photo" />
            <div class="actions">
              <Button variant="secondary" disabled={submit.busy} onClick={retake}>
                {t('document.retake')}
              </Button>
              <Button disabled={submit.busy} onClick={use}>
                {submit.busy ? t('button.checking') : t('document.use')}
              </Button>
            </div>
          </div>
        ) : (
          <>
            <p class="hint">{t('document.cameraHint')}</p>
            <Viewfinder stream={camera} video={video} rear>
              <div ref={guide} class="guide document" aria-hidden="true" />
            </Viewfinder>
            <p class="instruction" role="status" aria-live="polite" data-hint={guided.hint}>
              {camera ? t(`guide.${guided.hint}`) : ''}
            </p>
            {/* A hint that stays is given up on: the person may take the photo as it is. */}
            <p class="hint give-up" role="status" data-stuck={guided.stuck ? 'true' : undefined}>
              {guided.stuck && guided.hint !== 'ready' ? t('guide.orShoot') : ''}
            </p>
            <Button disabled={!camera || submit.busy} onClick={shoot}>
              {t('document.shutter')}
            </Button>
          </>
        )
      ) : (
        <>
          <ContinueOnPhone state={state} advance={advance} toPhone={toPhone} />
          <p class="hint">{t('document.hint')}</p>
        </>
      )}
      {camera !== false ? <h2 class="or">{t('document.orUpload')}</h2> : null}
      <Field id="front" label={t('document.front')}>
        <input ref={front} type="file" id="front" accept="image/*" capture="environment" />
      </Field>
      <Field id="back" label={t('document.back')}>
        <input ref={back} type="file" id="back" accept="image/*" capture="environment" />
      </Field>
      <Button variant={camera !== false ? 'secondary' : 'primary'} disabled={submit.busy} onClick={upload}>
        {submit.label}
      </Button>
    </Step>
  );
}

/**
 * Six frames over two seconds while the person does the gesture; each with its time in ms after the challenge arrived.
 */
const FRAMES = 6;
const FRAME_GAP_MS = 400;

/** Seconds counted down, with the gesture shown, before the frames are taken. */
const COUNTDOWN_S = 3;
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How often the selfie camera's light is looked at before the button is pressed (ms). */
const LIGHT_EVERY_MS = 500;

/** Whether the face in the oval (`guide`) is too dark for the checks, on the video's current frame. */
function faceIsDark(camera: HTMLVideoElement | null, guide: HTMLElement | null): boolean {
  if (!camera?.videoWidth) return false;
  const { frame, box } = lookAt(camera, guide);
  return faceTooDark(frame, box);
}

/**
 * The selfie: a face oval, then the gesture with a countdown before the frames are taken. The light
 * is judged on the face's region (a lit face on a dark stage is fine), live and again on the
 * button, before any countdown: a face too dark is said at once and costs no try.
 */
function SelfieStep({ state, advance, toPhone }: StepProps) {
  const t = useT();
  const video = useRef<HTMLVideoElement>(null);
  const oval = useRef<HTMLDivElement>(null);
  const stream = useCamera('user', { width: 640, height: 480 });
  const noCamera = stream === false;
  const [instruction, setInstruction] = useState('');
  const [countdown, setCountdown] = useState(0);
  const [recording, setRecording] = useState(false);
  const [dark, setDark] = useState(false);
  const submit = useStepSubmit('selfie', t('selfie.take'), advance);
  useEffect(() => {
    if (!stream || submit.busy) return;
    const timer = setInterval(() => setDark(faceIsDark(video.current, oval.current)), LIGHT_EVERY_MS);
    return () => clearInterval(timer);
  }, [stream, submit.busy]);

  const take = async () => {
    if (faceIsDark(video.current, oval.current)) return submit.fail(t('selfie.tooDark'));
    submit.setBusy(true);
    submit.setError(null);
    let challenge: Challenge;
    try {
      challenge = await call<Challenge>('/session/challenge', {});
    } catch (error) {
      return submit.fail(friendly(t, error));
    }
    const camera = video.current!;
    const received = performance.now();
    // The person reads the gesture and gets ready before the first frame.
    setInstruction(wordsFor(t, 'gesture', challenge.gesture));
    for (let n = COUNTDOWN_S; n > 0; n--) {
      setCountdown(n);
      await wait(1000);
    }
    setCountdown(0);
    setRecording(true);
    const frames: string[] = [];
    const capturedMs: number[] = [];
    for (let i = 0; i < FRAMES; i++) {
      const canvas = toCanvas(camera, camera.videoWidth, camera.videoHeight, 960);
      capturedMs.push(Math.round(performance.now() - received));
      frames.push(canvas.toDataURL('image/jpeg', 0.9));
      await wait(FRAME_GAP_MS);
    }
    setInstruction('');
    setRecording(false);
    await submit.send({ frames, challenge_id: challenge.challenge_id, captured_ms: capturedMs });
  };

  return (
    <Step title={t('title.selfie')} error={noCamera ? t('selfie.noCamera') : submit.error}>
      {noCamera ? <ContinueOnPhone state={state} advance={advance} toPhone={toPhone} /> : null}
      <p class="hint">{t('selfie.hint')}</p>
      <Viewfinder stream={stream || null} video={video}>
        <div ref={oval} class="guide face" aria-hidden="true" />
        {countdown ? (
          <span class="countdown" data-countdown={countdown}>
            {countdown}
          </span>
        ) : null}
      </Viewfinder>
      {/* The live light hint, unless the error above already says it. */}
      <p class="instruction" role="status" aria-live="assertive" data-dark={dark && !instruction ? 'true' : undefined}>
        {instruction || (dark && submit.error !== t('selfie.tooDark') ? t('selfie.tooDark') : '')}
      </p>
      <Button disabled={noCamera || !stream || submit.busy} onClick={take}>
        {countdown ? t('selfie.getReady') : recording ? t('selfie.recording') : submit.label}
      </Button>
    </Step>
  );
}

function LocationStep({ state, advance }: { state: HostedState; advance: Advance }) {
  const t = useT();
  const submit = useStepSubmit('location', t('location.share'), advance);
  const [locating, setLocating] = useState(false);
  const share = () => {
    setLocating(true);
    const send = (body: unknown) => {
      setLocating(false);
      void submit.send(body);
    };
    navigator.geolocation.getCurrentPosition(
      (position) =>
        send({
          latitude: position.coords.latitude,
          longitude: position.coords.longitude,
          accuracy: position.coords.accuracy,
          source: 'gps',
          captured_at: new Date(position.timestamp).toISOString(),
        }),
      (error) =>
        send({
          source: 'permission_denied',
          error: error.code === 1 ? 'location permission denied' : 'location unavailable',
        }),
      { enableHighAccuracy: true, timeout: 20000, maximumAge: 0 },
    );
  };
  return (
    <Step title={t('title.location')} error={submit.error}>
      <p class="hint">{t(state.geofence ? 'location.hintGeofence' : 'location.hint')}</p>
      <Button disabled={locating || submit.busy} onClick={share}>
        {locating ? t('location.locating') : submit.label}
      </Button>
    </Step>
  );
}

const KNOWN_FIELDS = ['license_number', 'first_name', 'last_name', 'full_name'];

function LicenceStep({ advance }: { advance: Advance }) {
  const t = useT();
  const submit = useStepSubmit('licence', t('licence.check'), advance);
  const [states, setStates] = useState<LicenceState[]>([]);
  const [providers, setProviders] = useState<Provider[]>([]);
  const [form, setForm] = useState<Record<string, string>>({
    state: '',
    provider: '',
    first: '',
    last: '',
    number: '',
  });
  const [extra, setExtra] = useState<Record<string, string>>({});
  const set = (name: string) => (event: Event) =>
    setForm((current) => ({ ...current, [name]: (event.target as HTMLInputElement).value }));

  useEffect(() => {
    call<{ states: LicenceState[] }>('/credential/states').then(
      (answer) => setStates(answer.states),
      (error) => submit.setError(friendly(t, error)),
    );
  }, []);
  const chooseState = async (event: Event) => {
    const code = (event.target as HTMLSelectElement).value;
    setForm((current) => ({ ...current, state: code, provider: '' }));
    setProviders([]);
    if (code)
      setProviders((await call<{ providers: Provider[] }>('/credential/states/' + code + '/providers')).providers);
  };
  const chosen = providers.find((p) => p.provider_code === form.provider);
  const extraFields = chosen ? chosen.required_fields.filter((field) => !KNOWN_FIELDS.includes(field)) : [];
  const check = () => {
    const trimmed = (value: string | undefined) => (value ?? '').trim();
    if (!form.state || !form.provider || !trimmed(form.number) || !trimmed(form.first) || !trimmed(form.last))
      return submit.setError(t('licence.missing'));
    const body: Record<string, string> = {
      license_state: form.state!,
      provider_code: form.provider!,
      license_number: trimmed(form.number),
      first_name: trimmed(form.first),
      last_name: trimmed(form.last),
    };
    for (const field of extraFields) if (trimmed(extra[field])) body[field] = trimmed(extra[field]);
    void submit.send(body);
  };
  return (
    <Step title={t('title.licence')} error={submit.error}>
      <Field id="state" label={t('licence.state')}>
        <select id="state" value={form.state} onChange={chooseState}>
          <option value="">{t('licence.chooseState')}</option>
          {states.map((s) => (
            <option key={s.state_code} value={s.state_code}>
              {s.state_name}
            </option>
          ))}
        </select>
      </Field>
      <Field id="provider" label={t('licence.board')}>
        <select
          id="provider"
          value={form.provider}
          disabled={!form.state || !providers.length}
          onChange={set('provider')}
        >
          <option value="">{t(form.state ? 'licence.chooseBoard' : 'licence.chooseStateFirst')}</option>
          {providers.map((p) => (
            <option key={p.provider_code} value={p.provider_code}>
              {p.provider_display_name + ' (' + p.credential_name + ')'}
            </option>
          ))}
        </select>
      </Field>
      <Field id="first" label={t('licence.first')}>
        <input id="first" autocomplete="given-name" value={form.first} onInput={set('first')} />
      </Field>
      <Field id="last" label={t('licence.last')}>
        <input id="last" autocomplete="family-name" value={form.last} onInput={set('last')} />
      </Field>
      <Field id="number" label={t('licence.number')}>
        <input id="number" autocomplete="off" value={form.number} onInput={set('number')} />
      </Field>
      {extraFields.map((field) => (
        <Field key={field} id={'f-' + field} label={fieldLabel(field)}>
          <input
            id={'f-' + field}
            data-field={field}
            value={extra[field] ?? ''}
            onInput={(event) =>
              setExtra((current) => ({ ...current, [field]: (event.target as HTMLInputElement).value }))
            }
          />
        </Field>
      ))}
      <Button disabled={submit.busy} onClick={check}>
        {submit.label}
      </Button>
    </Step>
  );
}

/** How long the end screen stays before going back to the caller: longer when there is something to read and act on. */
const REDIRECT_AFTER_MS: Record<string, number> = { APPROVED: 1500 };
const REDIRECT_OTHERWISE_MS = 6000;

/** What a step's state is called: how it ended, else current or to do. */
function stepState(step: HostedState['steps'][number], current: boolean): StepOutcome | 'current' | 'todo' {
  return step.outcome ?? (current ? 'current' : step.done ? 'passed' : 'todo');
}

/**
 * The end: the outcome, each step as it really ended, and what happens next (with the project's support link after a
 * decline).
 */
function Finished({ state }: { state: HostedState }) {
  const t = useT();
  const project = state.project_name;
  useEffect(() => {
    const redirect = state.redirect_to;
    if (redirect) setTimeout(() => location.assign(redirect), REDIRECT_AFTER_MS[state.status] ?? REDIRECT_OTHERWISE_MS);
  }, []);
  const next =
    state.status === 'DECLINED' || state.status === 'IN_REVIEW' ? t(`end.next.${state.status}`, { project }) : null;
  return (
    <>
      <h1>{t('page.complete')}</h1>
      <p class="outcome">{wordsFor(t, 'outcome', state.status)}</p>
      {state.steps.length ? (
        <>
          <h2>{t('end.steps')}</h2>
          <ul class="step-results">
            {state.steps.map((s) => {
              const result = stepState(s, false);
              return (
                <li key={s.step} class={result} data-step={s.step}>
                  {t(`title.${s.step}`)}: {t(`progress.${result}`)}
                </li>
              );
            })}
          </ul>
        </>
      ) : null}
      {next ? <p>{next}</p> : null}
      {state.status === 'DECLINED' && state.support_url ? (
        <p>
          <a href={state.support_url} target="_blank" rel="noopener noreferrer">
            {t('end.support', { project })}
          </a>
        </p>
      ) : null}
      <p class="hint">{t(state.redirect_to ? 'page.takingBack' : 'page.canClose')}</p>
    </>
  );
}

/**
 * The progress bar: one item per step, coloured by how it ended, each named for assistive technology (the current one
 * is aria-current).
 */
function Progress({ state }: { state: HostedState }) {
  const t = useT();
  const current = state.finished ? -1 : state.steps.findIndex((s) => !s.done);
  return (
    <ol class="progress" id="progress" aria-label={t('page.progress')}>
      {state.steps.map((s, i) => {
        const result = stepState(s, current === i);
        const classes = [s.done || s.outcome ? 'done' : '', current === i ? 'current' : '', s.outcome ?? '']
          .filter(Boolean)
          .join(' ');
        return (
          <li
            key={s.step}
            class={classes}
            aria-current={current === i ? 'step' : undefined}
            title={t(`title.${s.step}`)}
          >
            <span class="visually-hidden">
              {t('progress.item', {
                n: i + 1,
                total: state.steps.length,
                title: t(`title.${s.step}`),
                state: t(`progress.${result}`),
              })}
            </span>
          </li>
        );
      })}
    </ol>
  );
}

const STEPS: Record<StepName, (props: StepProps) => preact.JSX.Element> = {
  document: DocumentStep,
  selfie: SelfieStep,
  location: LocationStep,
  licence: LicenceStep,
};

function CurrentStep({ state, advance, toPhone }: StepProps) {
  const t = useT();
  if (state.finished) return <Finished state={state} />;
  const next = state.steps.find((s) => !s.done);
  if (!next)
    return (
      <>
        <h1>{t('page.checking')}</h1>
        <p class="hint">{t('page.takesAMoment')}</p>
      </>
    );
  const View = STEPS[next.step];
  return <View key={next.step} state={state} advance={advance} toPhone={toPhone} />;
}

function LanguageSwitch({ language, onChange }: { language: Language; onChange: (language: Language) => void }) {
  const t = useT();
  return (
    <select
      class="language"
      aria-label={t('page.language')}
      value={language}
      onChange={(event) => onChange((event.target as HTMLSelectElement).value as Language)}
    >
      {LANGUAGES.map((code) => (
        <option key={code} value={code} lang={code}>
          {LANGUAGE_NAMES[code]}
        </option>
      ))}
    </select>
  );
}

/** What is kept, for how long and who sees it: from the project's retention (days after the decision). */
function keptWords(t: ReturnType<typeof useT>, days: number, project: string): string {
  if (days === 0) return t('start.keptNone', { project });
  return days === 1 ? t('start.keptOneDay', { project }) : t('start.kept', { project, days });
}

/** The first screen: for whom, what will be asked, how long it takes, what is kept, and the person's consent. */
function StartScreen({ state, onStart }: { state: HostedState; onStart: () => Promise<void> }) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const project = state.project_name;
  const start = () => {
    setBusy(true);
    void onStart().finally(() => setBusy(false));
  };
  const [logo, setLogo] = useState<string | null>(null);
  useEffect(() => {
    if (state.logo) void logoUrl().then(setLogo);
  }, []);
  return (
    <>
      {/* The logo's box is kept while it loads, so the text below does not jump. */}
      {state.logo ? (
        <div class="project-logo">{logo ? <img src={logo} alt={t('start.logo', { project })} /> : null}</div>
      ) : null}
      <h1>{t('start.title', { project })}</h1>
      <p>{t('start.intro')}</p>
      <ul>
        {state.steps.map((s) => (
          <li key={s.step}>{t(`start.step.${s.step}`)}</li>
        ))}
      </ul>
      <p>{t('start.duration', { n: Math.max(2, state.steps.length * 2) })}</p>
      <p class="hint" id="kept">
        {keptWords(t, state.retention_days ?? 30, project)}
      </p>
      <p class="hint">{t('start.shared', { project })}</p>
      <p class="hint">{t('start.consent', { project })}</p>
      {state.privacy_policy_url ? (
        <p class="hint">
          <a href={state.privacy_policy_url} target="_blank" rel="noopener noreferrer">
            {t('start.privacy', { project })}
          </a>
        </p>
      ) : null}
      <Button disabled={busy} onClick={start}>
        {t('start.button')}
      </Button>
    </>
  );
}

/** The errors a tester may ask a test session's page to answer with, to see how the page shows them. */
const TEST_ERRORS = ['session_expired', 'session_closed', 'rate_limited', 'invalid_token'] as const;

/**
 * Test mode: a test session (made with a vk_test_ key) says so on every screen, and while it is
 * open lets the tester pick its outcome instead of running the models (POST /session/test-outcome,
 * decided through the same state table as Verity-Test-Outcome), or answer with a chosen error.
 * Doing the steps runs the real checks.
 */
function TestOutcomePicker({ onPicked, onFailed }: { onPicked: Advance; onFailed: (error: ApiError) => boolean }) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [errorCode, setErrorCode] = useState<string>(TEST_ERRORS[0]);
  const pick = async (outcome: string) => {
    setBusy(true);
    setFailure(null);
    try {
      onPicked(await call<HostedState>('/session/test-outcome', { outcome }));
    } catch (error) {
      // The page shows a picked error as it would show it for real: an ended link its own page, others here.
      if (!onFailed(error as ApiError)) setFailure(friendly(t, error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <fieldset class="test-picker">
      <legend>{t('test.picker')}</legend>
      <div class="row">
        <Button variant="secondary" disabled={busy} onClick={() => pick('approve')}>
          {t('test.approve')}
        </Button>
        <Button variant="secondary" disabled={busy} onClick={() => pick('decline')}>
          {t('test.decline')}
        </Button>
        <Button variant="secondary" disabled={busy} onClick={() => pick('review')}>
          {t('test.review')}
        </Button>
      </div>
      <div class="test-error">
        <label for="test-error">{t('test.error')}</label>
        <select
          id="test-error"
          value={errorCode}
          onChange={(event) => setErrorCode((event.target as HTMLSelectElement).value)}
        >
          {TEST_ERRORS.map((code) => (
            <option key={code} value={code}>
              {code}
            </option>
          ))}
        </select>
        <Button variant="secondary" disabled={busy} onClick={() => pick(errorCode)}>
          {t('test.answerError')}
        </Button>
      </div>
      {failure ? <Message kind="error">{failure}</Message> : null}
    </fieldset>
  );
}

function TestBanner() {
  const t = useT();
  return (
    <div class="test-banner" role="note">
      <strong>{t('test.banner')}</strong> <span>{t('test.hint')}</span>
    </div>
  );
}

/** Why a link opens no flow: each has its own page, with no progress bar. */
type Ended = 'expired' | 'abandoned' | 'closed' | 'handoff';

/**
 * A link opened after its session ended (or refused for that reason), told apart from a flow just finished on this
 * page.
 */
function endedOnOpen(state: HostedState): Ended | null {
  if (!state.finished) return null;
  return state.status === 'EXPIRED' ? 'expired' : state.status === 'ABANDONED' ? 'abandoned' : 'closed';
}
const ENDED_BY_ERROR: Record<string, Ended> = { session_expired: 'expired', session_closed: 'closed' };

function EndedPage({ ended }: { ended: Ended }) {
  const t = useT();
  return (
    <>
      <h1>{t(`ended.${ended}.title`)}</h1>
      <p>{t(`ended.${ended}.body`)}</p>
    </>
  );
}

export function App() {
  const [language, setLanguage] = useState<Language>(initialLanguage);
  const t = translator(language);
  const [state, setState] = useState<HostedState | null>(null);
  const [ended, setEnded] = useState<Ended | null>(null);
  const [openError, setOpenError] = useState<unknown>(null);
  const [onPhone, setOnPhone] = useState(false);
  const failedToOpen = (error: { code?: string }) => {
    if (error?.code && ENDED_BY_ERROR[error.code]) setEnded(ENDED_BY_ERROR[error.code]!);
    else setOpenError(error ?? {});
  };
  /** An error that ends the page (an ended link, a bad token) takes it over; true when it did. */
  const endedBy = (error: ApiError): boolean => {
    if (
      !error?.code ||
      !(error.code in ENDED_BY_ERROR || error.code === 'invalid_token' || error.code === 'token_missing')
    )
      return false;
    failedToOpen(error);
    return true;
  };
  const testing = state?.livemode === false;
  // Reading the session moves nothing: a session not started yet waits for the person's consent.
  // A continue-on-phone link is spent first (a used or expired one has its own page).
  useEffect(() => {
    claimHandoffLink().then(
      () =>
        call<HostedState>('/session').then((opened) => {
          setEnded(endedOnOpen(opened));
          setState(opened);
        }, failedToOpen),
      () => setEnded('handoff'),
    );
  }, []);
  const begin = () => call<HostedState>('/session/start', {}).then(setState, failedToOpen);
  const switchTo = (next: Language) => {
    rememberLanguage(next);
    setLanguage(next);
  };
  return (
    <I18n.Provider value={t}>
      <main class="page">
        <header class="brand">
          ◉ Verity
          <LanguageSwitch language={language} onChange={switchTo} />
        </header>
        {testing ? <TestBanner /> : null}
        {state && !ended && state.status !== 'NOT_STARTED' ? <Progress state={state} /> : null}
        {testing && state && !state.finished && !ended && !openError ? (
          <TestOutcomePicker onPicked={setState} onFailed={endedBy} />
        ) : null}
        <Card id="step" aria-live="polite" data-status={state?.finished ? state.status : undefined}>
          {ended ? (
            <EndedPage ended={ended} />
          ) : openError ? (
            <>
              <h1>{t('page.cannotOpen')}</h1>
              <Message kind="error">{friendly(t, openError)}</Message>
            </>
          ) : state?.status === 'NOT_STARTED' ? (
            <StartScreen state={state} onStart={begin} />
          ) : state ? (
            onPhone && !state.finished ? (
              <FollowingPhone state={state} advance={setState} />
            ) : (
              <CurrentStep state={state} advance={setState} toPhone={() => setOnPhone(true)} />
            )
          ) : (
            <h1>{t('page.loading')}</h1>
          )}
        </Card>
      </main>
    </I18n.Provider>
  );
}
