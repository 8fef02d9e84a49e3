import sharp from 'sharp';
import { type DecodedImage, MAX_IMAGE_PIXELS, pixels, WORKING_COPY } from '../image.js';
import { DETECT_SIDE, type RawFace } from './detect.js';
import { type Box, boundsOf, clipBox, type Point, padBox, rollDegrees } from './geometry.js';
import { type Affine, type Rgb, warp } from './raster.js';
import type { FaceRuntime } from './runtime.js';
import { faceChip } from './align.js';
import { DESCRIPTOR_SIDE } from './descriptor-onnx.js';
import type { ImageArea } from './onnx-input.js';
import { chipQuality, type FaceQuality, visibleShare } from './quality.js';

// The descriptor of a face, from the FULL-resolution image:
// 1. a square "level" chip around the face, twice its size, rotated by the eye-line roll so the
//    eyes come out level, and scaled with sharp's filtered shrink so the face lands near 150 px
//    (face-api's crop nets' side);
// 2. landmarks re-run on that level chip (detection ran on a 640 px copy, where a small face has
//    only a few dozen pixels, and on a tilted face);
// 3. the descriptor (descriptor-onnx.ts) on the 112 px chip that the least-squares similarity of
//    the five points (eye centres, nose tip, mouth corners) onto ArcFace's template cuts from the
//    level chip; the age net on the landmark bounds padded by 10% per side.

/** face-api's crop nets' input side. */
const NET_SIDE = 150;
/**
 * Pad around the landmark bounds for face-api's crop nets, per side (10% separated faces better than its own 20% with
 * its 128-d descriptor).
 */
const DESCRIPTOR_PAD = 0.1;
/** The chip is scaled so face-api's usual box (landmark bounds + 20%) would be NET_SIDE wide; the
 * tighter 10% crop is then enlarged a little by the net. Measured best of the variants tried. */
const SCALE_PAD = 0.2;

export interface Description {
  descriptor: Float32Array;
  /** Landmarks refined on the aligned chip, mapped back to upright original pixels. */
  landmarks: Point[];
  rollDegrees: number;
  quality: FaceQuality;
  /** Age in years as face-api's age net reads the same crop (a regression, not a document fact). */
  estimatedAge: number;
}

/** Below this landmark extent (original pixels) a face holds too little detail to identify. */
const MIN_FACE_PIXELS = 20;

export async function describe(rt: FaceRuntime, image: DecodedImage, face: RawFace): Promise<Description | null> {
  const inputs = await descriptorInputs(rt, image, face);
  return inputs ? describeInputs(rt, image, inputs) : null;
}

/** The description of a face from what the nets read of it (descriptorInputs). */
export async function describeInputs(
  rt: FaceRuntime,
  image: DecodedImage,
  inputs: DescriptorInputs,
): Promise<Description> {
  const descriptor = await rt.descriptor.describe(inputs.chip);
  const estimatedAge = await rt.age.estimate(inputs.crop);
  const landmarks = inputs.marks.map(inputs.level.toOriginal);
  const quality = {
    ...chipQuality(inputs.level.rgb, inputs.marks),
    visible: visibleShare(landmarks, image.width, image.height),
  };
  return { descriptor, landmarks, rollDegrees: rollDegrees(landmarks), quality, estimatedAge };
}

/** What the face nets read of one face. */
export interface DescriptorInputs {
  /** The level chip (alignedChip) and its landmarks, refined on it. */
  level: Chip;
  marks: Point[];
  /** The 112 px chip on ArcFace's five-point template, for the descriptor net. */
  chip: Rgb;
  /**
   * The landmark bounds padded by DESCRIPTOR_PAD on the level chip: what face-api's crop nets (age; the old 128-d
   * descriptor) read.
   */
  crop: ImageArea;
}

/** The descriptor's and the age net's inputs of a face; null when it is too small or its landmarks collapse. */
export async function descriptorInputs(
  rt: FaceRuntime,
  image: DecodedImage,
  face: RawFace,
): Promise<DescriptorInputs | null> {
  const extent = boundsOf(face.landmarks);
  if (Math.max(extent.width, extent.height) < MIN_FACE_PIXELS) return null;
  const level = await alignedChip(image, face);
  const marks = await chipLandmarks(rt, level, face);
  const area = clipBox(padBox(boundsOf(marks), DESCRIPTOR_PAD), level.rgb.width, level.rgb.height);
  const x = Math.floor(area.x);
  const y = Math.floor(area.y);
  const w = Math.min(level.rgb.width - x, Math.round(area.width));
  const h = Math.min(level.rgb.height - y, Math.round(area.height));
  if (w < 16 || h < 16) return null; // refined landmarks collapsed: not a usable face
  // The level chip already holds the face at about 1.4 times the template's size, shrunk with a
  // proper filter from the full-resolution pixels, so the five-point warp onto 112 px barely resamples.
  const chip = faceChip(level.rgb, 1, marks, DESCRIPTOR_SIDE, { kind: 'similarity', zoom: 1 });
  return { level, marks, chip, crop: { rgb: level.rgb, box: { x, y, width: w, height: h } } };
}

