import { describe, expect, it } from 'vitest';
import { type Centreline, centreAt } from '../../src/ml/document/paddle.js';
import type { Gray } from '../../src/ml/document/raster.js';
import { fillersMisread } from '../../src/ml/document/reader.js';
import { joinedLines, rectifyZone, warped, zoneStacks } from '../../src/ml/document/zone-warp.js';
import { photoSpec, photoSpecs, PHOTO_KINDS, PHOTO_LAYOUTS } from '../helpers/document-photos.js';

// The MRZ straightener's rules without OCR (src/ml/document/zone-warp.ts): lines joined from
// their pieces, stacks found, a warp recognised, and a bowed, slanted zone resampled level.

const line = (y: number, slope: number, bow: number, x0 = 100, x1 = 1100, height = 20): Centreline => {
  const xm = (x0 + x1) / 2;
  return { xm, c: [y, slope, bow], x0, x1, height };
};

/** A white page with dark strokes along each line's centreline, `thick` pixels high. */
function pageWith(lines: Centreline[], width = 1200, height = 500, thick = 6): Gray {
  const data = Buffer.alloc(width * height, 255);
  for (const l of lines) {
    for (let x = Math.ceil(l.x0); x < l.x1; x++) {
      const y = Math.round(centreAt(l, x));
      for (let dy = -thick / 2; dy < thick / 2; dy++)
        if (y + dy >= 0 && y + dy < height) data[(y + dy) * width + x] = 0;
    }
  }
  return { data, width, height };
}

/** The row of a level zone that is darkest in column x. */
function darkestRow(g: Gray, x: number): number {
  let best = 0;
  for (let y = 0; y < g.height; y++) if (g.data[y * g.width + x]! < g.data[best * g.width + x]!) best = y;
  return best;
}

describe('MRZ zone straightening', () => {
  it('joins the pieces of a line split at its filler run, and keeps the line below apart', () => {
    const lines = joinedLines([
      { centre: line(200, 0.05, 0, 100, 600) },
      { centre: line(200 + 0.05 * 550, 0.05, 0, 700, 1100) },
      { centre: line(240, 0.05, 0) },
    ]);
    expect(lines).toHaveLength(2);
    expect(Math.min(...lines.map((l) => l.x0))).toBe(100);
    expect(Math.max(...lines.map((l) => l.x1))).toBe(1100);
  });

  it('finds a stack of lines a line height or two apart, the lowest first, and tells a warped one', () => {
    const level = [line(100, 0, 0), line(130, 0, 0)];
    const bowed = [line(300, 0.02, 0.00004), line(330, 0.025, 0.00004), line(360, 0.03, 0.00004)];
    const stacks = zoneStacks([...level, ...bowed, line(480, 0, 0, 100, 300)]);
    expect(stacks.map((s) => s.length)).toEqual([3, 2]);
    expect(warped(stacks[0]!)).toBe(true);
    expect(warped(stacks[1]!)).toBe(false);
  });

  it('resamples a bowed, converging zone so that each line runs level', () => {
    // Lines that slant, bow and converge (a page at an angle and curved).
    const lines = [line(180, 0.06, 0.00006), line(230, 0.04, 0.00005), line(280, 0.02, 0.00004)];
    const { zone, pageBoxes } = rectifyZone(pageWith(lines), lines);
    expect(pageBoxes).toHaveLength(3);
    const rows = [0.1, 0.5, 0.9].map((share) => darkestRow(zone, Math.round(share * zone.width)));
    // The same row at both ends and in the middle: level within two pixels.
    expect(Math.max(...rows) - Math.min(...rows)).toBeLessThanOrEqual(2);
  });
});

describe('a zone whose fillers read as characters is no reading', () => {
  it('refuses a run of one letter and a whole zone without a filler, and keeps real zones', () => {
    const misread = [
      'HDPOLNWUO0SOKX4LDOAAAAAAAAAAAA',
      '9007116F3002153POL545555444140',
      'OKATORAALCCASAARAAAARARAAAAAAR',
    ];
    expect(fillersMisread({ lines: misread, missingLines: [] })).toBe(true);
    expect(
      fillersMisread({
        lines: ['IDPOLNWUQ25Q4X31287AB4C9D0E1F2', '9007116F3002153POL7Q3R4S5T6U70', 'OKAFORXLUCASXJOHNXXPAULXXXXXXX'],
        missingLines: [],
      }),
    ).toBe(true);
    // Digits may repeat (a personal number of ones, a number of zeros); a part read keeps its missing line as fillers.
    expect(
      fillersMisread({
        lines: ['PALVAMOHAMADA<<FARIDA<<<<<<<<<<<<<<<<<<<<<<<', 'LT00000004XXC8605102F1210314111111<11648<<86'],
        missingLines: [],
      }),
    ).toBe(false);
    expect(
      fillersMisread({
        lines: ['IDPOLNWUQ25QKX<128<<<<<<<<<<<<', '9007116F3002153POL<<<<<<<<<<<0', 'OKAFOR<<LUCAS<<<<<<<<<<<<<<<<<'],
        missingLines: [],
      }),
    ).toBe(false);
  });
});

describe('generated hard photos', () => {
  it('cover every layout and every kind, deterministically', () => {
    const specs = photoSpecs(PHOTO_KINDS.length * PHOTO_LAYOUTS.length);
    for (const layout of PHOTO_LAYOUTS)
      for (const kind of PHOTO_KINDS) expect(specs.some((s) => s.layout === layout && s.kind === kind)).toBe(true);
    expect(photoSpec(7)).toEqual(photoSpec(7));
    for (const s of specs) {
      expect(s.jpegQuality).toBeGreaterThanOrEqual(40);
      expect(s.jpegQuality).toBeLessThanOrEqual(80);
      expect((s.width * s.height) / 1e6).toBeGreaterThanOrEqual(0.99);
      expect((s.width * s.height) / 1e6).toBeLessThanOrEqual(12.01);
    }
    const perspective = specs.filter((s) => s.kind === 'perspective');
    expect(perspective.every((s) => Math.abs(s.tiltX) >= 20 && Math.abs(s.tiltX) <= 30)).toBe(true);
    // Long numbers (ICAO's rule for TD1 and TD2) and numbers mixing letters and digits are among them.
    expect(specs.some((s) => s.document.documentNumber!.length > 9)).toBe(true);
    expect(
      specs.some(
        (s) => /\d/.test(s.document.documentNumber!.slice(2)) && /[A-Z]/.test(s.document.documentNumber!.slice(2)),
      ),
    ).toBe(true);
  });
});
