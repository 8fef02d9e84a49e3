// Evaluates the ID-document reader on the shared labelled MRZ images (outside the repository)
// and on N synthetic documents rendered in memory. Prints per-document results and summaries.
//
// node --import @swc-node/register/esm-register scripts/eval-documents.ts [--rendered 40] [--hard 45] [--aamva 24]
// [--only name] [--skip-shared] [--debug] [--perspective 0.15]
//
// --debug prints the MRZ lines read next to the expected ones (specimen data only).

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { decodeImage } from '../src/ml/image.js';
import { createDocumentReader, type DocumentReading } from '../src/ml/document/index.js';
import { renderDocument, renderSpecs, type RenderedTruth } from '../test/helpers/documents.js';
import { licenceSet, type Holder } from './aamva-set.js';
import { PHOTO_KINDS, PHOTO_LAYOUTS, photoSpecs, photographDocument } from '../test/helpers/document-photos.js';
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
const aamvaCount = Number(option('--aamva') ?? 24);
/** --hard 45: the generated hard photos (test/helpers/document-photos.ts), every layout by every kind. */
const hardCount = Number(option('--hard') ?? 45);
/** --perspective 0.15: each rendered document photographed at an angle (its far edge that share narrower). */
const perspective = option('--perspective') ? Number(option('--perspective')) : undefined;
/** --fill 0.33: each shared image is photographed small, its width a third of the frame's. */
const fill = option('--fill') ? Number(option('--fill')) : null;

/** The image laid in the middle of a plain table, `share` of the frame's width, as a JPEG. */
async function onTable(bytes: Buffer, share: number): Promise<Buffer> {
  const upright = await sharp(bytes).rotate().png().toBuffer();
  const meta = await sharp(upright).metadata();
  const width = Math.round(meta.width! / share);
  const height = Math.round(meta.height! / share);
  return sharp({ create: { width, height, channels: 3, background: { r: 92, g: 84, b: 74 } } })
    .composite([
      { input: upright, left: Math.round((width - meta.width!) / 2), top: Math.round((height - meta.height!) / 2) },
    ])
    .jpeg({ quality: 90 })
    .toBuffer();
}
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
  /** Document number, birth date and expiry all exact (the fields a verdict rests on). */
  keyFields: boolean;
  /** Reported valid (every check digit holding) with a key field wrong: wrong data a verdict would pass. */
  validWrong: boolean;
  /** Reported valid, and the number printed on the page read otherwise than the MRZ's. */
  printedNumberDisagrees: boolean;
  ms: number;
  /** CPU time of the process while reading (user + system, all threads): wall time lies when the machine is shared. */
  cpuMs: number;
}

/** Starts a wall and CPU clock; the returned function reads both in ms. */
function clocks(): () => { ms: number; cpuMs: number } {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(cpu);
    return { ms: Math.round(performance.now() - wall), cpuMs: Math.round((used.user + used.system) / 1000) };
  };
}

function report(
  name: string,
  reading: DocumentReading,
  expected: Expected | null,
  { ms, cpuMs }: { ms: number; cpuMs: number },
): Outcome {
  if (!expected) {
    const ok = reading.mrz === null;
    console.log(
      `${ok ? 'ok  ' : 'FAIL'} ${name}: no MRZ expected, ${reading.mrz ? 'MRZ reported' : 'none reported'} (${ms} ms)`,
    );
    return {
      name,
      linesExact: ok,
      allFields: ok,
      keyFields: ok,
      validWrong: false,
      printedNumberDisagrees: false,
      ms,
      cpuMs,
    };
  }
  const lines = reading.mrz?.lines ?? [];
  const linesExact = lines.length === expected.lines.length && lines.every((l, i) => l === expected.lines[i]);
  const fields = fieldResults(reading, expected);
  const wrong = Object.entries(fields)
    .filter(([, ok]) => !ok)
    .map(([k]) => k);
  const allFields = wrong.length === 0;
  const status = linesExact ? 'ok  ' : reading.mrz ? 'MISS' : 'NONE';
  console.log(
    `${status} ${name}: lines ${linesExact ? 'exact' : 'differ'}, fields ${Object.keys(fields).length - wrong.length}/${Object.keys(fields).length}` +
      `${wrong.length ? ` (wrong: ${wrong.join(', ')})` : ''}, ${reading.mrz?.valid ? 'valid' : 'not valid'}, rot ${reading.rotation} skew ${reading.skewDegrees}, side ${reading.side}, ${reading.mrz?.corrections ?? 0} corr, ${ms} ms (cpu ${cpuMs} ms)`,
  );
  if (debug && !linesExact) {
    for (let i = 0; i < Math.max(lines.length, expected.lines.length); i++)
      console.log(`      got ${lines[i] ?? '-'}\n      exp ${expected.lines[i] ?? '-'}`);
    const ambiguity = reading.mrz?.ambiguities.find((a) => a.check === 'document_number');
    console.log(`      printed number read: ${reading.visualZone?.fields.documentNumber ?? '-'}`);
    if (ambiguity)
      console.log(`      number readings: ${ambiguity.readings.map((r) => r.map((c) => c.to).join('+')).join(', ')}`);
  }
  const keyFields = !!(fields.documentNumber && fields.birthDate && fields.expirationDate);
  // What the route sends to review as number_mismatch (src/core/checks/id-document.ts).
  const printedNumberDisagrees = !!reading.mrz?.valid && reading.printedNumberConflict;
  if (printedNumberDisagrees)
    console.log(
      `      printed number ${reading.visualZone?.fields.documentNumber} conflicts with the MRZ's ${reading.mrz?.fields.documentNumber} (MRZ key fields ${keyFields ? 'right' : 'wrong'})`,
    );
  return {
    name,
    linesExact,
    allFields,
    keyFields,
    validWrong: !keyFields && !!reading.mrz?.valid,
    printedNumberDisagrees,
    ms,
    cpuMs,
  };
}

