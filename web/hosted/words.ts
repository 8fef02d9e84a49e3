// What the hosted page says about errors and fields, through the page's language (i18n.ts).
import type { ApiError } from './api.js';
import { CATALOGS, type MessageKey, type Translate } from './i18n.js';

/** An error in plain words: ours for the codes a person can act on, else the server's message. */
export function friendly(t: Translate, error: unknown): string {
  const { code, message, data } = (error ?? {}) as ApiError;
  if (code && `error.${code}` in CATALOGS.en) return t(`error.${code}` as MessageKey);
  const retry = `retry.${data?.step}.${data?.reason}`;
  if (code === 'step_retry_required' && retry in CATALOGS.en) return `${t(retry as MessageKey)} ${t('retry.triesLeft', { n: data?.tries_left ?? 0 })}`;
  return message || t('error.generic');
}

/** The words for a value the server sends (a gesture, a status), or the prefix's fallback for one we do not know. */
export function wordsFor(t: Translate, prefix: 'gesture' | 'outcome', value: string): string {
  const key = `${prefix}.${value}`;
  return t((key in CATALOGS.en ? key : `${prefix}.other`) as MessageKey);
}

/** The label of a licensing board's extra field: `npi` reads NPI, others their words. */
export const fieldLabel = (field: string) => (field.toLowerCase() === 'npi' ? 'NPI' : field.replace(/_/g, ' '));
