// AAMVA DL/ID card design standard, versions 1 to 10: the PDF417 on the back of US and Canadian
// driver's licences and ID cards. A file is a header, a table of subfile designators (type,
// offset, length) and the subfiles; a subfile ("DL", "ID", or a jurisdiction's "Zx") is a list
// of data elements, each a 3-letter id and its value, separated by line feeds.
// Pure functions: text in, a licence or a reason out.

export interface AamvaAddress {
  street: string;
  city: string;
  jurisdiction: string;
  postalCode: string;
}

export interface AamvaLicence {
  version: number;
  /** Issuer identification number: 6 digits, 636xxx for North American jurisdictions. */
  iin: string;
  /** DL (driver's licence) or ID (identification card), from the first subfile. */
  documentType: 'DL' | 'ID';
  familyName: string;
  givenNames: string;
  /** Document / customer number (DAQ). */
  number: string;
  /** YYYY-MM-DD */
  birthDate: string | null;
  issueDate: string | null;
  expiryDate: string | null;
  sex: 'M' | 'F' | 'X' | null;
  address: AamvaAddress;
  /** USA or CAN (DCG; inferred from the jurisdiction on versions without it). */
  country: 'USA' | 'CAN' | null;
  /** Every element of the DL/ID subfile, by id. */
  elements: Record<string, string>;
}

export type AamvaProblem = 'not_aamva' | 'aamva_header_invalid' | 'aamva_subfile_invalid' | 'aamva_fields_missing';

export class AamvaError extends Error {
  constructor(
    readonly problem: AamvaProblem,
    message: string,
  ) {
    super(message);
    this.name = 'AamvaError';
  }
}

const CANADIAN_JURISDICTIONS = new Set(['AB', 'BC', 'MB', 'NB', 'NL', 'NS', 'NT', 'NU', 'ON', 'PE', 'QC', 'SK', 'YT']);
/** Header up to the number of entries: "@", data element separator, record separator, segment terminator, file type. */
const HEADER = /^@(.)(.)(.)(ANSI |AAMVA)(\d{6})(\d{2})/s;

export interface AamvaHeader {
  version: number;
  iin: string;
  jurisdictionVersion: number | null;
  entries: number;
  /** Where the subfile designators start. */
  designatorsAt: number;
  separator: string;
  terminator: string;
}

/** Does this barcode text claim to be an AAMVA DL/ID file at all? */
export function looksLikeAamva(text: string): boolean {
  return text.startsWith('@') && /ANSI |AAMVA/.test(text.slice(0, 24));
}

/** The header: compliance indicator, separators, file type, IIN, version, jurisdiction version, entry count. */
export function parseHeader(text: string): AamvaHeader {
  const m = HEADER.exec(text);
  if (!m) throw new AamvaError('aamva_header_invalid', 'the barcode header is not a valid AAMVA DL/ID header');
  const version = Number(m[6]);
  if (version < 1 || version > 10)
    throw new AamvaError('aamva_header_invalid', `AAMVA version ${m[6]} is not one of 01 to 10`);
  let at = m[0].length;
  // Version 1 has no jurisdiction version: the entry count follows the version directly.
  let jurisdictionVersion: number | null = null;
  if (version >= 2) {
    if (!/^\d{2}/.test(text.slice(at, at + 2)))
      throw new AamvaError('aamva_header_invalid', 'the jurisdiction version is missing from the header');
    jurisdictionVersion = Number(text.slice(at, at + 2));
    at += 2;
  }
  const count = text.slice(at, at + 2);
  if (!/^\d{2}$/.test(count) || Number(count) < 1)
    throw new AamvaError('aamva_header_invalid', 'the number of entries is missing from the header');
  return {
    version,
    iin: m[5]!,
    jurisdictionVersion,
    entries: Number(count),
    designatorsAt: at + 2,
    separator: m[1]!,
    terminator: m[3]!,
  };
}

interface Designator {
  type: string;
  offset: number;
  length: number;
}

/** The subfile designators: 2-character type, 4-digit offset, 4-digit length each. */
export function parseDesignators(text: string, header: AamvaHeader): Designator[] {
  const out: Designator[] = [];
  for (let k = 0; k < header.entries; k++) {
    const at = header.designatorsAt + k * 10;
    const raw = text.slice(at, at + 10);
    const m = /^([A-Z]{2})(\d{4})(\d{4})$/.exec(raw);
    if (!m) throw new AamvaError('aamva_header_invalid', `subfile designator ${k + 1} is malformed`);
    out.push({ type: m[1]!, offset: Number(m[2]), length: Number(m[3]) });
  }
  return out;
}

/**
 * The elements of one subfile. Offsets are where the subfile type starts; many issuers count
 * them a few bytes off, so when the type is not found at the offset it is looked for nearby.
 */
export function parseSubfile(text: string, designator: Designator, header: AamvaHeader): Record<string, string> {
  let start = designator.offset;
  if (text.slice(start, start + 2) !== designator.type) {
    const near = text.indexOf(designator.type, Math.max(0, start - 8));
    if (near < 0 || Math.abs(near - start) > 8)
      throw new AamvaError('aamva_subfile_invalid', `subfile ${designator.type} is not at its offset`);
    start = near;
  }
  const body = text.slice(start + 2, start + designator.length);
  const elements: Record<string, string> = {};
  for (const part of body.split(
    new RegExp(`[${escapeClass(header.separator)}\\n${escapeClass(header.terminator)}\\r]`),
  )) {
    const m = /^([A-Z]{3})(.*)$/s.exec(part.replace(/^\s+/, ''));
    if (m && elements[m[1]!] === undefined) elements[m[1]!] = m[2]!.trim();
  }
  return elements;
}