/** The q-quantile of values (nearest rank). */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

function summary(title: string, outcomes: Outcome[]): void {
  if (outcomes.length === 0) return;
  const pct = (n: number) => `${n}/${outcomes.length} (${((100 * n) / outcomes.length).toFixed(0)}%)`;
  const wall = outcomes.map((o) => o.ms);
  const cpu = outcomes.map((o) => o.cpuMs);
  console.log(`\n== ${title}`);
  console.log(`   MRZ lines exact:        ${pct(outcomes.filter((o) => o.linesExact).length)}`);
  console.log(`   every MRZ field exact:  ${pct(outcomes.filter((o) => o.allFields).length)}`);
  console.log(`   number, birth, expiry:  ${pct(outcomes.filter((o) => o.keyFields).length)}`);
  console.log(
    `   valid, yet one wrong:   ${pct(outcomes.filter((o) => o.validWrong).length)} (wrong data a verdict would pass)`,
  );
  const disagreeing = outcomes.filter((o) => o.printedNumberDisagrees);
  console.log(
    `   valid, printed number conflicts: ${disagreeing.length} (${disagreeing.filter((o) => o.validWrong).length} of them wrong, ${disagreeing.filter((o) => !o.validWrong).length} right)`,
  );
  console.log(`   time per document:      median ${quantile(wall, 0.5)} ms, p95 ${quantile(wall, 0.95)} ms`);
  console.log(`   CPU per document:       median ${quantile(cpu, 0.5)} ms, p95 ${quantile(cpu, 0.95)} ms`);
}

interface LicenceOutcome {
  name: string;
  decoded: boolean;
  right: number;
  total: number;
  ms: number;
  cpuMs: number;
}

/** Every field the barcode carries, against the fictional holder it was made from. */
function licenceFields(reading: DocumentReading, h: Holder): Record<string, boolean> {
  const l = reading.barcode?.licence;
  return {
    familyName: l?.familyName === h.familyName,
    givenNames: l?.givenNames === [h.givenNames, h.middleName].filter(Boolean).join(' '),
    number: l?.number === h.number,
    birthDate: l?.birthDate === h.birthDate,
    issueDate: l?.issueDate === h.issueDate,
    expiryDate: l?.expiryDate === h.expiryDate,
    sex: l?.sex === h.sex,
    street: l?.address.street === h.street,
    city: l?.address.city === h.city,
    jurisdiction: l?.address.jurisdiction === h.jurisdiction,
    postalCode: l?.address.postalCode === h.postalCode,
    country: l?.country === h.country,
    documentType: l?.documentType === h.type,
  };
}

function reportLicence(
  name: string,
  reading: DocumentReading,
  holder: Holder,
  { ms, cpuMs }: { ms: number; cpuMs: number },
): LicenceOutcome {
  const fields = licenceFields(reading, holder);
  const wrong = Object.entries(fields)
    .filter(([, ok]) => !ok)
    .map(([k]) => k);
  const decoded = !!reading.barcode?.licence;
  const total = Object.keys(fields).length;
  const agreement = Object.entries(reading.barcodeVisualAgreement)
    .map(([k, ok]) => `${k}${ok ? '' : '!'}`)
    .join(' ');
  console.log(
    `${!decoded ? 'NONE' : wrong.length ? 'MISS' : 'ok  '} ${name}: fields ${total - wrong.length}/${total}${wrong.length ? ` (wrong: ${wrong.join(', ')})` : ''}, front agrees on [${agreement}], ${ms} ms (cpu ${cpuMs} ms)`,
  );
  return { name, decoded, right: total - wrong.length, total, ms, cpuMs };
}

