// Burst attacks built from the shared face photos and the shared video, in memory: what an attacker
// who has a person's photos, or a video of them, sends as an anti-spoof burst. Nothing here is
// written to disk, and no attack is ever committed as an image of a person.
import sharp from 'sharp';

/** The frame size an attacker gives every frame: a phone camera held upright. */
export const FRAME = { width: 480, height: 640 };

/** A photo at the burst's frame size (cover, anchored at the top where the heads are), re-encoded as a camera frame. */
export function asFrame(photo: Buffer): Promise<Buffer> {
  return sharp(photo)
    .rotate()
    .resize(FRAME.width, FRAME.height, { fit: 'cover', position: 'top' })
    .jpeg({ quality: 90 })
    .toBuffer();
}

/**
 * Different photos of one person, resized to one size: one burst per ordered choice of `count` photos (at most
 * `limit`).
 */
export async function differentPhotos(photos: Buffer[], count: number, limit: number): Promise<Buffer[][]> {
  const frames = await Promise.all(photos.map(asFrame));
  const bursts: number[][] = [];
  const choose = (chosen: number[]) => {
    if (bursts.length >= limit) return;
    if (chosen.length === count) return void bursts.push(chosen);
    for (let i = 0; i < frames.length; i++) if (!chosen.includes(i)) choose([...chosen, i]);
  };
  choose([]);
  return bursts.map((burst) => burst.map((i) => frames[i]!));
}

export interface Placement {
  dx: number;
  dy: number;
  scale: number;
  angle: number;
}

/** The placements of a photo held up to a camera and moved: shifted, scaled and turned in the image plane. */
export function handMoves(frames: number, seed: number): Placement[] {
  let state = seed * 7919 + 1;
  // deterministic, -1..1
  const next = () => {
    state = (state * 48271) % 2147483647;
    return (state / 2147483647) * 2 - 1;
  };
  return Array.from({ length: frames }, (_, i) =>
    i === 0
      ? { dx: 0, dy: 0, scale: 1, angle: 0 }
      : { dx: 25 * next(), dy: 20 * next(), scale: 1 + 0.08 * next(), angle: 5 * next() },
  );
}

/** One photo held in front of a camera in a room (a fixed backdrop), moved by `moves`. */
export async function movedPhoto(photo: Buffer, backdrop: Buffer, moves: Placement[]): Promise<Buffer[]> {
  const room = await sharp(backdrop).rotate().resize(FRAME.width, FRAME.height, { fit: 'cover' }).toBuffer();
  const base = Math.round(FRAME.width * 0.6);
  return Promise.all(
    moves.map(async (move) => {
      const held = await sharp(photo)
        .rotate()
        .resize({
          width: Math.round(base * move.scale),
          height: Math.round(FRAME.height * 0.7 * move.scale),
          fit: 'inside',
        })
        .rotate(move.angle, { background: { r: 0, g: 0, b: 0, alpha: 0 } })
        .png()
        .toBuffer();
      const meta = await sharp(held).metadata();
      const left = Math.round((FRAME.width - meta.width!) / 2 + move.dx);
      const top = Math.round((FRAME.height - meta.height!) / 2 + move.dy);
      return sharp(room)
        .composite([{ input: held, left: Math.max(0, left), top: Math.max(0, top) }])
        .jpeg({ quality: 90 })
        .toBuffer();
    }),
  );
}
