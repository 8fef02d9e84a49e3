import type { Alternatives } from './mrz.js';
import { checkPasses, type CharClass, type CheckSlot, type Layout, numberWellFormed } from './mrz-format.js';

// Check-digit-guided repair of OCR confusions in an MRZ. First every field is mapped to the
// characters its type allows (a date cannot hold an O: the recogniser's own second reading of
// the right kind, else the usual look-alike) and filler look-alikes become fillers.
// Then each failing check digit is repaired, trying in turn: whole-field hypotheses (fill,
// letter prefix + digits), single look-alike substitutions, and combinations of look-alikes
// that satisfy the composite too. A repair is applied only when no other one does as well.

const LETTER_TO_DIGIT: Record<string, string> = { O: '0', Q: '0', D: '0', U: '0', I: '1', L: '1', T: '1', Z: '2', S: '5', G: '6', B: '8', A: '4' };
const SHAPE_DIGIT: Record<string, string> = { O: '0', Q: '0', D: '0', I: '1', L: '1', Z: '2', S: '5', G: '6', B: '8' };
const DIGIT_SHAPE: Record<string, string> = { '0': 'O', '1': 'I', '2': 'Z', '5': 'S', '6': 'G', '8': 'B' };
const DIGIT_TO_LETTER: Record<string, string> = { '0': 'O', '1': 'I', '2': 'Z', '4': 'A', '5': 'S', '6': 'G', '7': 'T', '8': 'B' };
/** Look-alikes tried when a check digit fails; letters and digits both ways, plus digit-digit shapes. */
const LOOK_ALIKES: Record<string, string> = {
  '0': 'OQDU896',
  O: '0QD',
  Q: '0O',
  D: '0O',
  '1': 'IL7T4',
  I: '1L',
  L: '1I<',
  T: '17',
  '2': 'Z7',
  Z: '2',
  '5': 'S68',
  S: '58',
  '6': 'G85',
  G: '6C',
  '8': 'B3056',
  B: '8',
  '3': '8',
  '9': '0',
  '4': 'A1',
  A: '4',
  '7': '12T',
  K: '<',
  C: '<G',
  E: '<',
};

export interface Corrected {
  lines: string[];
  corrections: number;
}

/** The recogniser's likeliest alternative of the kind the field allows, if it offered one. */
function alternativeOfKind(alternatives: string | undefined, pattern: RegExp): string | undefined {
  return [...(alternatives ?? '')].find((c) => pattern.test(c));
}

function mapField(text: string, kind: CharClass, name: string, alternatives: string[] = []): string {
  // No document code has K second: it is a misread filler ("PK" for "P<").
  if (name === 'documentCode' && text[1] === 'K') return text[0]! + '<';
  // A character the field cannot hold: the recogniser's own next reading of the right kind first,
  // the usual look-alike otherwise.
  const asDigit = (c: string, i: number) => (/[0-9]/.test(c) ? c : (alternativeOfKind(alternatives[i], /[0-9]/) ?? LETTER_TO_DIGIT[c] ?? c));
  switch (kind) {
    case 'digits':
      return [...text].map(asDigit).join('');
    case 'check':
      return [...text].map((c, i) => (c === '<' ? c : asDigit(c, i))).join('');
    case 'alpha': {
      const letters = [...text].map((c, i) => (/[A-Z<]/.test(c) ? c : (alternativeOfKind(alternatives[i], /[A-Z<]/) ?? DIGIT_TO_LETTER[c] ?? c))).join('');
      return name === 'names' ? cleanFiller(letters) : letters;
    }
    case 'sex':
      return /^[MFX<]$/.test(text) ? text : text === 'H' || text === 'N' ? 'M' : text === 'P' || text === 'E' ? 'F' : text === 'K' ? '<' : text;
    case 'mixed': {
      if (name === 'documentNumber') return text;
      // Optional data ends in fill; K and '<' even share a check-digit value, so no digit catches it.
      const trailing = /<[<KCL]*$/.exec(text);
      return trailing && trailing[0].length >= 2 ? text.slice(0, trailing.index) + '<'.repeat(trailing[0].length) : text;
    }
  }
}

/**
 * Filler '<' is often read as K, C or L. In a names field, a run of three fillers only occurs in
 * the trailing fill, and the trailing run of filler look-alikes that starts with a '<' is fill too.
 */
