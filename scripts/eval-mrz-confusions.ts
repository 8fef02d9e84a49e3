// What the MRZ correction makes of one OCR error in a document number, without OCR: synthetic
// TD1 or TD3 numbers (one or two letters then digits, or letters and digits mixed), each read
// with one letter/digit confusion a check digit can see (B/8, O/0/D/Q, I/1, L/I, S/5, Z/2), or
// with one digit read as another (8/3/6/0/5, 5/6, 0/9, 1/7). Counts, per kind: corrected,
// listed as an ambiguity, left failing, and "corrected" into a wrong number that meets its
// check digit (valid, yet wrong).
//
//   node --import @swc-node/register/esm-register scripts/eval-mrz-confusions.ts [--format TD1] [--count 3000]

import { buildReading } from '../src/ml/document/mrz.js';
import { LAYOUTS } from '../src/ml/document/mrz-format.js';
import { mrzLinesFor, random } from '../test/helpers/documents.js';

const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const format = (option('--format') ?? 'TD1') as 'TD1' | 'TD3';
const count = Number(option('--count') ?? 3000);

const ERRORS: Record<string, Record<string, string>> = {
  'letter/digit': {
    B: '8',
    '8': 'B',
    O: '0DQ',
    '0': 'ODQ',
    D: '0OQ',
    Q: '0OD',
    I: '1L',
    '1': 'I',
    L: 'I',
    S: '5',
    '5': 'S',
    Z: '2',
    '2': 'Z',
  },
  'digit/digit': { '8': '3605', '3': '8', '5': '68', '6': '58', '0': '98', '9': '0', '1': '7', '7': '1' },
};
const LETTERS = 'ABCDEFGHJKLMNPRSTUVWXYZ';
const rnd = random(7);
const pick = (s: string) => s[Math.floor(rnd() * s.length)]!;
const at = format === 'TD1' ? { line: 0, start: 5 } : { line: 1, start: 0 };
const counts: Record<string, Record<string, number>> = {};

for (let n = 0; n < count; n++) {
  const mixed = rnd() < 0.4;
  let number = '';
  for (let i = 0; i < 9; i++)
    number += mixed ? (rnd() < 0.35 ? pick(LETTERS) : pick('0123456789')) : i < 2 ? pick(LETTERS) : pick('0123456789');
  const holder = {
    documentCode: format === 'TD1' ? 'ID' : 'P',
    issuingState: 'UTO',
    documentNumber: number,
    nationality: 'UTO',
    surname: 'ERIKSSON',
    givenNames: 'ANNA',
    birthDate: '1974-08-12',
    expirationDate: '2030-04-15',
    sex: 'F' as const,
  };
  const lines = mrzLinesFor(format, holder);
  for (const [kind, table] of Object.entries(ERRORS)) {
    const positions = [...number].flatMap((c, i) => (table[c] ? [i] : []));
    if (positions.length === 0) continue;
    const p = positions[Math.floor(rnd() * positions.length)]!;
    const misread = number.slice(0, p) + pick(table[number[p]!]!) + number.slice(p + 1);
    const read = lines.map((l, k) => (k === at.line ? l.slice(0, at.start) + misread + l.slice(at.start + 9) : l));
    const reading = buildReading(read, LAYOUTS[format]);
    const got = reading.lines[at.line]!.slice(at.start, at.start + 9);
    const outcome =
      got === number
        ? 'corrected'
        : reading.valid
          ? 'valid, yet wrong'
          : reading.ambiguities.length > 0
            ? 'ambiguous, listed'
            : 'failing';
    counts[kind] ??= {};
    counts[kind]![outcome] = (counts[kind]![outcome] ?? 0) + 1;
  }
}

for (const [kind, outcomes] of Object.entries(counts)) {
  const total = Object.values(outcomes).reduce((a, b) => a + b, 0);
  console.log(`${format}, one ${kind} error in ${total} numbers:`);
  for (const [outcome, n] of Object.entries(outcomes).sort((a, b) => b[1] - a[1]))
    console.log(`  ${outcome.padEnd(18)} ${n} (${Math.round((100 * n) / total)}%)`);
}
