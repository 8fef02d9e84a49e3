import { open } from 'node:fs/promises';
import sharp from 'sharp';

// A fake camera for Chromium (`--use-file-for-fake-video-capture=FILE.y4m`), built from still
// images with sharp: no ffmpeg needed. Chromium plays the file in a loop as the webcam.

export interface FakeCameraOptions {
  /** Frame size; even numbers (4:2:0 halves the chroma planes). Default 640x480. */
  width?: number;
  height?: number;
  /** Frames per second, default 15. */
  fps?: number;
  /** How long each image is shown, cross-fade included. Default 1 s. */
  secondsPerImage?: number;
  /** Blend from one image into the next over this long, so the face moves instead of jumping. Default 0.3 s. */
  crossFadeSeconds?: number;
  /**
   * How much of the frame height the image takes (0..1], centred on a background; 1 fills the
   * frame (cropping the sides of wide images). Default 1.
   */
  scale?: number;
  /** Background where the image does not cover the frame. Default mid grey. */
  background?: { r: number; g: number; b: number };
}

/** One image as RGB pixels of the frame: resized, centred, padded with the background. */
async function frameOf(
  image: string,
  width: number,
  height: number,
  scale: number,
  background: { r: number; g: number; b: number },
): Promise<Buffer> {
  const inner = { width: Math.round(width * scale), height: Math.round(height * scale) };
  const fitted = await sharp(image)
    .autoOrient()
    .resize({ ...inner, fit: scale >= 1 ? 'cover' : 'contain', background })
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer();
  if (scale >= 1) return fitted;
  return sharp(fitted, { raw: { ...inner, channels: 3 } })
    .extend({
      top: Math.floor((height - inner.height) / 2),
      bottom: Math.ceil((height - inner.height) / 2),
      left: Math.floor((width - inner.width) / 2),
      right: Math.ceil((width - inner.width) / 2),
      background,
    })
    .raw()
    .toBuffer();
}

/** RGB to planar Y'CbCr 4:2:0 (BT.601, studio range, what Chromium's capture path expects). */
function toI420(rgb: Buffer, width: number, height: number): Buffer {
  const out = Buffer.alloc(width * height * 1.5);
  const chroma = (width / 2) * (height / 2);
  const uOffset = width * height;
  const vOffset = uOffset + chroma;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      out[y * width + x] = Math.round(16 + (65.481 * rgb[i]! + 128.553 * rgb[i + 1]! + 24.966 * rgb[i + 2]!) / 255);
    }
  }
  // Each chroma sample is the average of its 2x2 block.
  for (let y = 0; y < height / 2; y++) {
    for (let x = 0; x < width / 2; x++) {
      let r = 0,
        g = 0,
        b = 0;
      for (const [dx, dy] of [
        [0, 0],
        [1, 0],
        [0, 1],
        [1, 1],
      ] as const) {
        const i = ((2 * y + dy) * width + 2 * x + dx) * 3;
        r += rgb[i]!;
        g += rgb[i + 1]!;
        b += rgb[i + 2]!;
      }
      r /= 4;
      g /= 4;
      b /= 4;
      const c = y * (width / 2) + x;
      out[uOffset + c] = Math.round(128 + (-37.797 * r - 74.203 * g + 112 * b) / 255);
      out[vOffset + c] = Math.round(128 + (112 * r - 93.786 * g - 18.214 * b) / 255);
    }
  }
  return out;
}

const blend = (a: Buffer, b: Buffer, t: number) => {
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i++) out[i] = Math.round(a[i]! * (1 - t) + b[i]! * t);
  return out;
};

/**
 * Writes a YUV4MPEG2 (C420jpeg) video showing `images` one after another (each `secondsPerImage`,
 * cross-faded into the next), for Chromium's fake camera. Returns the frame count.
 */
export async function writeFakeCameraVideo(
  file: string,
  images: string[],
  opts: FakeCameraOptions = {},
): Promise<{ frames: number }> {
  if (!images.length) throw new Error('writeFakeCameraVideo needs at least one image');
  const {
    width = 640,
    height = 480,
    fps = 15,
    secondsPerImage = 1,
    crossFadeSeconds = 0.3,
    scale = 1,
    background = { r: 128, g: 128, b: 128 },
  } = opts;
  if (width % 2 || height % 2) throw new Error('width and height must be even');
  const stills = await Promise.all(images.map((image) => frameOf(image, width, height, scale, background)));
  const perImage = Math.max(1, Math.round(secondsPerImage * fps));
  const fade = images.length > 1 ? Math.min(perImage - 1, Math.round(crossFadeSeconds * fps)) : 0;
  const handle = await open(file, 'w');
  let frames = 0;
  try {
    await handle.write(`YUV4MPEG2 W${width} H${height} F${fps}:1 Ip A1:1 C420jpeg\n`);
    for (let n = 0; n < stills.length; n++) {
      const current = stills[n]!;
      const next = stills[(n + 1) % stills.length]!;
      const steady = toI420(current, width, height);
      for (let f = 0; f < perImage; f++) {
        const fading = f - (perImage - fade);
        const frame = fading >= 0 ? toI420(blend(current, next, (fading + 1) / (fade + 1)), width, height) : steady;
        await handle.write('FRAME\n');
        await handle.write(frame);
        frames += 1;
      }
    }
  } finally {
    await handle.close();
  }
  return { frames };
}
