import type { Alternatives } from './mrz.js';
import { checkPasses, type CharClass, type CheckSlot, type Layout, numberWellFormed } from './mrz-format.js';
import type { FieldChange, MrzAmbiguity } from './types.js';
import { repairStateCode } from './country-codes.js';

/** The fields that hold a state's code: no check digit covers them, the list of codes does. */
export const STATE_FIELDS: ReadonlySet<string> = new Set(['issuingState', 'nationality']);

// Check-digit-guided repair of OCR confusions in an MRZ. First every field is mapped to the
// characters its type allows (a date or a check digit cannot hold an O, a name or a country code
// cannot hold a 0: the recogniser's own second reading of the right kind, else the usual
// look-alike) and filler look-alikes become fillers. An alphanumeric field (the document number,
// the optional data) may hold either, so it is never mapped: only its check digit decides.
// Then each failing check digit is repaired, fewest changes first: whole-field hypotheses (fill,
// letter prefix + digits), single substitutions (letter/digit confusions, other look-alikes and
// the recogniser's alternatives), and combinations of confusions that satisfy the composite too.
// A repair is applied only when no other one does as well; when several do, none is applied and
// the tie is reported as an ambiguity.

const LETTER_TO_DIGIT: Record<string, string> = {
  O: '0',
  Q: '0',
  D: '0',
  U: '0',
  I: '1',
  L: '1',
  T: '1',
  Z: '2',
  S: '5',
  G: '6',
  B: '8',
  A: '4',
};
/** A letter's digit of the same shape (O Q D as 0, I L as 1, Z 2, S 5, G 6, B 8). */
export const SHAPE_DIGIT: Record<string, string> = {
  O: '0',
  Q: '0',
  D: '0',
  I: '1',
  L: '1',
  Z: '2',
  S: '5',
  G: '6',
  B: '8',
};
const DIGIT_SHAPE: Record<string, string> = { '0': 'O', '1': 'I', '2': 'Z', '5': 'S', '6': 'G', '8': 'B' };
const DIGIT_TO_LETTER: Record<string, string> = {
  '0': 'O',
  '1': 'I',
  '2': 'Z',
  '4': 'A',
  '5': 'S',
  '6': 'G',
  '7': 'T',
  '8': 'B',
};
/** Look-alikes tried when a check digit fails; letters and digits both ways, plus digit-digit shapes. */
const LOOK_ALIKES: Record<string, string> = {
  '0': 'OQDU896',
  O: '0QD',
  Q: '0OD',
  D: '0OQ',
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

/**
 * The confusions between a letter and a digit that OCR-B invites (ICAO 9303 prints numbers that
 * mix both): in an alphanumeric field only the check digit can tell them apart.
 */
const CONFUSIONS = ['B8', 'O0DQ', 'I1L', 'S5', 'Z2', 'G6'];

/** The characters `ch` is confused with (its confusion class without itself); '' when none. */
export function confusionsOf(ch: string): string {
  return (CONFUSIONS.find((c) => c.includes(ch)) ?? '').replace(ch, '');
}

export interface Corrected {
  lines: string[];
  /** The lines with every field mapped to the characters its type allows, before any check-digit repair. */
  mapped: string[];
  corrections: number;
  /** Check digits that several repairs satisfy equally well: none of them was applied. */
  ambiguities: MrzAmbiguity[];
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
  const asDigit = (c: string, i: number) =>
    /[0-9]/.test(c) ? c : (alternativeOfKind(alternatives[i], /[0-9]/) ?? LETTER_TO_DIGIT[c] ?? c);
  switch (kind) {
    case 'digits':
      return [...text].map(asDigit).join('');
    case 'check':
      // No digit looks like a K: it is a filler misread (a filler is allowed on some).
      return [...text].map((c, i) => (c === '<' || c === 'K' ? '<' : asDigit(c, i))).join('');
    case 'filler':
      return '<'.repeat(text.length);
    case 'alpha': {
      const letters = [...text]
        .map((c, i) =>
          /[A-Z<]/.test(c) ? c : (alternativeOfKind(alternatives[i], /[A-Z<]/) ?? DIGIT_TO_LETTER[c] ?? c),
        )
        .join('');
      if (name === 'names') return cleanFiller(letters);
      return STATE_FIELDS.has(name) ? repairStateCode(letters) : letters;
    }
    case 'sex':
      return /^[MFX<]$/.test(text)
        ? text
        : text === 'H' || text === 'N'
          ? 'M'
          : text === 'P' || text === 'E'
            ? 'F'
            : text === 'K'
              ? '<'
              : text;
    case 'mixed': {
      if (name === 'documentNumber') return text;
      // Optional data ends in fill; K and '<' even share a check-digit value, so no digit catches it.
      const trailing = /<[<KCL]*$/.exec(text);
      return trailing && trailing[0].length >= 2
        ? text.slice(0, trailing.index) + '<'.repeat(trailing[0].length)
        : text;
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
    case 'filler':
      return ch === '<';
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

/** Where a substitution may go: the positions a check covers, minus those another passing check vouches for. */
function suspects(lines: string[], layout: Layout, slot: CheckSlot): Array<{ line: number; index: number }> {
  // Characters another passing check vouches for are not suspects.
  const vouched = layout.checks.filter((c) => c !== slot && c.name !== 'composite' && checkPasses(lines, c));
  const isVouched = (line: number, index: number) =>
    vouched.some(
      (c) =>
        c.covers.some((r) => r.line === line && index >= r.start && index < r.end) ||
        (c.at.line === line && c.at.index === index),
    );
  return slot.covers
    .flatMap((c) => Array.from({ length: c.end - c.start }, (_, k) => ({ line: c.line, index: c.start + k })))
    .filter((p) => !isVouched(p.line, p.index));
}

/** Which substitutions a pool tries at a position: given the character there and the recogniser's alternatives. */
type Pool = (current: string, recognised: string) => string;

/**
 * Every substitution tried at a position: the recogniser's own alternatives, the letter/digit
 * confusions, and the other look-alikes (a digit read as another: 8 as 3, 0 as 9). All in one
 * pool: a repair stands only when it is the one single change that meets the check digit, and a
 * digit misread as another is as likely in a number as a letter read for a digit. Tried first
 * the letter/digit confusions alone decided more numbers, but "corrected" a quarter of numbers with a
 * digit misread as another into a wrong number that met its digit (simulated, see
 * docs/document-reader.md).
 */
const lookAlikes: Pool = (current, recognised) => recognised + confusionsOf(current) + (LOOK_ALIKES[current] ?? '');

/** Single substitutions from `pool` at `positions` that make `slot` pass. */
function substitutions(
  lines: string[],
  layout: Layout,
  slot: CheckSlot,
  positions: Array<{ line: number; index: number }>,
  pool: Pool,
  alternatives?: Alternatives,
): string[][] {
  const found: string[][] = [];
  for (const { line, index } of positions) {
    const current = lines[line]![index]!;
    for (const alt of new Set(pool(current, alternatives?.[line]?.[index] ?? ''))) {
      if (alt === current) continue;
      if (!allowed(kindAt(layout, line, index), alt)) continue;
      const candidate = replaceAt(lines, line, index, alt);
      if (checkPasses(candidate, slot)) found.push(candidate);
    }
  }
  return found;
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
      // The whole tail must then read as digits (and fillers): a number with other letters in it is not of that shape.
      for (let k = 0; k <= 3; k++) {
        const tail = [...field.slice(k)].map((c) => SHAPE_DIGIT[c] ?? c).join('');
        if (/^[0-9]+<*$/.test(tail)) put(field.slice(0, k) + tail);
      }
    }
  }
  return out.filter((candidate) => checkPasses(candidate, slot));
}

/** A repair decided: the lines chosen, or null; the rival repairs when several did equally well. */
interface Decision {
  chosen: string[] | null;
  tied: string[][];
}

const UNDECIDED: Decision = { chosen: null, tied: [] };

/**
 * The repair that keeps the most other checks passing with the fewest changes, when it is the
 * only one; else the rivals tied with it. A repair that puts a filler inside the document number
 * is none (no number has one there): on a card whose digit was misprinted, 'L4453373<' can be met
 * as '<4453373<', which is not the card either.
 */
function unambiguous(options: string[][], layout: Layout, current: string[]): Decision {
  const possible = [
    ...new Map(options.filter((o) => numberWellFormed(o, layout)).map((o) => [o.join('\n'), o])).values(),
  ];
  if (possible.length === 0) return UNDECIDED;
  const scored = possible
    .map((o) => ({ lines: o, score: passingCount(o, layout), changes: countDiff(current, o) }))
    .sort((a, b) => b.score - a.score || a.changes - b.changes);
  const best = scored[0]!;
  const tied = scored.filter((s) => s.score === best.score && s.changes === best.changes).map((s) => s.lines);
  return tied.length > 1 ? { chosen: null, tied } : { chosen: best.lines, tied: [] };
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
  const positions: Array<{ line: number; index: number; alt: string }> = [];
  for (const cover of slot.covers) {
    for (let i = cover.start; i < cover.end; i++) {
      const ch = lines[cover.line]![i]!;
      const alt = SHAPE_DIGIT[ch] ?? DIGIT_SHAPE[ch];
      if (alt && allowed(kindAt(layout, cover.line, i), alt)) positions.push({ line: cover.line, index: i, alt });
    }
  }
  if (positions.length < 2 || positions.length > 7) return [];
  const out: string[][] = [];
  for (let mask = 1; mask < 1 << positions.length; mask++) {
    let candidate = lines;
    positions.forEach((p, k) => {
      if (mask & (1 << k)) candidate = replaceAt(candidate, p.line, p.index, p.alt);
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
  const changed = (r: { line: number; start: number; end: number }) =>
    before[r.line]!.slice(r.start, r.end) !== after[r.line]!.slice(r.start, r.end);
  return layout.checks.some((c) => c.name !== 'composite' && !checkPasses(after, c) && c.covers.some(changed));
}

/**
 * Whether a whole-field hypothesis undoes one systematic misreading rather than several errors:
 * two or more changes, all of the same character ('ZSOOOO177' as 'ZS0000177': the recogniser read
 * the run of zeros as letters) or all to fillers (filler look-alikes in the fill).
 */
function systematic(before: string[], after: string[]): boolean {
  const from = new Set<string>();
  const to = new Set<string>();
  for (let l = 0; l < before.length; l++) {
    for (let i = 0; i < before[l]!.length; i++) {
      if (before[l]![i] === after[l]![i]) continue;
      from.add(before[l]![i]!);
      to.add(after[l]![i]!);
    }
  }
  return countDiff(before, after) >= 2 && (from.size === 1 || (to.size === 1 && to.has('<')));
}

/**
 * The repair of one failing check digit, fewest independent changes first: a hypothesis that
 * undoes one systematic misreading; single substitutions in the covered characters; the check
 * digit itself when no covered character can; then repairs of
 * several changes (other whole-field hypotheses, combinations of confusions) only when no single
 * change meets the digit. A tie ends the search: a repair with more changes than two rival single
 * ones is no likelier than they are ('PT0296868' met as 'PTOZ96B6B' when '0' to '9' and '0' to 'O'
 * each met it alone). A hypothesis that changes one character is a single substitution like any
 * other: it stands only when no other single substitution passes too ('ZS0000177' read
 * '2S0000177': reading the tail as digits, 'S' to '5', passes as '2' to 'Z' does).
 */
function repairSlot(lines: string[], layout: Layout, slot: CheckSlot, alternatives?: Alternatives): Decision {
  const hypotheses = fieldHypotheses(lines, slot);
  const oneChange = hypotheses.filter((h) => countDiff(lines, h) === 1);
  const systematicOnes = hypotheses.filter((h) => systematic(lines, h));
  if (oneChange.length === 0 && systematicOnes.length > 0) {
    const hypothesis = unambiguous(systematicOnes, layout, lines);
    if (hypothesis.chosen) return hypothesis;
  }
  const singles = [
    ...oneChange,
    ...substitutions(lines, layout, slot, suspects(lines, layout, slot), lookAlikes, alternatives),
  ];
  if (singles.length > 0) return unambiguous(singles, layout, lines);
  const digit = substitutions(lines, layout, slot, [slot.at], lookAlikes, alternatives);
  if (digit.length > 0) return unambiguous(digit, layout, lines);
  const several = hypotheses.filter((h) => countDiff(lines, h) > 1 && !systematicOnes.includes(h));
  return unambiguous([...several, ...combinations(lines, layout, slot)], layout, lines);
}

/** The fields `after` changed against `before`, as read and as repaired. */
export function changedFields(before: string[], after: string[], layout: Layout): FieldChange[] {
  const out: FieldChange[] = [];
  for (const f of layout.fields) {
    const from = (before[f.line] ?? '').slice(f.start, f.end);
    const to = (after[f.line] ?? '').slice(f.start, f.end);
    if (from !== to) out.push({ field: f.name, from, to });
  }
  return out;
}

/** The lines with every field mapped to the characters its type allows (no check digit consulted). */
export function mapFields(raw: string[], layout: Layout, alternatives?: Alternatives): string[] {
  const lines = raw.slice();
  for (const field of layout.fields) {
    const text = lines[field.line]!;
    const mapped = mapField(
      text.slice(field.start, field.end),
      field.kind,
      field.name,
      alternatives?.[field.line]?.slice(field.start, field.end) ?? [],
    );
    lines[field.line] = text.slice(0, field.start) + mapped + text.slice(field.end);
  }
  return lines;
}

export function correctMrz(raw: string[], layout: Layout, alternatives?: Alternatives): Corrected {
  const mapped = mapFields(raw, layout, alternatives);
  let lines = mapped.slice();
  const ambiguities: MrzAmbiguity[] = [];
  // Field checks first, the composite last: it covers the others and decides between ties.
  const ordered = [
    ...layout.checks.filter((c) => c.name !== 'composite'),
    ...layout.checks.filter((c) => c.name === 'composite'),
  ];
  for (const slot of ordered) {
    if (checkPasses(lines, slot)) continue;
    const { chosen, tied } = repairSlot(lines, layout, slot, alternatives);
    if (chosen && !failsWhereChanged(lines, chosen, layout)) lines = chosen;
    else if (tied.length > 1) {
      const readings = tied.map((t) => changedFields(lines, t, layout));
      // The composite tied between the very readings a field's own digit tied between: one ambiguity, not two.
      const key = (list: typeof readings) =>
        list
          .map((r) => JSON.stringify(r))
          .sort()
          .join();
      if (!ambiguities.some((a) => key(a.readings) === key(readings))) ambiguities.push({ check: slot.name, readings });
    }
  }
  // A later repair can settle an earlier tie (the composite between two readings of a date).
  const open = ambiguities.filter((a) => !checkPasses(lines, layout.checks.find((c) => c.name === a.check)!));
  return { lines, mapped, corrections: countDiff(raw, lines), ambiguities: open };
}
