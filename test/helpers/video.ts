import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// Frames of the real video in the shared data (../shared/data/video-live, read in place), cut
// with Debian's ffmpeg. Its LABELS.csv gives the shots: C (3.58-7.88 s) is one continuous medium
// shot of one person facing the camera; D starts with a cut at 7.88 s.

const run = promisify(execFile);
export const VIDEO = fileURLToPath(new URL('../../../shared/data/video-live/short_hamilton_clip.mp4', import.meta.url));
export const ffmpegAvailable = ['/usr/bin/ffmpeg', '/usr/local/bin/ffmpeg'].some((p) => existsSync(p));
export const videoAvailable = ffmpegAvailable && existsSync(VIDEO);

/** A crop of the video's 640x360 frame (the same for every frame, as a camera held still would see). */
export interface Crop {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** `count` JPEG frames from `start` seconds, `stepMs` apart, cropped. */
export async function videoFrames(start: number, count: number, stepMs: number, crop: Crop): Promise<Buffer[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'verity-video-'));
  try {
    await run('ffmpeg', [
      '-loglevel',
      'error',
      '-ss',
      String(start),
      '-i',
      VIDEO,
      '-vf',
      `fps=${1000 / stepMs},crop=${crop.width}:${crop.height}:${crop.x}:${crop.y}`,
      '-frames:v',
      String(count),
      '-q:v',
      '2',
      path.join(dir, 'f%02d.jpg'),
    ]);
    const files = (await readdir(dir)).sort();
    return Promise.all(files.map((f) => readFile(path.join(dir, f))));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * `seconds` of the video from `start`, cropped and scaled to `size`, played forward then
 * backward, as a .y4m file for Chromium's fake camera. Chromium loops the file; played back and
 * forth the loop has no cut, so any stretch of it is one continuous capture. A little temporal
 * noise, as a camera sensor adds, keeps a frame played twice from being the same image.
 */
export async function pingPongY4m(
  file: string,
  start: number,
  seconds: number,
  crop: Crop,
  size: { width: number; height: number },
  look: { gamma?: number; gain?: number } = {},
): Promise<void> {
  // Gamma 1.3 by default: the stage is dark (mean luma about 33 of 255), and a phone camera's
  // auto-exposure would brighten it about this much. `gamma: 1` keeps the dark stage as filmed
  // (the page judges the light on the face, which is lit); `gain` below 1 dims the whole picture
  // (a dark room).
  const { gamma = 1.3, gain = 1 } = look;
  const dim = gain === 1 ? '' : `,colorlevels=romax=${gain}:gomax=${gain}:bomax=${gain}`;
  const filter = `[0:v]crop=${crop.width}:${crop.height}:${crop.x}:${crop.y},scale=${size.width}:${size.height},eq=gamma=${gamma}${dim},fps=15,split[a][b];[b]reverse[r];[a][r]concat=n=2:v=1:a=0,noise=alls=3:allf=t,format=yuv420p`;
  await run('ffmpeg', [
    '-loglevel',
    'error',
    '-y',
    '-ss',
    String(start),
    '-t',
    String(seconds),
    '-i',
    VIDEO,
    '-filter_complex',
    filter,
    '-an',
    file,
  ]);
}

/**
 * The frames of a .y4m-like ping-pong clip as JPEGs (what a camera would hand the page), `stepMs` apart from
 * `offsetMs`.
 */
export async function pingPongFrames(
  start: number,
  seconds: number,
  crop: Crop,
  size: { width: number; height: number },
  offsetMs: number,
  count: number,
  stepMs: number,
): Promise<Buffer[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'verity-video-'));
  try {
    const clip = path.join(dir, 'clip.y4m');
    await pingPongY4m(clip, start, seconds, crop, size);
    const period = 2 * seconds;
    const frames: Buffer[] = [];
    for (let i = 0; i < count; i++) {
      const at = ((offsetMs + i * stepMs) / 1000) % period;
      const out = path.join(dir, `f${i}.jpg`);
      await run('ffmpeg', [
        '-loglevel',
        'error',
        '-y',
        '-ss',
        at.toFixed(3),
        '-i',
        clip,
        '-frames:v',
        '1',
        '-q:v',
        '2',
        out,
      ]);
      frames.push(await readFile(out));
    }
    return frames;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A phone's camera for a whole walk: `scene` (a still, such as a document lying on a table) for
 * `sceneSeconds`, then the ping-pong clip of pingPongY4m `repeats` times, all at `size`. Chromium's
 * fake camera starts the file again for every new capture: the document step sees the scene, and
 * the selfie step (a capture of its own) the scene first, then the face from `sceneSeconds` on.
 */
export async function sceneThenPingPongY4m(
  file: string,
  scene: string,
  sceneSeconds: number,
  start: number,
  seconds: number,
  crop: Crop,
  size: { width: number; height: number },
  repeats: number,
): Promise<void> {
  const loopFrames = Math.round(2 * seconds * 15);
  const filter = [
    `[0:v]scale=${size.width}:${size.height}:force_original_aspect_ratio=decrease,pad=${size.width}:${size.height}:(ow-iw)/2:(oh-ih)/2:color=0x1c1e22,fps=15,format=yuv420p,setsar=1[s]`,
    `[1:v]crop=${crop.width}:${crop.height}:${crop.x}:${crop.y},scale=${size.width}:${size.height},eq=gamma=1.3,fps=15,split[a][b];[b]reverse[r];[a][r]concat=n=2:v=1:a=0,loop=loop=${repeats - 1}:size=${loopFrames}:start=0,noise=alls=3:allf=t,format=yuv420p,setsar=1[f]`,
    '[s][f]concat=n=2:v=1:a=0[out]',
  ].join(';');
  await run('ffmpeg', [
    '-loglevel',
    'error',
    '-y',
    '-loop',
    '1',
    '-framerate',
    '15',
    '-t',
    String(sceneSeconds),
    '-i',
    scene,
    '-ss',
    String(start),
    '-t',
    String(seconds),
    '-i',
    VIDEO,
    '-filter_complex',
    filter,
    '-map',
    '[out]',
    '-an',
    file,
  ]);
}
