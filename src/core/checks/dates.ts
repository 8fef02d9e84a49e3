/** A calendar date without a time zone. */
export interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

function valid(year: number, month: number, day: number): CalendarDate | null {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return { year, month, day };
}

/**
 * Dates of birth as integrators send them: `YYYY-MM-DD` (preferred), `YYYY/MM/DD`, `YYYYMMDD`,
 * or an ISO date-time whose date part is used as written. Day-first and month-first forms
 * (`01/02/1990`) are refused: they are ambiguous.
 */
export function parseCalendarDate(text: string): CalendarDate | null {
  const trimmed = text.trim();
  const match =
    /^(\d{4})-(\d{2})-(\d{2})(?:T[\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(trimmed) ??
    /^(\d{4})\/(\d{2})\/(\d{2})$/.exec(trimmed) ??
    /^(\d{4})(\d{2})(\d{2})$/.exec(trimmed);
  if (!match) return null;
  return valid(Number(match[1]), Number(match[2]), Number(match[3]));
}

export function formatCalendarDate(date: CalendarDate): string {
  return `${String(date.year).padStart(4, '0')}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`;
}

/** Today's date in UTC. */
export function utcDate(now: Date): CalendarDate {
  return { year: now.getUTCFullYear(), month: now.getUTCMonth() + 1, day: now.getUTCDate() };
}

export function compareDates(a: CalendarDate, b: CalendarDate): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}

/**
 * Whole years from `birth` to `on`. Someone born on 29 February turns a year older on
 * 1 March in common years (the birthday has not happened while it is still 28 February).
 */
export function ageOn(birth: CalendarDate, on: CalendarDate): number {
  let age = on.year - birth.year;
  if (on.month < birth.month || (on.month === birth.month && on.day < birth.day)) age -= 1;
  return age;
}
