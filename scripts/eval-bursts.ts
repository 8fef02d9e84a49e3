// Anti-spoof bursts evaluated with the real models through the check's own code (prepare and
// run, as POST /api/v2/antispoof does): live bursts cut from the shared video, and attacks built
// in memory from the shared photos (scripts/burst-attacks.ts). Prints every burst's verdict and
// the rules that failed, then the share of live bursts passed and of each attack kind caught.
// Run: npm run eval:bursts (part of npm run eval:liveness). VERITY_EVAL_QUICK=1 takes fewer bursts.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AccountService } from '../src/core/accounts/service.js';
import { prepareAntispoof, runAntispoof } from '../src/core/checks/antispoof.js';
import type { ChallengeService } from '../src/core/checks/challenge.js';
import type { CheckContext } from '../src/core/checks/types.js';
import { modelFaceEngine } from '../src/core/face-engine.js';
import type { Gesture } from '../src/core/faces/burst.js';
import { lazyModels } from '../src/core/models.js';
import { pingPongFrames, videoAvailable, videoFrames } from '../test/helpers/video.js';
import { differentPhotos, handMoves, movedPhoto } from './burst-attacks.js';
import { screenReplay } from './liveness-attacks.js';

const DATA = process.env.VERITY_EVAL_DATA ?? fileURLToPath(new URL('../../shared/data/', import.meta.url));
if (!videoAvailable || !existsSync(`${DATA}face_recognition-obama-biden/LABELS.csv`)) {
  console.log(`no shared video or photos at ${DATA} (or no ffmpeg); nothing to do`);
  process.exit(0);
}
const QUICK = Boolean(process.env.VERITY_EVAL_QUICK);

const engine = modelFaceEngine(lazyModels());
const context: CheckContext = { projectId: 'eval', livemode: true, mode: 'fresh', svcId: null, today: new Date() };
let asked: Gesture | null = null;
// The challenge as the route would have it: issued just now, asking `asked`.
const challenges = {
  open: async (_project: string, id: string) => ({ id, gesture: asked!, createdAt: new Date() }),
  consume: async () => undefined,
  now: () => new Date(),
} as unknown as ChallengeService;
const accounts = {} as AccountService;

type Kind = 'live' | 'different_photos' | 'moved_photo' | 'wrong_gesture' | 'screen_video';
const results: { kind: Kind; name: string; live: boolean; passed: boolean; reasons: string }[] = [];

async function judge(kind: Kind, name: string, frames: Buffer[], gesture: Gesture | null = null): Promise<void> {
  asked = gesture;
  const started = performance.now();
  let line: string;
  try {
    const prepared = await prepareAntispoof({ frames, ...(gesture ? { challengeId: 'chl_eval' } : {}) }, context, {
      challenges,
      accounts,
    });
    const { check } = await runAntispoof(engine, prepared, context, challenges);
    const data = check.data as {
      result: string;
      burst: { evidence: { name: string; passed: boolean }[] };
      passive: { evidence: { name: string; passed: boolean }[] };
    };
    const failed = [...data.burst.evidence, ...data.passive.evidence]
      .filter((e) => !e.passed && e.name !== 'blink' && e.name !== 'smile')
      .map((e) => e.name);
    const reasons = [
      check.error ? check.error.replace(/:.*?(;|$)/g, '$1') : '',
      failed.length ? `[${failed.join(', ')}]` : '',
    ]
      .join(' ')
      .trim();
    results.push({ kind, name, live: data.result === 'live', passed: check.status === 'passed', reasons });
    line = `${check.status.padEnd(6)} ${data.result.padEnd(5)} ${reasons}`;
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'error';
    results.push({ kind, name, live: false, passed: false, reasons: code });
    line = `refused ${code}: ${(error as Error).message}`;
  }
  console.log(
    `${kind.padEnd(16)} ${name.padEnd(58)} ${String(Math.round(performance.now() - started)).padStart(6)} ms  ${line}`,
  );
}

const HEAD = { x: 60, y: 0, width: 480, height: 360 };
const SIZE = { width: 640, height: 480 };

