import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DomainError } from '../../src/core/errors.js';
import { closestField, refuseUnknownFields, unknownFields } from '../../src/core/validation.js';

// The strict-input rule on its own (milliseconds, no database): which body fields a schema does
// not declare, and which declared field a near miss meant. test/strict-input.test.ts goes through HTTP.

const session = z.object({
  workflow_id: z.string(),
  redirect_url: z.string().optional(),
  vendor_data: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

describe('unknownFields', () => {
  it('names each field the schema does not declare, at any depth, with the declared ones beside it', () => {
    const roster = z.object({
      members: z.array(z.object({ email: z.string(), first_name: z.string().optional() })).min(1),
      notify: z.boolean().default(true),
    });
    expect(
      unknownFields(roster, { members: [{ email: 'a@b.c' }, { email: 'd@e.f', firstName: 'D' }], notfy: false }),
    ).toEqual([
      { path: 'members[1].firstName', known: ['email', 'first_name'], suggestion: 'first_name' },
      { path: 'notfy', known: ['members', 'notify'], suggestion: 'notify' },
    ]);
  });

  it('takes any key where the schema does (records, loose objects, unknown), and reads through wrappers and refinements', () => {
    expect(unknownFields(session, { workflow_id: 'wf', metadata: { anything: { goes: 1 } } })).toEqual([]);
    expect(unknownFields(z.looseObject({ a: z.string() }), { a: 'x', b: 1 })).toEqual([]);
    const refined = session
      .superRefine(() => undefined)
      .optional()
      .default({ workflow_id: 'x' });
    expect(unknownFields(refined, { workflow_id: 'wf', redirect_uri: 'https://x' }).map((field) => field.path)).toEqual(
      ['redirect_uri'],
    );
    expect(
      unknownFields(
        z.preprocess((value) => value, session),
        { workflow: 'wf' },
      ).map((field) => field.suggestion),
    ).toEqual(['workflow_id']);
  });

  it('knows the fields of every alternative of a union, and leaves what is not an object alone', () => {
    const either = z.union([z.object({ image: z.string() }), z.object({ frames: z.array(z.string()) })]);
    expect(unknownFields(either, { frames: ['a'], image: 'b' })).toEqual([]);
    expect(unknownFields(either, { fames: ['a'] }).map((field) => field.suggestion)).toEqual(['frames']);
    expect(unknownFields(session, 'not an object')).toEqual([]);
    expect(unknownFields(z.object({ image: z.instanceof(Buffer) }), { image: Buffer.from('x') })).toEqual([]);
  });
});

describe('closestField', () => {
  const known = [
    'workflow_id',
    'redirect_url',
    'callback',
    'vendor_data',
    'ttl_seconds',
    'metadata',
    'svc_access_token',
  ];

  it('finds a typing slip, another spelling, and a name one word short', () => {
    expect(closestField('redirect_uri', known)).toBe('redirect_url');
    expect(closestField('calback', known)).toBe('callback');
    expect(closestField('redirectUrl', known)).toBe('redirect_url');
    expect(closestField('Vendor-Data', known)).toBe('vendor_data');
    expect(closestField('workflow', known)).toBe('workflow_id');
    expect(closestField('ttl', known)).toBe('ttl_seconds');
  });

  it('suggests nothing for a name that is not close to any', () => {
    expect(closestField('email', known)).toBeUndefined();
    expect(closestField('id', known)).toBeUndefined();
    expect(closestField('xyz', ['abc'])).toBeUndefined();
  });
});

describe('refuseUnknownFields', () => {
  it('is 400 validation_error naming every unknown field in the message and in data.errors', () => {
    const refusal = (() => {
      try {
        refuseUnknownFields(session, { workflow_id: 'wf', redirect_uri: 'https://x', colour: 'red' });
      } catch (error) {
        return error as DomainError;
      }
      throw new Error('not refused');
    })();
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal.status).toBe(400);
    expect(refusal.code).toBe('validation_error');
    expect(refusal.message).toBe(
      'colour: unknown field; this object takes workflow_id, redirect_url, vendor_data, metadata; redirect_uri: unknown field; did you mean redirect_url?',
    );
    expect(refusal.data).toEqual({
      errors: {
        colour: 'unknown field; this object takes workflow_id, redirect_url, vendor_data, metadata',
        redirect_uri: 'unknown field; did you mean redirect_url?',
      },
    });
  });

  it('lets a body of declared fields through, and answers in the code asked for', () => {
    expect(() => refuseUnknownFields(session, { workflow_id: 'wf', vendor_data: 'x' })).not.toThrow();
    expect(() => refuseUnknownFields(session, { workflw_id: 'wf' }, 'invalid_request')).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
  });
});
