// Evaluates the ID-document reader on the shared labelled MRZ images (outside the repository)
// and on N synthetic documents rendered in memory. Prints per-document results and summaries.
//
//   node --import @swc-node/register/esm-register scripts/eval-documents.ts [--rendered 40] [--only name] [--skip-shared] [--debug]
//
// --debug prints the MRZ lines read next to the expected ones (specimen data only).

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { decodeImage } from '../src/ml/image.js';
import { createTesseractDocumentReader, type DocumentReading } from '../src/ml/document/index.js';
import { renderDocument, renderSpecs, type RenderedTruth } from '../test/helpers/documents.js';
import { labelledLines, readLabels, type LabelRow } from '../test/helpers/documents-labels.js';

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const option = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const debug = flag('--debug');
const only = option('--only');
const renderedCount = Number(option('--rendered') ?? 40);
const sharedDir = fileURLToPath(new URL('../../shared/data/passporteye-mrz/', import.meta.url));

const strip = (s: string | null | undefined) => (s ?? '').replace(/</g, ' ').replace(/\s+/g, ' ').trim();
const yymmdd = (iso: string | null) => (iso ? iso.slice(2).replace(/-/g, '') : '');

interface Expected {
  lines: string[];
  fields: Record<string, string>;
}

function fieldResults(reading: DocumentReading, expected: Expected): Record<string, boolean> {
  const f = reading.mrz?.fields;
  const got: Record<string, string> = {
    documentCode: strip(f?.documentCode),
    issuingState: strip(f?.issuingState),
    documentNumber: strip(f?.documentNumber),
    nationality: strip(f?.nationality),
    surname: strip(f?.surname),
    givenNames: strip(f?.givenNames),
    birthDate: yymmdd(f?.birthDate ?? null),
    expirationDate: yymmdd(f?.expirationDate ?? null),
    sex: f?.sex ?? '',
  };
  return Object.fromEntries(Object.entries(expected.fields).map(([k, v]) => [k, got[k] === v]));
}

interface Outcome {
  name: string;
  linesExact: boolean;
  allFields: boolean;
  ms: number;
}

function report(name: string, reading: DocumentReading, expected: Expected | null, ms: number): Outcome {
  if (!expected) {
    const ok = reading.mrz === null;
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}: no MRZ expected, ${reading.mrz ? 'MRZ reported' : 'none reported'} (${ms} ms)`);
    return { name, linesExact: ok, allFields: ok, ms };
  }
  const lines = reading.mrz?.lines ?? [];
  const linesExact = lines.length === expected.lines.length && lines.every((l, i) => l === expected.lines[i]);
  const fields = fieldResults(reading, expected);
  const wrong = Object.entries(fields).filter(([, ok]) => !ok).map(([k]) => k);
  const allFields = wrong.length === 0;
  const status = linesExact ? 'ok  ' : reading.mrz ? 'MISS' : 'NONE';
  console.log(
    `${status} ${name}: lines ${linesExact ? 'exact' : 'differ'}, fields ${Object.keys(fields).length - wrong.length}/${Object.keys(fields).length}` +
      `${wrong.length ? ` (wrong: ${wrong.join(', ')})` : ''}, rot ${reading.rotation} skew ${reading.skewDegrees}, side ${reading.side}, ${reading.mrz?.corrections ?? 0} corr, ${ms} ms`,
  );
  if (debug && !linesExact) {
    for (let i = 0; i < Math.max(lines.length, expected.lines.length); i++) console.log(`      got ${lines[i] ?? '-'}\n      exp ${expected.lines[i] ?? '-'}`);
  }
  return { name, linesExact, allFields, ms };
}

function summary(title: string, outcomes: Outcome[]): void {
  if (outcomes.length === 0) return;
  const times = outcomes.map((o) => o.ms).sort((a, b) => a - b);
  const pct = (n: number) => `${n}/${outcomes.length} (${((100 * n) / outcomes.length).toFixed(0)}%)`;
  const at = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]!;
  console.log(`\n== ${title}`);
  console.log(`   MRZ lines exact:        ${pct(outcomes.filter((o) => o.linesExact).length)}`);
  console.log(`   every MRZ field exact:  ${pct(outcomes.filter((o) => o.allFields).length)}`);
  console.log(`   time per document:      median ${at(0.5)} ms, p95 ${at(0.95)} ms`);
}

function expectedFromLabel(row: LabelRow): Expected | null {
  if (row.kind !== 'document_with_mrz') return null;
  return {
    lines: labelledLines(row),
    fields: {
      documentCode: strip(row.doc_code),
      issuingState: strip(row.issuing_country),
      documentNumber: strip(row.document_number),
      nationality: strip(row.nationality),
      surname: strip(row.surname),
      givenNames: strip(row.given_names),
      birthDate: row.birth_date_yymmdd ?? '',
      expirationDate: row.expiry_date_yymmdd ?? '',
      sex: row.sex === '<' ? 'X' : (row.sex ?? ''),
    },
  };
}

function expectedFromTruth(truth: RenderedTruth): Expected {
  return {
    lines: truth.mrzLines,
    fields: {
      documentCode: strip(truth.documentCode),
      issuingState: truth.issuingState,
      documentNumber: truth.documentNumber,
      nationality: truth.nationality,
      surname: truth.surname,
      givenNames: truth.givenNames,
      birthDate: yymmdd(truth.birthDate),
      expirationDate: yymmdd(truth.expirationDate),
      sex: truth.sex,
    },
  };
}

const reader = await createTesseractDocumentReader();
try {
  if (!flag('--skip-shared')) {
    if (!existsSync(sharedDir)) {
      console.log(`shared set skipped: ${sharedDir} is absent`);
    } else {
      const labels = readLabels(sharedDir);
      const files = readdirSync(sharedDir).filter((f) => labels.has(f) && (!only || f.includes(only))).sort();
      const outcomes: Outcome[] = [];
      for (const file of files) {
        const image = await decodeImage(readFileSync(`${sharedDir}${file}`));
        const started = performance.now();
        const reading = await reader.read(image);
        outcomes.push(report(file, reading, expectedFromLabel(labels.get(file)!), Math.round(performance.now() - started)));
      }
      summary('shared set (passporteye-mrz)', outcomes.filter((o) => expectedFromLabel(labels.get(o.name)!)));
      summary('shared set, no-MRZ images (correct = no MRZ reported)', outcomes.filter((o) => !expectedFromLabel(labels.get(o.name)!)));
    }
  }
  if (renderedCount > 0) {
    const outcomes: Outcome[] = [];
    for (const spec of renderSpecs(renderedCount)) {
      if (only && !spec.name.includes(only)) continue;
      const doc = await renderDocument(spec);
      const front = await decodeImage(doc.bytes);
      const back = doc.back ? await decodeImage(doc.back) : undefined;
      const started = performance.now();
      const reading = await reader.read(front, back);
      outcomes.push(report(spec.name, reading, expectedFromTruth(doc.truth), Math.round(performance.now() - started)));
    }
    summary('rendered set', outcomes);
  }
} finally {
  await reader.close();
}