export function cleanFiller(text: string): string {
  let out = text;
  // Without a '<<' the surname/given-names separator was misread: its first look-alike pair is it.
  const body = out.replace(/<[<KCL]*$/, '');
  if (!body.includes('<<')) out = out.replace(/(?<=[A-Z])([KLCS]<|<[KLCS]|KS|SK)(?=[A-Z])/, '<<');
  const triple = out.indexOf('<<<');
  if (triple >= 0) out = out.slice(0, triple) + '<'.repeat(out.length - triple);
  // Four or more look-alikes in a row at the end are fill too (no name ends in "LCLL").
  const run = /[<KCL]{4,}$/.exec(out);
  if (run) out = out.slice(0, run.index) + '<'.repeat(run[0].length);
  const trailing = /<[<KCL]*$/.exec(out);
  if (trailing && trailing[0].length >= 3) out = out.slice(0, trailing.index) + '<'.repeat(trailing[0].length);
  return out;
}

function countDiff(a: string[], b: string[]): number {
  let n = 0;
  for (let l = 0; l < a.length; l++) for (let i = 0; i < a[l]!.length; i++) if (a[l]![i] !== b[l]![i]) n++;
  return n;
}

function kindAt(layout: Layout, line: number, index: number): CharClass | null {
  for (const f of layout.fields) if (f.line === line && index >= f.start && index < f.end) return f.kind;
  return null;
}

function allowed(kind: CharClass | null, ch: string): boolean {
  switch (kind) {
    case 'digits':
      return /[0-9]/.test(ch);
    case 'check':
      return /[0-9<]/.test(ch);
    case 'alpha':
      return /[A-Z<]/.test(ch);
    default:
      return true;
  }
}

function replaceAt(lines: string[], line: number, index: number, ch: string): string[] {
  const copy = lines.slice();
  const text = copy[line]!;
  copy[line] = text.slice(0, index) + ch + text.slice(index + 1);
  return copy;
}

/** Single substitutions among look-alikes and the recogniser's alternatives, over the covered characters and the digit itself, that make `slot` pass. */
function repairs(lines: string[], layout: Layout, slot: CheckSlot, alternatives?: Alternatives): string[][] {
  const substitutions = (positions: Array<{ line: number; index: number }>): string[][] => {
    const found: string[][] = [];
    for (const { line, index } of positions) {
      const current = lines[line]![index]!;
      for (const alt of new Set((alternatives?.[line]?.[index] ?? '') + (LOOK_ALIKES[current] ?? ''))) {
        if (alt === current) continue;
        if (!allowed(kindAt(layout, line, index), alt)) continue;
        const candidate = replaceAt(lines, line, index, alt);
        if (checkPasses(candidate, slot)) found.push(candidate);
      }
    }
    return found;
  };
  // Characters another passing check vouches for are not suspects.
  const vouched = layout.checks.filter((c) => c !== slot && c.name !== 'composite' && checkPasses(lines, c));
  const isVouched = (line: number, index: number) => vouched.some((c) => c.covers.some((r) => r.line === line && index >= r.start && index < r.end) || (c.at.line === line && c.at.index === index));
  const covered = slot.covers.flatMap((c) => Array.from({ length: c.end - c.start }, (_, k) => ({ line: c.line, index: c.start + k }))).filter((p) => !isVouched(p.line, p.index));
  // The check digit itself is changed only when no covered character explains the failure.
  const inField = substitutions(covered);
  return inField.length > 0 ? inField : substitutions([slot.at]);
}

function passingCount(lines: string[], layout: Layout): number {
  return layout.checks.filter((c) => checkPasses(lines, c)).length;
}

/** Whole-field hypotheses a single substitution cannot reach, tried when the field's check fails. */
function fieldHypotheses(lines: string[], slot: CheckSlot): string[][] {
  const out: string[][] = [];
  for (const cover of slot.covers) {
    const field = lines[cover.line]!.slice(cover.start, cover.end);
    const put = (text: string) => {
      const copy = lines.slice();
      const line = copy[cover.line]!;
      copy[cover.line] = line.slice(0, cover.start) + text + line.slice(cover.end);
      if (text !== field) out.push(copy);
    };
    // Optional fields mostly filled: K, C and L among fillers are fillers.
    if ((field.match(/</g) ?? []).length >= 3) put(field.replace(/[KCL](?=[<KCL]*$)|(?<=<)[KCL](?=<)/g, '<'));
    // Document numbers are often a few letters then digits: read the tail as digits.
    if (slot.name === 'document_number') {
      // Only shape confusions: U, A and T are real letters in numbers too often.
      for (let k = 0; k <= 3; k++) put(field.slice(0, k) + [...field.slice(k)].map((c) => SHAPE_DIGIT[c] ?? c).join(''));
    }
  }
  return out.filter((candidate) => checkPasses(candidate, slot));
}