function licenceSummary(outcomes: LicenceOutcome[]): void {
  if (outcomes.length === 0) return;
  const wall = outcomes.map((o) => o.ms);
  const cpu = outcomes.map((o) => o.cpuMs);
  const decoded = outcomes.filter((o) => o.decoded);
  console.log(`\n== AAMVA licence set (generated, photographed synthetically)`);
  console.log(`   barcode decoded:                ${decoded.length}/${outcomes.length}`);
  console.log(
    `   every field exact (of decoded): ${decoded.filter((o) => o.right === o.total).length}/${decoded.length}`,
  );
  console.log(
    `   fields right (all samples):     ${outcomes.reduce((s, o) => s + o.right, 0)}/${outcomes.reduce((s, o) => s + o.total, 0)}`,
  );
  console.log(`   time per licence (front+back):  median ${quantile(wall, 0.5)} ms, p95 ${quantile(wall, 0.95)} ms`);
  console.log(`   CPU per licence (front+back):   median ${quantile(cpu, 0.5)} ms, p95 ${quantile(cpu, 0.95)} ms`);
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

const rssBefore = process.memoryUsage().rss;
const reader = await createDocumentReader();
// The engine's own memory: what loading the models added to the process.
console.log(`OCR engine loaded: +${Math.round((process.memoryUsage().rss - rssBefore) / 1048576)} MB RSS`);
try {
  if (!flag('--skip-shared')) {
    if (!existsSync(sharedDir)) {
      console.log(`shared set skipped: ${sharedDir} is absent`);
    } else {
      const labels = readLabels(sharedDir);
      const files = readdirSync(sharedDir)
        .filter((f) => labels.has(f) && (!only || f.includes(only)))
        .sort();
      const outcomes: Outcome[] = [];
      for (const file of files) {
        const image = await decodeImage(
          fill ? await onTable(readFileSync(`${sharedDir}${file}`), fill) : readFileSync(`${sharedDir}${file}`),
        );
        const stop = clocks();
        const reading = await reader.read(image);
        outcomes.push(report(file, reading, expectedFromLabel(labels.get(file)!), stop()));
      }
      summary(
        'shared set (passporteye-mrz)',
        outcomes.filter((o) => expectedFromLabel(labels.get(o.name)!)),
      );
      summary(
        'shared set, no-MRZ images (correct = no MRZ reported)',
        outcomes.filter((o) => !expectedFromLabel(labels.get(o.name)!)),
      );
    }
  }
  if (renderedCount > 0) {
    const outcomes: Outcome[] = [];
    for (const spec of renderSpecs(renderedCount)) {
      if (only && !spec.name.includes(only)) continue;
      const doc = await renderDocument(perspective ? { ...spec, perspective } : spec);
      const front = await decodeImage(doc.bytes);
      const back = doc.back ? await decodeImage(doc.back) : undefined;
      const stop = clocks();
      const reading = await reader.read(front, back);
      outcomes.push(report(spec.name, reading, expectedFromTruth(doc.truth), stop()));
    }
    summary(
      perspective ? `rendered set, photographed at an angle (far edge ${perspective * 100}% narrower)` : 'rendered set',
      outcomes,
    );
  }
  if (hardCount > 0) {
    const outcomes: Array<Outcome & { kind: string; layout: string }> = [];
    for (const spec of photoSpecs(hardCount)) {
      if (only && !spec.name.includes(only)) continue;
      const photo = await photographDocument(spec);
      // Timed from the bytes: decoding a 12 MP photo is part of the cost.
      const stop = clocks();
      const front = await decodeImage(photo.front);
      const back = photo.back ? await decodeImage(photo.back) : undefined;
      const reading = await reader.read(front, back);
      const size = `${spec.width}x${spec.height} ${Math.round((photo.front.length + (photo.back?.length ?? 0)) / 1024)} KB`;
      outcomes.push({
        ...report(`${spec.name} (${size})`, reading, expectedFromTruth(photo.truth), stop()),
        kind: spec.kind,
        layout: spec.layout,
      });
    }
    summary('generated hard photos (every kind)', outcomes);
    console.log('\n   number, birth, expiry exact by kind / by layout:');
    for (const group of [...PHOTO_KINDS, ...PHOTO_LAYOUTS]) {
      const some = outcomes.filter((o) => o.kind === group || o.layout === group);
      if (some.length)
        console.log(
          `     ${group.padEnd(12)} ${some.filter((o) => o.keyFields).length}/${some.length}, valid yet wrong ${some.filter((o) => o.validWrong).length}`,
        );
    }
  }
  if (aamvaCount > 0) {
    const outcomes: LicenceOutcome[] = [];
    for (const sample of await licenceSet(aamvaCount)) {
      if (only && !sample.name.includes(only)) continue;
      const front = await decodeImage(sample.front);
      const back = await decodeImage(sample.back);
      const stop = clocks();
      const reading = await reader.read(front, back);
      outcomes.push(reportLicence(sample.name, reading, sample.holder, stop()));
    }
    licenceSummary(outcomes);
  }
  const rss = process.memoryUsage().rss;
  console.log(`\nprocess RSS after the run: ${Math.round(rss / 1048576)} MB`);
} finally {
  await reader.close();
}