const escapeClass = (c: string) => c.replace(/[\]\\^-]/g, '\\$&');

/** A date as the standard writes it: MMDDCCYY in the US, CCYYMMDD in Canada (and in version 1). */
export function aamvaDate(value: string | undefined, country: 'USA' | 'CAN' | null, version: number): string | null {
  if (!value || !/^\d{8}$/.test(value)) return null;
  const yearFirst = { y: value.slice(0, 4), m: value.slice(4, 6), d: value.slice(6, 8) };
  const monthFirst = { y: value.slice(4, 8), m: value.slice(0, 2), d: value.slice(2, 4) };
  const valid = (p: { y: string; m: string; d: string }) => {
    const date = new Date(Date.UTC(Number(p.y), Number(p.m) - 1, Number(p.d)));
    return (
      Number(p.y) >= 1900 &&
      Number(p.y) <= 2100 &&
      date.getUTCMonth() === Number(p.m) - 1 &&
      date.getUTCDate() === Number(p.d)
    );
  };
  const preferred = country === 'CAN' || version === 1 ? [yearFirst, monthFirst] : [monthFirst, yearFirst];
  const p = preferred.find(valid);
  return p ? `${p.y}-${p.m}-${p.d}` : null;
}

/** DBC: 1 male, 2 female, 9 not specified (version 1 wrote M or F). */
export function aamvaSex(value: string | undefined): 'M' | 'F' | 'X' | null {
  switch ((value ?? '').trim().toUpperCase()) {
    case '1':
    case 'M':
      return 'M';
    case '2':
    case 'F':
      return 'F';
    case '9':
    case 'X':
      return 'X';
    default:
      return null;
  }
}

const clean = (s: string | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();

/**
 * Names changed across versions: v1 wrote DAA "FAMILY,GIVEN,MIDDLE" (or DAB/DAC); v2-3 DCS and
 * DCT "GIVEN,MIDDLE"; v4 on DCS, DAC and DAD.
 */
export function aamvaNames(e: Record<string, string>): { family: string; given: string } {
  const family = clean(e.DCS ?? e.DAB);
  if (family) {
    const given = e.DAC !== undefined ? [e.DAC, e.DAD] : (e.DCT ?? '').split(/[,$]/);
    return { family, given: clean(given.filter((g) => g && !/^(NONE|UNAVL)$/i.test(g.trim())).join(' ')) };
  }
  const full = (e.DAA ?? '').split(/[,$]/).map((p) => p.trim());
  return { family: clean(full[0]), given: clean(full.slice(1).filter(Boolean).join(' ')) };
}

/** Postal codes are padded with zeros or spaces to 11 characters: keep the meaningful part. */
function postalCode(value: string | undefined): string {
  const v = clean(value);
  const zip = /^(\d{5})(\d{4})?/.exec(v);
  if (zip) return zip[2] && zip[2] !== '0000' ? `${zip[1]}-${zip[2]}` : zip[1]!;
  return v;
}

function countryOf(e: Record<string, string>, jurisdiction: string): 'USA' | 'CAN' | null {
  const dcg = clean(e.DCG).toUpperCase();
  if (dcg === 'USA' || dcg === 'CAN') return dcg;
  if (CANADIAN_JURISDICTIONS.has(jurisdiction)) return 'CAN';
  return jurisdiction ? 'USA' : null;
}

/** Parses an AAMVA DL/ID barcode text; throws AamvaError with the reason when it is not one or is broken. */
export function parseAamva(text: string): AamvaLicence {
  if (!looksLikeAamva(text)) throw new AamvaError('not_aamva', 'the barcode does not hold an AAMVA DL/ID file');
  const header = parseHeader(text);
  const designators = parseDesignators(text, header);
  const main = designators.find((d) => d.type === 'DL' || d.type === 'ID');
  if (!main) throw new AamvaError('aamva_subfile_invalid', 'no DL or ID subfile');
  const e = parseSubfile(text, main, header);
  const jurisdiction = clean(e.DAJ).toUpperCase();
  const country = countryOf(e, jurisdiction);
  const { family, given } = aamvaNames(e);
  const number = clean(e.DAQ);
  if (!family || !number)
    throw new AamvaError('aamva_fields_missing', 'the DL/ID subfile lacks the name or the document number');
  return {
    version: header.version,
    iin: header.iin,
    documentType: main.type as 'DL' | 'ID',
    familyName: family,
    givenNames: given,
    number,
    birthDate: aamvaDate(e.DBB, country, header.version),
    issueDate: aamvaDate(e.DBD, country, header.version),
    expiryDate: aamvaDate(e.DBA, country, header.version),
    sex: aamvaSex(e.DBC),
    address: {
      street: clean([e.DAG, e.DAH].filter(Boolean).join(' ')),
      city: clean(e.DAI),
      jurisdiction,
      postalCode: postalCode(e.DAK),
    },
    country,
    elements: e,
  };
}
