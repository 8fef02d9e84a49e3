// Names and licence numbers as people and boards write them.

const SUFFIXES = new Set([
  'jr',
  'sr',
  'ii',
  'iii',
  'iv',
  'v',
  'md',
  'do',
  'rn',
  'lpn',
  'np',
  'pa',
  'phd',
  'dds',
  'dmd',
  'pharmd',
  'esq',
]);

/** Lower case, accents removed, hyphens and punctuation as spaces, suffixes (Jr, III, MD) dropped. */
export function nameTokens(name: string): string[] {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['’`]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter((token) => token && !SUFFIXES.has(token));
}

/**
 * Same person's name? First given name and family name must agree; middle names may be left out.
 * The family name may be the last part of a hyphenated or compound one ("Garcia-Lopez" ~ "Lopez").
 */
export function namesMatch(given: string, recordFirst: string, recordLast: string): boolean {
  const sent = nameTokens(given);
  const first = nameTokens(recordFirst);
  const last = nameTokens(recordLast);
  if (sent.length < 2 || !first.length || !last.length) return false;
  // Same first given name, and the sent name ends with the record's family name or its last part.
  return sent[0] === first[0] && sent[sent.length - 1] === last[last.length - 1];
}

/** Upper case letters and digits only. */
export function licenseKey(number: string): string {
  return number.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

/**
 * The forms `do_ai_clean` tries after the number as sent: without spaces and punctuation,
 * without a state or provider prefix, and without leading zeros, each once.
 */
export function cleanedCandidates(number: string, prefixes: string[]): string[] {
  const out: string[] = [];
  const add = (value: string) => {
    if (value && value !== number && !out.includes(value)) out.push(value);
  };
  const key = licenseKey(number);
  add(key);
  let unprefixed = key;
  for (const prefix of prefixes
    .map(licenseKey)
    .filter(Boolean)
    .sort((a, b) => b.length - a.length)) {
    if (unprefixed.startsWith(prefix) && unprefixed.length > prefix.length) {
      unprefixed = unprefixed.slice(prefix.length);
      break;
    }
  }
  add(unprefixed);
  add(unprefixed.replace(/^0+(?=\d)/, ''));
  return out;
}
