import { z } from 'zod';
import type { AccountService } from '../accounts/service.js';
import { DomainError } from '../errors.js';
import { ageOn, compareDates, formatCalendarDate, parseCalendarDate, utcDate, type CalendarDate } from './dates.js';
import type { StandaloneCheck } from './pipeline.js';
import type { CheckContext, CheckOutcome } from './types.js';

export const ageInput = z.object({
  dob: z.string().max(40).optional(),
  bands: z
    .array(z.union([z.string().max(40), z.number()]))
    .max(20)
    .optional(),
  svc_access_token: z.string().min(1).max(200).optional(),
  svc_id: z.string().min(1).max(40).optional(),
});
export type AgeInput = z.infer<typeof ageInput>;

/** Account mode answers only these thresholds; any other band there is `unknown_band`. */
export const ACCOUNT_MODE_THRESHOLDS = [16, 18, 21, 30, 65];
const DEFAULT_BAND = 'is_18_plus';

/** `'18'`, `18`, `'18+'` and `'is_18_plus'` all mean "at least 18"; anything else is null. */
export function parseBand(band: string | number): number | null {
  if (typeof band === 'number') return Number.isInteger(band) && band >= 0 && band <= 150 ? band : null;
  const match = /^(?:(\d{1,3})\+?|is_(\d{1,3})_plus)$/.exec(band.trim());
  const value = match ? Number(match[1] ?? match[2]) : NaN;
  return Number.isInteger(value) && value <= 150 ? value : null;
}

export type BandAnswer = { verified: boolean; min_age: number } | { verified: null; error: 'unknown_band' };

/** Answers each band; in account mode only the account thresholds are answered. */
export function answerBands(
  bands: (string | number)[],
  age: number,
  mode: 'fresh' | 'account',
): Record<string, BandAnswer> {
  const answers: Record<string, BandAnswer> = {};
  for (const band of bands.length ? bands : [DEFAULT_BAND]) {
    const minAge = parseBand(band);
    const allowed = minAge !== null && (mode === 'fresh' || ACCOUNT_MODE_THRESHOLDS.includes(minAge));
    answers[String(band)] = allowed
      ? { verified: age >= minAge, min_age: minAge }
      : { verified: null, error: 'unknown_band' };
  }
  return answers;
}

interface PreparedAge {
  birth: CalendarDate;
  bands: (string | number)[];
}

export function ageCheck(accounts: AccountService): StandaloneCheck<AgeInput, PreparedAge> {
  return {
    type: 'age',
    input: ageInput,
    async prepare(input: AgeInput, context: CheckContext): Promise<PreparedAge> {
      const bands = input.bands ?? [];
      if (context.mode === 'account') {
        const identity = await accounts.stateFor(context).verifiedIdentity(context.svcId!);
        const birth = identity ? parseCalendarDate(identity.dateOfBirth) : null;
        if (!birth) throw new DomainError('account_dob_unavailable');
        return { birth, bands };
      }
      if (input.dob === undefined || input.dob.trim() === '') throw new DomainError('missing_dob');
      const birth = parseCalendarDate(input.dob);
      if (!birth) {
        throw new DomainError(
          'validation_error',
          'dob must be a date: YYYY-MM-DD (preferred), YYYY/MM/DD, YYYYMMDD or an ISO 8601 date-time',
          {
            data: { errors: { dob: 'not a date in an accepted format' } },
          },
        );
      }
      const today = utcDate(context.today);
      if (compareDates(birth, today) > 0 || birth.year < 1850) {
        throw new DomainError('validation_error', 'dob must be in the past', {
          data: { errors: { dob: 'must be in the past' } },
        });
      }
      return { birth, bands };
    },
    async execute({ birth, bands }: PreparedAge, context: CheckContext): Promise<CheckOutcome> {
      const age = ageOn(birth, utcDate(context.today));
      const answers = answerBands(bands, age, context.mode);
      const unmet = Object.entries(answers)
        .filter(([, answer]) => answer.verified !== true)
        .map(([band]) => band);
      const status = unmet.length === 0 ? 'passed' : 'failed';
      // Account mode proves the bands only: the age and date of birth stay in the account.
      const data =
        context.mode === 'account' ? { bands: answers } : { age, dob: formatCalendarDate(birth), bands: answers };
      return {
        check: {
          type: 'age',
          status,
          data,
          error: status === 'passed' ? null : `not every band is satisfied: ${unmet.join(', ')}`,
        },
        reason: Object.values(answers).some((answer) => answer.verified === null) ? 'unknown_band' : 'under_age',
      };
    },
  };
}
