import type { Orm } from '../db/orm.js';
import { DomainError } from '../errors.js';
import { preparedQuery } from '../db/prepared.js';
import type { ProviderRecord } from './views.js';

/** A licence as a board reports it. Dates are YYYY-MM-DD. */
export interface BoardRecord {
  licenseNumber: string;
  firstName: string;
  middleName?: string | null;
  lastName: string;
  status: string;
  issuedAt: string | null;
  expiresAt: string | null;
  specialty: string | null;
  npi?: string | null;
}

/** One licensing board: finds a licence by number, or says there is none. */
export interface BoardAdapter {
  lookup(stateCode: string, providerCode: string, licenseNumber: string, npi?: string): Promise<BoardRecord | null>;
}

/** Boards answer in 10 to 60 s; callers allow about 90. */
export const BOARD_TIMEOUT_MS = 90_000;

const LICENSE_COLUMNS =
  'license_number, first_name, middle_name, last_name, status, issued_at, expires_at, specialty, npi';

interface LicenseRow {
  license_number: string;
  first_name: string;
  middle_name: string | null;
  last_name: string;
  status: string;
  issued_at: string | null;
  expires_at: string | null;
  specialty: string | null;
  npi: string | null;
}

const toRecord = (row: LicenseRow): BoardRecord => ({
  licenseNumber: row.license_number,
  firstName: row.first_name,
  middleName: row.middle_name,
  lastName: row.last_name,
  status: row.status,
  issuedAt: row.issued_at,
  expiresAt: row.expires_at,
  specialty: row.specialty,
  npi: row.npi,
});

/** A board's published roster, imported into `license_record` (verity admin import-licenses). */
export class BuiltinBoard implements BoardAdapter {
  constructor(private readonly orm: Orm) {}

  async lookup(
    stateCode: string,
    providerCode: string,
    licenseNumber: string,
    npi?: string,
  ): Promise<BoardRecord | null> {
    const [row] = await preparedQuery<LicenseRow>(
      this.orm,
      'license_record_by_number',
      `select ${LICENSE_COLUMNS} from license_record where state_code = $1 and provider_code = $2 and license_number = $3`,
      [stateCode, providerCode, licenseNumber],
    );
    if (!row || (npi && row.npi && row.npi !== npi)) return null;
    return toRecord(row);
  }

  /** Rows whose number matches once punctuation, case and leading zeros are set aside. */
  async lookupByKey(stateCode: string, providerCode: string, licenseKey: string): Promise<BoardRecord | null> {
    const [row] = await preparedQuery<LicenseRow>(
      this.orm,
      'license_record_by_key',
      `select ${LICENSE_COLUMNS} from license_record where state_code = $1 and provider_code = $2 and license_key = $3 limit 1`,
      [stateCode, providerCode, licenseKey],
    );
    return row ? toRecord(row) : null;
  }
}

/**
 * Configuration of a board with a JSON lookup. `url` is a template with `{state}`, `{provider}`,
 * `{license_number}` and `{npi}`; `fields` maps our record fields to paths in its answer
 * (`a.b.c`); a 404 means "no such licence".
 */
export interface HttpBoardConfig {
  url: string;
  fields: Partial<Record<keyof BoardRecord, string>>;
  timeoutMs?: number;
  retries?: number;
  headers?: Record<string, string>;
}

function pick(value: unknown, path: string | undefined): unknown {
  if (!path) return undefined;
  return path
    .split('.')
    .reduce<unknown>(
      (node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined),
      value,
    );
}

const text = (value: unknown): string | null =>
  value === undefined || value === null || value === '' ? null : String(value);

/** Dates from boards come in many shapes; we keep YYYY-MM-DD or nothing. */
function isoDate(value: unknown): string | null {
  const raw = text(value);
  if (!raw) return null;
  const iso = /^(\d{4}-\d{2}-\d{2})/.exec(raw);
  if (iso) return iso[1]!;
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(raw);
  return us ? `${us[3]}-${us[1]!.padStart(2, '0')}-${us[2]!.padStart(2, '0')}` : null;
}

/** A board reached over HTTP: bounded by a timeout, retried on network errors and 5xx. */
export class HttpBoard implements BoardAdapter {
  constructor(
    private readonly config: HttpBoardConfig,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  async lookup(
    stateCode: string,
    providerCode: string,
    licenseNumber: string,
    npi?: string,
  ): Promise<BoardRecord | null> {
    const url = this.config.url
      .replace('{state}', encodeURIComponent(stateCode))
      .replace('{provider}', encodeURIComponent(providerCode))
      .replace('{license_number}', encodeURIComponent(licenseNumber))
      .replace('{npi}', encodeURIComponent(npi ?? ''));
    const deadline = Date.now() + (this.config.timeoutMs ?? BOARD_TIMEOUT_MS);
    const attempts = 1 + (this.config.retries ?? 2);
    let lastProblem = 'no answer';
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      let res: Response;
      try {
        // Redirects are not followed: a board's answer comes from the board's configured address.
        res = await this.fetchImpl(url, {
          headers: { accept: 'application/json', ...this.config.headers },
          redirect: 'manual',
          signal: AbortSignal.timeout(remaining),
        });
      } catch (error) {
        lastProblem = (error as Error).name === 'TimeoutError' ? 'did not answer in time' : 'could not be reached';
        if ((error as Error).name === 'TimeoutError') break;
        await new Promise((resolve) =>
          setTimeout(resolve, Math.min(250 * 2 ** attempt, Math.max(0, deadline - Date.now()))),
        );
        continue;
      }
      if (res.status === 404) return null;
      if (res.status >= 300 && res.status < 400)
        throw new DomainError(
          'engine_unreachable',
          `the licensing board redirected the lookup (HTTP ${res.status}); redirects are not followed`,
        );
      if (res.status >= 500 || res.status === 429) {
        lastProblem = `failed (HTTP ${res.status})`;
        await res.body?.cancel();
        await new Promise((resolve) =>
          setTimeout(resolve, Math.min(250 * 2 ** attempt, Math.max(0, deadline - Date.now()))),
        );
        continue;
      }
      if (!res.ok)
        throw new DomainError('engine_unreachable', `the licensing board refused the lookup (HTTP ${res.status})`);
      const body = (await res.json().catch(() => null)) as unknown;
      if (!body || typeof body !== 'object')
        throw new DomainError('engine_unreachable', 'the licensing board answered with something that is not JSON');
      const fields = this.config.fields;
      const number = text(pick(body, fields.licenseNumber));
      if (!number) return null;
      return {
        licenseNumber: number,
        firstName: text(pick(body, fields.firstName)) ?? '',
        middleName: text(pick(body, fields.middleName)),
        lastName: text(pick(body, fields.lastName)) ?? '',
        status: (text(pick(body, fields.status)) ?? 'unknown').toLowerCase(),
        issuedAt: isoDate(pick(body, fields.issuedAt)),
        expiresAt: isoDate(pick(body, fields.expiresAt)),
        specialty: text(pick(body, fields.specialty)),
        npi: text(pick(body, fields.npi)),
      };
    }
    throw new DomainError('engine_unreachable', `the licensing board ${lastProblem}; try again later`);
  }
}

/** The adapter a provider is configured with. */
export function boardFor(provider: ProviderRecord, builtin: BuiltinBoard): BoardAdapter {
  if (provider.adapter === 'http') return new HttpBoard(provider.adapterConfig as unknown as HttpBoardConfig);
  return builtin;
}