/**
 * The repair that keeps the most other checks passing with the fewest changes, when it is the
 * only one. A repair that puts a filler inside the document number is none (no number has one
 * there), yet it still makes a rival one ambiguous: on a card whose digit was misprinted,
 * 'L4453373<' can be met as '<4453373<' or as 'I4453373<', and neither is the card.
 */
function unambiguous(options: string[][], layout: Layout, current: string[]): string[] | null {
  if (options.length === 0) return null;
  const scored = options.map((o) => ({ lines: o, key: o.join('\n'), score: passingCount(o, layout), changes: countDiff(current, o) })).sort((a, b) => b.score - a.score || a.changes - b.changes);
  const best = scored[0]!;
  if (!numberWellFormed(best.lines, layout)) return null;
  return scored.every((s) => s.score < best.score || s.changes > best.changes || s.key === best.key) ? best.lines : null;
}

/**
 * Several look-alikes in one field: every combination of readings of the ambiguous characters,
 * kept only when it satisfies both the field's digit and the composite (one alone is a 1-in-10
 * chance). The document number starts the composite in every layout, under the same weights, so
 * for it the composite adds nothing: there only the fewest changes, when unique, decide.
 */
function combinations(lines: string[], layout: Layout, slot: CheckSlot): string[][] {
  const composite = layout.checks.find((c) => c.name === 'composite');
  if (!composite || slot === composite) return [];
  const positions: Array<{ line: number; index: number; alts: string }> = [];
  for (const cover of slot.covers) {
    for (let i = cover.start; i < cover.end; i++) {
      const ch = lines[cover.line]![i]!;
      const alt = SHAPE_DIGIT[ch] ?? DIGIT_SHAPE[ch];
      if (alt && allowed(kindAt(layout, cover.line, i), alt)) positions.push({ line: cover.line, index: i, alts: ch + alt });
    }
  }
  if (positions.length < 2 || positions.length > 7) return [];
  const out: string[][] = [];
  for (let mask = 1; mask < 1 << positions.length; mask++) {
    let candidate = lines;
    positions.forEach((p, k) => {
      if (mask & (1 << k)) candidate = replaceAt(candidate, p.line, p.index, p.alts[1]!);
    });
    if (checkPasses(candidate, slot) && checkPasses(candidate, composite)) out.push(candidate);
  }
  return out;
}

/**
 * A repair that leaves a field's own check failing over a character it changed explains nothing:
 * the composite met by changing a number whose digit still fails (on a card with a misprinted
 * digit, 'L4453373<' as 'I4453373<').
 */
function failsWhereChanged(before: string[], after: string[], layout: Layout): boolean {
  const changed = (r: { line: number; start: number; end: number }) => before[r.line]!.slice(r.start, r.end) !== after[r.line]!.slice(r.start, r.end);
  return layout.checks.some((c) => c.name !== 'composite' && !checkPasses(after, c) && c.covers.some(changed));
}

export function correctMrz(raw: string[], layout: Layout, alternatives?: Alternatives): Corrected {
  let lines = raw.slice();
  for (const field of layout.fields) {
    const text = lines[field.line]!;
    const mapped = mapField(text.slice(field.start, field.end), field.kind, field.name, alternatives?.[field.line]?.slice(field.start, field.end) ?? []);
    lines[field.line] = text.slice(0, field.start) + mapped + text.slice(field.end);
  }
  // Field checks first, the composite last: it covers the others and decides between ties.
  const ordered = [...layout.checks.filter((c) => c.name !== 'composite'), ...layout.checks.filter((c) => c.name === 'composite')];
  for (const slot of ordered) {
    if (checkPasses(lines, slot)) continue;
    // Whole-field hypotheses (fillers, letter-prefixed numbers) are specific; single look-alike
    // substitutions are the general fallback. A hypothesis that changes one character is a single
    // substitution like any other: it stands only when no other single substitution passes too
    // ('ZS0000177' read '2S0000177': reading the tail as digits, 'S' to '5', passes as '2' to 'Z' does).
    const hypotheses = fieldHypotheses(lines, slot);
    const oneChange = hypotheses.filter((h) => countDiff(lines, h) === 1);
    const chosen =
      (oneChange.length > 0
        ? unambiguous([...oneChange, ...repairs(lines, layout, slot, alternatives)], layout, lines)
        : (unambiguous(hypotheses, layout, lines) ?? unambiguous(repairs(lines, layout, slot, alternatives), layout, lines))) ?? unambiguous(combinations(lines, layout, slot), layout, lines);
    if (chosen && !failsWhereChanged(lines, chosen, layout)) lines = chosen;
  }
  return { lines, corrections: countDiff(raw, lines) };
}
