// What the hosted page says about errors and fields, through the page's language (i18n.ts).
import type { ApiError } from './api.js';
import { CATALOGS, type MessageKey, type Translate } from './i18n.js';

/**
 * Codes that ask the person to do a step again: the answer's data says which step, why (a reason code) and how many
 * tries are left.
 */
const RETRY_CODES = ['step_retry_required', 'face_rescan_required'];

/**
 * An error in the person's language, with what to do: a step asked again is worded from its reason
 * code (with the tries left), any other code from its own words. The server's message is developer
 * English and never shown; a code without words gets the generic sentence.
 */
export function friendly(t: Translate, error: unknown): string {
  const { code, data } = (error ?? {}) as ApiError;
  if (code && RETRY_CODES.includes(code)) {
    const reason = `retry.${data?.step}.${data?.reason}`;
    const fallback = `retry.${data?.step}.other`;
    const words =
      reason in CATALOGS.en
        ? t(reason as MessageKey)
        : fallback in CATALOGS.en
          ? t(fallback as MessageKey)
          : t('error.generic');
    return data?.tries_left === undefined ? words : `${words} ${t('retry.triesLeft', { n: data.tries_left })}`;
  }
  if (code && `error.${code}` in CATALOGS.en) return t(`error.${code}` as MessageKey);
  return t('error.generic');
}

/** Whether the page has its own words for an error code (else it says the generic sentence). */
export const hasWords = (code: string): boolean => RETRY_CODES.includes(code) || `error.${code}` in CATALOGS.en;

/** The words for a value the server sends (a gesture, a status), or the prefix's fallback for one we do not know. */
export function wordsFor(t: Translate, prefix: 'gesture' | 'outcome', value: string): string {
  const key = `${prefix}.${value}`;
  return t((key in CATALOGS.en ? key : `${prefix}.other`) as MessageKey);
}

/** The label of a licensing board's extra field: `npi` reads NPI, others their words. */
export const fieldLabel = (field: string) => (field.toLowerCase() === 'npi' ? 'NPI' : field.replace(/_/g, ' '));