/** 68 landmarks on the chip: the detector's face box sits at the chip centre, scaled by k. */
async function chipLandmarks(rt: FaceRuntime, chip: Chip, face: RawFace): Promise<Point[]> {
  const side = Math.max(8, Math.min(chip.rgb.width, Math.round(Math.max(face.box.width, face.box.height) * chip.k)));
  const off = Math.floor((chip.rgb.width - side) / 2);
  return (await rt.landmarks.detect({ rgb: chip.rgb, box: { x: off, y: off, width: side, height: side } })).map(
    (p) => ({ x: p.x + off, y: p.y + off }),
  );
}

interface Chip {
  rgb: Rgb;
  /** chip pixels per original pixel */
  k: number;
  toOriginal: (p: Point) => Point;
}

/** A square, level (de-rotated) chip around the face, read from the original bytes at full size. */
export async function alignedChip(image: DecodedImage, face: RawFace): Promise<Chip> {
  const lb = boundsOf(face.landmarks);
  const c = { x: lb.x + lb.width / 2, y: lb.y + lb.height / 2 };
  const side = 2 * Math.max(lb.width, lb.height, face.box.width, face.box.height);
  // Scale so the padded landmark box comes out near the net's 150 px: sharp shrinks with a proper
  // filter, whereas the net's own bilinear resize of a large crop aliases (measured: worse distances).
  const k = NET_SIDE / ((1 + 2 * SCALE_PAD) * Math.max(lb.width, lb.height, 1));
  const n = Math.max(32, Math.round(side * k));
  const t = (face.rollDegrees * Math.PI) / 180;
  const cos = Math.cos(t);
  const sin = Math.sin(t);
  // Axis-aligned source area holding the rotated square, clipped to the image.
  const reach = (side * (Math.abs(cos) + Math.abs(sin))) / 2 + 2;
  const want: Box = { x: c.x - reach, y: c.y - reach, width: 2 * reach, height: 2 * reach };
  const area = clipBox(want, image.width, image.height);
  const left = Math.floor(area.x);
  const top = Math.floor(area.y);
  const width = Math.max(1, Math.min(image.width - left, Math.ceil(area.x + area.width) - left));
  const height = Math.max(1, Math.min(image.height - top, Math.ceil(area.y + area.height) - top));
  const region = await readRegion(image, { x: left, y: top, width, height }, k);
  const kx = region.width / width;
  const ky = region.height / height;
  // Chip pixel (u, v) -> original point c + R(roll) * ((u, v) - n/2) / k -> region pixel.
  const a = (kx * cos) / k;
  const b = (-kx * sin) / k;
  const d = (ky * sin) / k;
  const e = (ky * cos) / k;
  const map: Affine = {
    a,
    b,
    c: kx * (c.x - left) - (a + b) * (n / 2),
    d,
    e,
    f: ky * (c.y - top) - (d + e) * (n / 2),
  };
  const rgb = warp(region, map, n, n);
  const toOriginal = (p: Point): Point => {
    const qx = (p.x - n / 2) / k;
    const qy = (p.y - n / 2) / k;
    return { x: c.x + cos * qx - sin * qy, y: c.y + sin * qx + cos * qy };
  };
  return { rgb, k, toOriginal };
}

/**
 * Upright pixels of one area of the original image, shrunk by `k` when k < 1 (never enlarged).
 * An image the detector saw at full size is not decoded again: its decoded pixels give the same
 * area to the byte (checked on every image of ../shared/data). Not so with an alpha channel, which
 * sharp resizes premultiplied: those, and larger images, are read from the original bytes.
 */
async function readRegion(image: DecodedImage, area: Box, k: number): Promise<Rgb> {
  const decoded =
    Math.max(image.width, image.height) <= DETECT_SIDE && !image.alpha ? await pixels(image, WORKING_COPY) : null;
  // From the bytes, the EXIF orientation first, so `area` is in upright coordinates (decoded pixels are upright).
  const source = decoded
    ? sharp(decoded.data, { raw: { width: decoded.width, height: decoded.height, channels: decoded.channels } })
    : sharp(image.bytes, { limitInputPixels: MAX_IMAGE_PIXELS }).rotate();
  let pipeline = source.extract({ left: area.x, top: area.y, width: area.width, height: area.height });
  if (k < 1)
    pipeline = pipeline.resize({
      width: Math.max(1, Math.round(area.width * k)),
      height: Math.max(1, Math.round(area.height * k)),
      fit: 'fill',
    });
  const { data, info } = await pipeline.removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`expected 3 channels, got ${info.channels}`);
  return { data, width: info.width, height: info.height };
}
