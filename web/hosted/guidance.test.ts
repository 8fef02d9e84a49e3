import { describe, expect, it } from 'vitest';
import {
  cardBox,
  crop,
  documentInFrame,
  faceLight,
  faceTooDark,
  frameInPicture,
  type Gray,
  glareFraction,
  hintFor,
  LIMITS,
  meanLuminance,
  motion,
  nextStreak,
  READY_FRAMES,
  sharpness,
  toGray,
} from './guidance.js';

// The document camera's hints on synthetic frames: a light card with dark text lines on a dark table.

const W = 80;
const H = 60;
interface Scene {
  background?: number;
  card?: { x0: number; y0: number; x1: number; y1: number } | null;
  cardValue?: number;
  text?: boolean;
  glare?: number;
  shift?: number;
}
function frame({
  background = 30,
  card = { x0: 0.1, y0: 0.15, x1: 0.9, y1: 0.85 },
  cardValue = 200,
  text = true,
  glare = 0,
  shift = 0,
}: Scene = {}): Gray {
  const data = new Uint8Array(W * H).fill(background);
  if (card)
    for (let y = Math.round(card.y0 * H); y < Math.round(card.y1 * H); y++)
      for (let x = Math.round(card.x0 * W); x < Math.round(card.x1 * W); x++) {
        // Text: dark strokes every few pixels, moved by `shift` to make a second, moved frame.
        const stroke = text && y % 4 === 0 && (x + shift) % 3 !== 0;
        data[y * W + x] = stroke ? 40 : cardValue;
      }
  for (let i = 0; i < Math.round(glare * W * H); i++) data[(W * H) / 2 - W / 2 + (i % W) + Math.floor(i / W) * W] = 255;
  return { width: W, height: H, data };
}

/** A 3x3 box blur, as an out-of-focus lens would soften the text and the card's edges. */
function blur(f: Gray): Gray {
  const data = new Uint8Array(f.data);
  for (let y = 1; y < H - 1; y++)
    for (let x = 1; x < W - 1; x++) {
      let sum = 0;
      for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) sum += f.data[(y + dy) * W + x + dx]!;
      data[y * W + x] = Math.round(sum / 9);
    }
  return { width: W, height: H, data };
}

