import { describe, expect, it } from 'vitest';
import { readableDetails } from './details.js';

// A check's details as the console shows them to a reviewer: readable fields, not a JSON dump.

describe('check details as readable fields', () => {
  it('flattens nested data into labelled fields, joins plain lists, counts lists of records, and puts the error first', () => {
    const details = JSON.stringify({
      data: {
        document_type: 'passport',
        fields: { full_name: 'Ada Lovelace', document_number: 'X123' },
        passive: {
          live_score: 1,
          scores: { minifasnet: 0.98765 },
          evidence: [{ name: 'texture', value: 1, passed: true }],
        },
        reasons: ['glare', 'blur'],
        portrait: null,
      },
      error: 'the document expired on 2020-01-01',
    });
    expect(readableDetails(details)).toEqual([
      ['error', 'the document expired on 2020-01-01'],
      ['document type', 'passport'],
      ['fields · full name', 'Ada Lovelace'],
      ['fields · document number', 'X123'],
      ['passive · live score', '1'],
      ['passive · scores · minifasnet', '0.9877'],
      ['passive · evidence', '1 item'],
      ['reasons', 'glare, blur'],
      ['portrait', '—'],
    ]);
    expect(readableDetails(details).some(([, value]) => value.includes('{'))).toBe(false);
  });
});
