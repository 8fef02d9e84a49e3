import { describe, expect, it } from 'vitest';
import { aamvaDate, AamvaError, aamvaNames, parseAamva, parseHeader } from '../../src/ml/document/aamva.js';
import { encodeAamva, makeHolder } from '../../scripts/aamva-set.js';

// The AAMVA DL/ID parser alone: pure functions on barcode text, milliseconds.

const US_V8 =
  '@\n\x1e\rANSI 636014080102DL00410264ZC03050015DLDAQI1234568\nDCSSAMPLE\nDDEN\nDACALEXANDER\nDDFN\nDADJOSEPH\nDDGN\nDCAC\nDCBNONE\nDCDNONE\nDBD08312018\nDBB08311977\nDBA08312023\nDBC1\nDAU070 IN\nDAYBRO\nDAG2570 24TH STREET\nDAISACRAMENTO\nDAJCA\nDAK958160000  \nDCF08/31/201863829/AAFD/23\nDCGUSA\nDCK18243I12345680401\nDDB08292017\r\nZCZCAFICTIONAL\r';

function problemOf(text: string): string | undefined {
  try {
    parseAamva(text);
    return undefined;
  } catch (error) {
    return error instanceof AamvaError ? error.problem : 'other';
  }
}

describe('AAMVA DL/ID parser', () => {
  it('reads a version 8 US licence: names, MMDDCCYY dates, sex code, address, country', () => {
    const licence = parseAamva(US_V8);
    expect(licence).toMatchObject({
      version: 8,
      iin: '636014',
      documentType: 'DL',
      familyName: 'SAMPLE',
      givenNames: 'ALEXANDER JOSEPH',
      number: 'I1234568',
      birthDate: '1977-08-31',
      issueDate: '2018-08-31',
      expiryDate: '2023-08-31',
      sex: 'M',
      country: 'USA',
      address: { street: '2570 24TH STREET', city: 'SACRAMENTO', jurisdiction: 'CA', postalCode: '95816' },
    });
    expect(licence.elements.DCF).toBe('08/31/201863829/AAFD/23');
  });

  it('reads version 1 (no jurisdiction version, DAA full name, CCYYMMDD, M/F)', () => {
    const holder = makeHolder(1, { version: 1, country: 'USA', jurisdiction: 'NY', iin: '636001', middleName: 'LEE' });
    const licence = parseAamva(encodeAamva(holder));
    expect(parseHeader(encodeAamva(holder)).jurisdictionVersion).toBeNull();
    expect(licence).toMatchObject({
      version: 1,
      familyName: holder.familyName,
      givenNames: `${holder.givenNames} LEE`,
      birthDate: holder.birthDate,
      expiryDate: holder.expiryDate,
      sex: holder.sex,
    });
  });

  it('reads versions 2 and 3 given names from DCT, and Canadian CCYYMMDD dates', () => {
    const holder = makeHolder(2, {
      version: 3,
      country: 'CAN',
      jurisdiction: 'ON',
      iin: '636012',
      postalCode: 'K1A 0B1',
      middleName: 'MARIE',
    });
    const licence = parseAamva(encodeAamva(holder));
    expect(licence).toMatchObject({
      country: 'CAN',
      givenNames: `${holder.givenNames} MARIE`,
      birthDate: holder.birthDate,
      issueDate: holder.issueDate,
      address: { postalCode: 'K1A 0B1' },
    });
  });

  it('reads every version 1 to 10 of generated holders exactly', () => {
    for (let version = 1; version <= 10; version++) {
      const holder = makeHolder(100 + version, { version });
      const licence = parseAamva(encodeAamva(holder));
      expect(licence.version).toBe(version);
      expect([
        licence.familyName,
        licence.number,
        licence.birthDate,
        licence.expiryDate,
        licence.issueDate,
        licence.sex,
      ]).toEqual([holder.familyName, holder.number, holder.birthDate, holder.expiryDate, holder.issueDate, holder.sex]);
    }
  });

  it('finds a subfile a few bytes away from its stated offset (issuers miscount)', () => {
    expect(parseAamva(US_V8.replace('DL00410264', 'DL00440264')).number).toBe('I1234568');
  });

  it('names what is wrong: not AAMVA, a broken header, a missing subfile or fields', () => {
    expect(problemOf('https://example.com/not-a-licence')).toBe('not_aamva');
    expect(problemOf('plain text in a PDF417')).toBe('not_aamva');
    expect(problemOf('@\n\x1e\rANSI 6360')).toBe('aamva_header_invalid');
    expect(problemOf(US_V8.replace('636014080102', '636014990102'))).toBe('aamva_header_invalid');
    expect(problemOf(US_V8.replace('DL00410264', 'D#00410288'))).toBe('aamva_header_invalid');
    expect(problemOf(US_V8.replace('DL00410264', 'ZX00410288'))).toBe('aamva_subfile_invalid');
    expect(problemOf(US_V8.replace('DAQI1234568\n', '').replace('DCSSAMPLE\n', ''))).toBe('aamva_fields_missing');
  });

  it('reads dates in the issuer order and refuses impossible ones', () => {
    expect(aamvaDate('02291996', 'USA', 8)).toBe('1996-02-29');
    expect(aamvaDate('19960229', 'CAN', 8)).toBe('1996-02-29');
    expect(aamvaDate('02301996', 'USA', 8)).toBeNull();
    expect(aamvaDate('0229199', 'USA', 8)).toBeNull();
  });

  it('drops NONE and unavailable middle names', () => {
    expect(aamvaNames({ DCS: 'DOE', DAC: 'JAMIE', DAD: 'NONE' })).toEqual({ family: 'DOE', given: 'JAMIE' });
    expect(aamvaNames({ DAA: 'DOE,JAMIE,LEE' })).toEqual({ family: 'DOE', given: 'JAMIE LEE' });
  });
});