describe('document camera hints', () => {
  it('a sharp card inside the frame, held still, is ready', () => {
    expect(hintFor(frame(), frame())).toBeNull();
    expect(hintFor(frame(), null)).toBeNull();
  });

  it('too dark when the mean luminance is low', () => {
    const dim = frame({ background: 5, cardValue: 50 });
    expect(meanLuminance(dim)).toBeLessThan(LIMITS.dark);
    expect(hintFor(dim, null)).toBe('too_dark');
  });

  it('glare when burnt-out pixels pass their share', () => {
    const shiny = frame({ glare: 0.05 });
    expect(glareFraction(shiny)).toBeCloseTo(0.05, 2);
    expect(hintFor(shiny, null)).toBe('glare');
    expect(glareFraction(frame())).toBe(0);
  });

  it('too far when the card covers a small part of the frame, and when there is no card', () => {
    const far = frame({ card: { x0: 0.35, y0: 0.35, x1: 0.65, y1: 0.65 } });
    expect(hintFor(far, null)).toBe('too_far');
    expect(hintFor(frame({ card: null, background: 80 }), null)).toBe('too_far');
  });

  it('too close when the card runs off an edge', () => {
    expect(hintFor(frame({ card: { x0: 0, y0: 0.1, x1: 0.9, y1: 0.9 } }), null)).toBe('too_close');
  });

  it('the card box is found in shares of the frame', () => {
    const box = cardBox(frame())!;
    expect(box.x0).toBeCloseTo(0.1, 1);
    expect(box.y0).toBeCloseTo(0.15, 1);
    expect(box.x1).toBeCloseTo(0.9, 1);
    expect(box.y1).toBeCloseTo(0.85, 1);
  });

  it('hold still when the card is blurred (no text edges) or moved since the last frame', () => {
    const blurred = blur(blur(blur(frame())));
    expect(sharpness(blurred)).toBeLessThan(sharpness(frame()));
    expect(hintFor(blurred, null)).toBe('hold_still');
    const moved = frame({ shift: 1 });
    expect(motion(frame(), moved)).toBeGreaterThan(LIMITS.motion);
    expect(hintFor(moved, frame())).toBe('hold_still');
  });

  // The overlay's frame in the middle of the picture, as the page draws it: the card must fill it.
  const GUIDE = { x0: 0.2, y0: 0.2, x1: 0.8, y1: 0.8 };

  it('a card filling the overlay frame is ready; its edges are found at the frame borders', () => {
    const fits = frame({ card: { x0: 0.22, y0: 0.22, x1: 0.78, y1: 0.8 } });
    expect(hintFor(fits, fits, GUIDE)).toBeNull();
    const doc = documentInFrame(fits, GUIDE)!;
    expect(doc.x0).toBeCloseTo(0.03, 1);
    expect(doc.y1).toBeCloseTo(1, 1);
  });

  it('a card ready on the whole picture is too far when it fills a small part of the frame', () => {
    // Half the frame's width, in its middle: fine for the old whole-picture test, not for the frame.
    const small = frame({ card: { x0: 0.35, y0: 0.35, x1: 0.65, y1: 0.65 } });
    expect(hintFor(small, null, { x0: 0.3, y0: 0.3, x1: 0.7, y1: 0.7 })).toBeNull();
    expect(hintFor(small, null, GUIDE)).toBe('too_far');
    // As wide as the frame but a third short of its height.
    expect(hintFor(frame({ card: { x0: 0.22, y0: 0.4, x1: 0.78, y1: 0.78 } }), null, GUIDE)).toBe('too_far');
  });

  it('a card sticking out of the frame, or cut off by the picture, is too close', () => {
    // Whole on the picture, but well past the frame's left and right borders.
    expect(hintFor(frame({ card: { x0: 0.05, y0: 0.2, x1: 0.95, y1: 0.8 } }), null, GUIDE)).toBe('too_close');
    // Running off the bottom of the picture.
    expect(hintFor(frame({ card: { x0: 0.2, y0: 0.3, x1: 0.8, y1: 1 } }), null, GUIDE)).toBe('too_close');
  });

  it('light and glare are judged on the frame, not the table around it', () => {
    // A dark table all around a well-lit card: dark on the whole picture, fine in the frame.
    const lit = frame({ background: 0, card: { x0: 0.3, y0: 0.3, x1: 0.7, y1: 0.7 } });
    expect(meanLuminance(lit)).toBeLessThan(LIMITS.dark);
    expect(hintFor(lit, null, { x0: 0.3, y0: 0.3, x1: 0.7, y1: 0.7 })).toBeNull();
    // A lamp's reflection on the table, outside the frame, is not glare on the document.
    const lamp = frame({ card: { x0: 0.2, y0: 0.2, x1: 0.8, y1: 0.8 } });
    for (let y = 0; y < 10; y++) for (let x = 0; x < 12; x++) lamp.data[y * W + x] = 255;
    expect(glareFraction(lamp)).toBeGreaterThan(LIMITS.glare);
    expect(hintFor(lamp, null, GUIDE)).toBeNull();
  });

  it('a white page burnt out all over is not glare; a reflection on a mid-tone page is', () => {
    // A clean white passport page filling the frame on a dark table (what stayed on "Glare" for 35 s).
    const white = frame({ cardValue: 255, card: { x0: 0.21, y0: 0.21, x1: 0.79, y1: 0.8 } });
    expect(hintFor(white, white, GUIDE)).toBeNull();
    // The same framing on a page of mid-tone paper with a burnt-out reflection across a fifth of it.
    const shiny = frame({ cardValue: 190, card: { x0: 0.21, y0: 0.21, x1: 0.79, y1: 0.8 } });
    for (let y = Math.round(0.35 * H); y < Math.round(0.55 * H); y++)
      for (let x = Math.round(0.3 * W); x < Math.round(0.7 * W); x++) shiny.data[y * W + x] = 255;
    expect(hintFor(shiny, shiny, GUIDE)).toBe('glare');
  });

  it('glare is judged on the document, not on the frame: a lamp on the table inside the frame is not glare', () => {
    // The card fills the left part of the frame; a burnt-out lamp sits on the table beside it, inside the frame.
    const scene = frame({ card: { x0: 0.2, y0: 0.2, x1: 0.8, y1: 0.8 } });
    for (let y = Math.round(0.25 * H); y < Math.round(0.45 * H); y++)
      for (let x = Math.round(0.81 * W); x < Math.round(0.9 * W); x++) scene.data[y * W + x] = 255;
    const wide = { x0: 0.18, y0: 0.2, x1: 0.92, y1: 0.8 };
    expect(glareFraction(crop(scene, wide))).toBeGreaterThan(LIMITS.glare);
    expect(hintFor(scene, scene, wide)).not.toBe('glare');
  });

  it("the selfie's light is judged on the face's region: a lit face on a dark stage passes, a dark room does not", () => {
    // A face (a bright oval, a third of the frame) on a black stage: the whole frame's mean is low.
    const stage = frame({
      background: 8,
      card: { x0: 0.35, y0: 0.15, x1: 0.65, y1: 0.6 },
      cardValue: 150,
      text: false,
    });
    expect(meanLuminance(stage)).toBeLessThan(LIMITS.dark);
    const oval = { x0: 0.24, y0: 0.05, x1: 0.76, y1: 0.95 };
    expect(faceLight(stage, oval)).toBeGreaterThan(LIMITS.faceDark);
    expect(faceTooDark(stage, oval)).toBe(false);
    const room = frame({ background: 10, card: { x0: 0.35, y0: 0.15, x1: 0.65, y1: 0.6 }, cardValue: 35, text: false });
    expect(faceTooDark(room, oval)).toBe(true);
  });

  it('maps the on-screen frame into the picture through object-fit: cover', () => {
    // A 1280x800 picture shown in a 4:3 box 400x300: scaled by 0.375, 40 px cut off each side.
    const box = frameInPicture(
      { width: 1280, height: 800 },
      { left: 10, top: 20, width: 400, height: 300 },
      { left: 10 + 32, top: 20 + 48, width: 336, height: 212 },
    );
    expect(box.x0).toBeCloseTo((32 + 40) / 0.375 / 1280, 3);
    expect(box.y0).toBeCloseTo(48 / 0.375 / 800, 3);
    expect(box.x1).toBeCloseTo((368 + 40) / 0.375 / 1280, 3);
    expect(box.y1).toBeCloseTo(260 / 0.375 / 800, 3);
    expect(crop(frame(), { x0: 0.5, y0: 0.5, x1: 1, y1: 1 })).toMatchObject({ width: W / 2, height: H / 2 });
  });

  it('counts ready frames in a row and starts again at any hint', () => {
    let streak = 0;
    for (const hint of [null, null, 'hold_still', null, null, null] as const) streak = nextStreak(streak, hint);
    expect(streak).toBe(READY_FRAMES);
  });

  it('reads RGBA pixels as luminance', () => {
    const gray = toGray(new Uint8ClampedArray([255, 255, 255, 255, 0, 0, 0, 255, 255, 0, 0, 255]), 3, 1);
    expect([...gray.data]).toEqual([255, 0, 76]);
  });
});
