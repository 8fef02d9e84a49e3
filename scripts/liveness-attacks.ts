// Single-image presentation attacks made in memory from a photo of a person: what an attacker who
// has the photo shows to the camera. Nothing is written to disk or committed. Each function takes
// the photo's bytes and a seed (so every run makes the same attack) and returns a JPEG "taken by
// the camera" of the attack.
import sharp from 'sharp';

export const ATTACK_KINDS = ['screen_replay', 'printed_photo', 'screen_closeup', 'print_closeup'] as const;
export type AttackKind = (typeof ATTACK_KINDS)[number];

const CAMERA = { width: 640, height: 480 };

/** Deterministic numbers in 0..1. */
function random(seed: number): () => number {
  let state = (seed * 2654435761) % 2147483647 || 1;
  return () => {
    state = (state * 48271) % 2147483647;
    return state / 2147483647;
  };
}

/** A plain room behind the attack: a soft gradient with some texture, different per seed. */
async function room(seed: number): Promise<Buffer> {
  const r = random(seed);
  const base = [80 + 100 * r(), 70 + 100 * r(), 60 + 100 * r()];
  const data = Buffer.alloc(CAMERA.width * CAMERA.height * 3);
  for (let y = 0; y < CAMERA.height; y++) {
    for (let x = 0; x < CAMERA.width; x++) {
      const shade = 0.75 + 0.35 * (y / CAMERA.height) + 0.05 * Math.sin(x / 23 + seed) * Math.cos(y / 31);
      for (let c = 0; c < 3; c++)
        data[(y * CAMERA.width + x) * 3 + c] = Math.max(0, Math.min(255, base[c]! * shade + 6 * (r() - 0.5)));
    }
  }
  return sharp(data, { raw: { ...CAMERA, channels: 3 } })
    .png()
    .toBuffer();
}

/** The last step of every attack: the camera photographs the scene (a little blur, sensor noise, JPEG). */
async function photograph(scene: Buffer, seed: number, blur = 0.6): Promise<Buffer> {
  const r = random(seed + 17);
  const { data, info } = await sharp(scene)
    .resize(CAMERA.width, CAMERA.height, { fit: 'cover' })
    .blur(blur)
    .raw()
    .toBuffer({ resolveWithObject: true });
  for (let i = 0; i < data.length; i++) data[i] = Math.max(0, Math.min(255, data[i]! + 8 * (r() - 0.5)));
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels as 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** An emissive screen showing `photo`: RGB sub-pixel stripes, a cool tint, lifted blacks, glare. */
async function screenImage(photo: Buffer, width: number, height: number, seed: number, pitch: number): Promise<Buffer> {
  const { data } = await sharp(photo)
    .rotate()
    .resize(width, height, { fit: 'cover', position: 'top' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const r = random(seed);
  const glare = {
    x: width * (0.2 + 0.6 * r()),
    y: height * (0.2 + 0.5 * r()),
    radius: Math.min(width, height) * (0.25 + 0.2 * r()),
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      const stripe = Math.floor(x / pitch) % 3; // which sub-pixel this column is
      const row = y % (pitch * 3) === 0 ? 0.7 : 1; // dark gaps between pixel rows
      const d = Math.hypot(x - glare.x, y - glare.y) / glare.radius;
      const shine = d < 1 ? 120 * (1 - d) ** 2 : 0;
      for (let c = 0; c < 3; c++) {
        const lit = (c === stripe ? 1.1 : 0.8) * row;
        const tint = [0.92, 0.98, 1.1][c]!;
        data[o + c] = Math.max(0, Math.min(255, 20 + 0.85 * data[o + c]! * lit * tint + shine));
      }
    }
  }
  return sharp(data, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** A tablet showing the photo, held up in a room: a black bezel around the screen, a slight turn. */
export async function screenReplay(photo: Buffer, seed: number): Promise<Buffer> {
  const r = random(seed);
  const screen = await screenImage(photo, 300, 400, seed, 2);
  const device = await sharp({ create: { width: 340, height: 450, channels: 3, background: { r: 12, g: 12, b: 14 } } })
    .composite([{ input: screen, left: 20, top: 25 }])
    .png()
    .toBuffer();
  const turned = await sharp(device)
    .rotate(8 * (r() - 0.5), { background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .resize({ height: 430 })
    .png()
    .toBuffer();
  const meta = await sharp(turned).metadata();
  const scene = await sharp(await room(seed))
    .composite([
      {
        input: turned,
        left: Math.round((CAMERA.width - meta.width!) / 2 + 60 * (r() - 0.5)),
        top: Math.round((CAMERA.height - meta.height!) / 2),
      },
    ])
    .png()
    .toBuffer();
  return photograph(scene, seed);
}

/**
 * The same screen held so close that the bezel is out of the picture: only the screen's texture and light give it away.
 */
export async function screenCloseup(photo: Buffer, seed: number): Promise<Buffer> {
  return photograph(await screenImage(photo, CAMERA.width, CAMERA.height, seed, 3), seed, 0.8);
}

/** The photo as printed: muted ink in halftone dots on grainy paper. */
async function printImage(photo: Buffer, width: number, height: number, seed: number): Promise<Buffer> {
  const r = random(seed);
  const { data } = await sharp(photo)
    .rotate()
    .resize(width, height, { fit: 'cover', position: 'top' })
    .removeAlpha()
    .modulate({ saturation: 0.8 })
    .raw()
    .toBuffer({ resolveWithObject: true });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      const dot = 0.9 + 0.1 * Math.cos((x + y) * 1.3) * Math.cos((x - y) * 1.3); // halftone rosette
      const grain = 10 * (r() - 0.5);
      for (let c = 0; c < 3; c++) data[o + c] = Math.max(0, Math.min(255, 30 + 0.8 * data[o + c]! * dot + grain));
    }
  }
  return sharp(data, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** A printed photo with its white border, on a table, a little turned. */
export async function printedPhoto(photo: Buffer, seed: number): Promise<Buffer> {
  const r = random(seed);
  const print = await sharp(await printImage(photo, 300, 380, seed))
    .extend({ top: 18, bottom: 18, left: 18, right: 18, background: { r: 238, g: 236, b: 228 } })
    .png()
    .toBuffer();
  const turned = await sharp(print)
    .rotate(14 * (r() - 0.5), { background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .resize({ height: 420 })
    .png()
    .toBuffer();
  const meta = await sharp(turned).metadata();
  const scene = await sharp(await room(seed + 5))
    .composite([
      {
        input: turned,
        left: Math.round((CAMERA.width - meta.width!) / 2 + 80 * (r() - 0.5)),
        top: Math.round((CAMERA.height - meta.height!) / 2),
      },
    ])
    .png()
    .toBuffer();
  return photograph(scene, seed);
}

/** The print held so close that its edges are out of the picture: only paper and ink give it away. */
export async function printCloseup(photo: Buffer, seed: number): Promise<Buffer> {
  return photograph(await printImage(photo, CAMERA.width, CAMERA.height, seed), seed, 0.8);
}

export const ATTACKS: Record<AttackKind, (photo: Buffer, seed: number) => Promise<Buffer>> = {
  screen_replay: screenReplay,
  printed_photo: printedPhoto,
  screen_closeup: screenCloseup,
  print_closeup: printCloseup,
};
