import type { OcrLine, OcrSymbol } from './ocr.js';

// MRZ characters sit on a fixed pitch. Tesseract's eng model reads the OCR-B chevron '<' as
// '<K', 'K' or 'L' and sometimes drops or doubles it, which shifts every later character.
// Placing each recognised symbol in its grid cell by position undoes insertions and drops.

const FILLER_LOOK_ALIKES = 'KLC';

interface Placed {
  ch: string;
  cx: number;
  confidence: number;
}

function mrzSymbols(symbols: OcrSymbol[]): Placed[] {
  const out: Placed[] = [];
  for (const s of symbols) {
    const ch = s.text.toUpperCase().replace(/[«‹([{]/g, '<');
    if (ch.length !== 1 || !/[A-Z0-9<]/.test(ch)) continue;
    out.push({ ch, cx: (s.bbox.x0 + s.bbox.x1) / 2, confidence: s.confidence });
  }
  return out.sort((a, b) => a.cx - b.cx);
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/** Character pitch: per-line span over (length - 1), cross-checked against neighbour spacing. */
function estimatePitch(lines: Placed[][], length: number): number | null {
  const spans = lines.filter((l) => l.length >= 2).map((l) => (l[l.length - 1]!.cx - l[0]!.cx) / (length - 1));
  const gaps = lines.flatMap((l) => l.slice(1).map((p, i) => p.cx - l[i]!.cx)).filter((g) => g > 0);
  if (spans.length === 0 || gaps.length === 0) return null;
  const typicalGap = median(gaps);
  // The span that agrees best with the typical gap: noise beyond a line's end inflates its span.
  return spans.reduce((best, s) => (Math.abs(s - typicalGap) < Math.abs(best - typicalGap) ? s : best), spans[0]!);
}

function better(current: Placed, candidate: Placed): Placed {
  // A chevron against one of its look-alikes: the chevron wins (the look-alike is the artefact).
  if (current.ch === '<' && FILLER_LOOK_ALIKES.includes(candidate.ch)) return current;
  if (candidate.ch === '<' && FILLER_LOOK_ALIKES.includes(current.ch)) return candidate;
  return candidate.confidence > current.confidence ? candidate : current;
}

/**
 * How many cells apart two neighbouring symbols are: none when they nearly coincide (one character
 * read twice, '<' as '<K'), else their distance in whole pitches, at least one (narrow letters
 * such as I and L sit off their cell's centre).
 */
function cellsBetween(distance: number, pitch: number): number {
  return distance < 0.35 * pitch ? 0 : Math.max(1, Math.round(distance / pitch));
}

/** The lines re-laid on a `length`-cell grid; empty cells are fillers. Null when no pitch can be found. */
export function gridLines(lines: OcrLine[], length: number): string[] | null {
  const placed = lines.map((l) => mrzSymbols(l.symbols));
  const pitch = estimatePitch(placed, length);
  if (!pitch || pitch <= 0) return null;
  // Every MRZ line starts with a real character at the same x, so the leftmost first symbol
  // anchors cell 0; a line whose first character was missed is placed from that common origin.
  const firsts = placed.filter((p) => p.length > 0).map((p) => p[0]!.cx);
  const common = Math.min(...firsts);
  return placed.map((symbols) => {
    // Read with exactly as many characters as the line has: nothing was dropped or doubled, and
    // at an angle the lines start at different x and differ in pitch, so the grid can only misplace.
    if (symbols.length === length) return symbols.map((s) => s.ch).join('');
    const cells: Array<Placed | null> = new Array(length).fill(null);
    if (symbols.length === 0) return '<'.repeat(length);
    const first = symbols[0]!.cx;
    const origin = (first - common < pitch * 0.6 ? first : common) - pitch / 2;
    // The first symbol's cell from the origin; each next one by its distance from the one before,
    // in whole pitches. Photographed at an angle a line's pitch differs from the others' by a few
    // percent, which over 30 cells from the origin would shift the end by a cell or more.
    let index = Math.floor((first - origin) / pitch);
    symbols.forEach((s, k) => {
      if (k > 0) index += cellsBetween(s.cx - symbols[k - 1]!.cx, pitch);
      if (index < 0 || index >= length) return;
      const current = cells[index];
      cells[index] = current ? better(current, s) : s;
    });
    return cells.map((c) => c?.ch ?? '<').join('');
  });
}