// Live: one shot of the video, six consecutive frames 100 to 400 ms apart (the hosted page takes
// them 400 ms apart), and the looped clip the browser test plays, sampled as the page would.
const starts = QUICK ? [4.0, 6.0] : [3.7, 4.2, 4.7, 5.2, 5.7, 6.2, 6.7, 7.2];
for (const start of starts) {
  for (const step of [100, 200, 400].filter((ms) => start + (5 * ms) / 1000 <= 7.6)) {
    // within the shot: C ends with a cut at 7.88 s
    await judge(
      'live',
      `video shot C ${start.toFixed(1)} s, 6 frames ${step} ms apart`,
      await videoFrames(start, 6, step, HEAD),
    );
  }
}
// He turns his head to his right from 6.1 s and from 3.7 s: six frames over 1.2 s, as the page
// takes them when asked to turn right; and the looped clip the browser test plays, from the
// start of the turn, as the page takes it when the button is pressed.
const turns = QUICK ? [6.1] : [6.1, 3.7];
for (const start of turns) {
  const frames = await videoFrames(start, 6, 240, HEAD);
  await judge('live', `video shot C ${start} s turning right, asked turn_right`, frames, 'turn_right');
  // The same capture replayed to answer another challenge.
  for (const other of (['turn_left', 'look_up', 'blink', 'smile'] as const).slice(0, QUICK ? 1 : 4)) {
    await judge('wrong_gesture', `video shot C ${start} s turning right, asked ${other}`, frames, other);
  }
}
for (const offset of QUICK ? [0] : [0, 100, 200]) {
  await judge(
    'live',
    `looped clip (browser camera) from ${offset} ms, asked turn_right`,
    await pingPongFrames(6.1, 1.2, HEAD, SIZE, offset, 6, 400),
    'turn_right',
  );
}

// The live bursts played on a tablet held up to the camera (one device, one place: every frame
// is the same scene, only the video on the screen moves).
for (const start of QUICK ? [4.7] : [3.7, 4.7, 5.7, 6.7]) {
  const frames = await videoFrames(start, 6, 100, HEAD);
  await judge(
    'screen_video',
    `video shot C ${start.toFixed(1)} s on a tablet`,
    await Promise.all(frames.map((frame) => screenReplay(frame, 7))),
  );
}

// Attacks from photos.
function labels(set: string): { file: string; identity: string }[] {
  return readFileSync(`${DATA}${set}/LABELS.csv`, 'utf8')
    .trim()
    .split(/\r?\n/)
    .slice(1)
    .map((line) => /^([^,]+),"?([^",]+)/.exec(line)!)
    .map((m) => ({ file: m[1]!, identity: m[2]!.split(' ')[0]! }))
    .filter((row) => !/MULTIPLE|UNKNOWN|UNLABELED|NO_FACE|same/.test(row.identity));
}
const people = new Map<string, string[]>();
for (const set of ['face_recognition-obama-biden', 'faceapi-bbt-identities']) {
  for (const { file, identity } of labels(set))
    people.set(`${set}/${identity}`, [...(people.get(`${set}/${identity}`) ?? []), `${set}/${file}`]);
}
const perPerson = QUICK ? 1 : 3;
for (const [person, files] of people) {
  if (files.length < 3) continue;
  const bursts = await differentPhotos(
    files.map((f) => readFileSync(`${DATA}${f}`)),
    3,
    perPerson,
  );
  for (const [i, burst] of bursts.entries())
    await judge('different_photos', `${person} #${i + 1} (3 photos at one size)`, burst);
}
const rooms = readdirSync(`${DATA}no-face-negatives`).filter(
  (f) => /landscape|object|text/i.test(f) && /\.(jpe?g|png)$/i.test(f),
);
let seed = 0;
for (const [person, files] of people) {
  for (const file of files.slice(0, QUICK ? 1 : 2)) {
    const room = rooms[seed % rooms.length]!;
    await judge(
      'moved_photo',
      `${file} held up in ${room}`,
      await movedPhoto(
        readFileSync(`${DATA}${file}`),
        readFileSync(`${DATA}no-face-negatives/${room}`),
        handMoves(4, ++seed),
      ),
    );
  }
}

console.log('\nsummary (live: share passed; attacks: share caught, i.e. not passed)');
for (const kind of ['live', 'different_photos', 'moved_photo', 'wrong_gesture', 'screen_video'] as Kind[]) {
  const of = results.filter((r) => r.kind === kind);
  const good = kind === 'live' ? of.filter((r) => r.passed).length : of.filter((r) => !r.passed).length;
  console.log(`  ${kind.padEnd(16)} ${good}/${of.length} ${kind === 'live' ? 'passed' : 'caught'}`);
}
process.exit(0);
