import type { Orm } from '../db/orm.js';
import { preparedQuery } from '../db/prepared.js';
import { DomainError } from '../errors.js';
import { newId } from '../secrets.js';
import { boardFor, BuiltinBoard, type BoardRecord, type HttpBoardConfig } from './boards.js';
import { csvRows, dataLineCount } from './csv.js';
import { cleanedCandidates, licenseKey } from './matching.js';
import type { ProviderRecord, ProviderView, StateView } from './views.js';

export const LICENSE_STATUSES = ['active', 'expired', 'suspended', 'revoked'] as const;
const DEFAULT_REQUIRED_FIELDS = ['license_number', 'first_name', 'last_name'];
/** An import reports its progress every this many rows. */
const PROGRESS_EVERY = 500;

/** The CSV columns of `verity admin import-licenses` (docs/licences.md: "Licence rosters"). */
export const LICENSE_CSV_COLUMNS = [
  'state_code',
  'state_name',
  'provider_code',
  'provider_display_name',
  'credential_name',
  'license_number',
  'first_name',
  'middle_name',
  'last_name',
  'status',
  'issued_at',
  'expires_at',
  'specialty',
  'npi',
] as const;

export const stateView = (state: { stateCode: string; stateName: string }): StateView => ({
  state_name: state.stateName,
  state_code: state.stateCode,
});
export const providerView = (provider: ProviderRecord): ProviderView => ({
  provider_code: provider.providerCode,
  provider_display_name: provider.providerDisplayName,
  credential_name: provider.credentialName,
  required_fields: [...provider.requiredFields],
});

const PROVIDER_COLUMNS =
  'id, state_code, provider_code, provider_display_name, credential_name, required_fields, adapter, adapter_config';

interface ProviderRow {
  id: string;
  state_code: string;
  provider_code: string;
  provider_display_name: string;
  credential_name: string;
  required_fields: string[];
  adapter: ProviderRecord['adapter'];
  adapter_config: Record<string, unknown> | null;
}

const providerOf = (row: ProviderRow): ProviderRecord => ({
  id: row.id,
  stateCode: row.state_code,
  providerCode: row.provider_code,
  providerDisplayName: row.provider_display_name,
  credentialName: row.credential_name,
  requiredFields: row.required_fields,
  adapter: row.adapter,
  adapterConfig: row.adapter_config,
});

// A roster import's statements: its states and boards upserted once each, its licences 500 rows
// a statement (one array per column), a licence already held replaced by the roster's row.
const IMPORT_STATE =
  'insert into credential_state (state_code, state_name) values ($1, $2) on conflict (state_code) do update set state_name = excluded.state_name';
const IMPORT_PROVIDER = `insert into credential_provider (id, state_code, provider_code, provider_display_name, credential_name, required_fields, adapter)
  values ($1, $2, $3, $4, $5, $6, 'builtin')
  on conflict (state_code, provider_code) do update set provider_display_name = excluded.provider_display_name, credential_name = excluded.credential_name`;

/** A licence's columns: the CSV's, less those of its state and board, and the number's search key. */
type LicenseColumn =
  | Exclude<(typeof LICENSE_CSV_COLUMNS)[number], 'state_name' | 'provider_display_name' | 'credential_name'>
  | 'license_key';
const LICENSE_ROW_COLUMNS: readonly LicenseColumn[] = [
  'license_key',
  ...LICENSE_CSV_COLUMNS.filter(
    (column): column is Exclude<LicenseColumn, 'license_key'> =>
      !['state_name', 'provider_display_name', 'credential_name'].includes(column),
  ),
];
type LicenseRow = Record<LicenseColumn, string | null>;
const LICENSE_KEY_COLUMNS: readonly LicenseColumn[] = ['state_code', 'provider_code', 'license_number'];
const IMPORT_LICENSES = `insert into license_record (${LICENSE_ROW_COLUMNS.join(', ')})
  select * from unnest(${LICENSE_ROW_COLUMNS.map((_, i) => `$${i + 1}::varchar[]`).join(', ')})
  on conflict (${LICENSE_KEY_COLUMNS.join(', ')}) do update set
  ${LICENSE_ROW_COLUMNS.filter((column) => !LICENSE_KEY_COLUMNS.includes(column))
    .map((column) => `${column} = excluded.${column}`)
    .join(', ')}`;

export interface ImportReport {
  states: number;
  providers: number;
  licenses: number;
  /** Rows refused, with their line numbers and why (at most 50 listed). */
  rejected: { line: number; reason: string }[];
  rejectedCount: number;
}

/** States, their boards, and lookups through each board's adapter. */
export class CredentialRegistry {
  readonly builtin: BuiltinBoard;

  constructor(private readonly orm: Orm) {
    this.builtin = new BuiltinBoard(orm);
  }

  async states() {
    const rows = await preparedQuery<{ state_code: string; state_name: string }>(
      this.orm,
      'credential_states',
      'select state_code, state_name from credential_state order by state_name',
      [],
    );
    return rows.map((row) => stateView({ stateCode: row.state_code, stateName: row.state_name }));
  }

  /** A known state's code, upper-case; `not_found` for anything else. */
  private async state(stateCode: string): Promise<string> {
    const [row] = /^[A-Za-z]{2}$/.test(stateCode)
      ? await preparedQuery<{ state_code: string }>(
          this.orm,
          'credential_state_by_code',
          'select state_code from credential_state where state_code = $1',
          [stateCode.toUpperCase()],
        )
      : [];
    if (!row)
      throw new DomainError(
        'not_found',
        `unknown state ${JSON.stringify(stateCode)}: see GET /api/v2/credential/states`,
      );
    return row.state_code;
  }

  /** The boards of a state, by display name. */
  private async providersOf(stateCode: string): Promise<ProviderRecord[]> {
    const rows = await preparedQuery<ProviderRow>(
      this.orm,
      'credential_providers_of_state',
      `select ${PROVIDER_COLUMNS} from credential_provider where state_code = $1 order by provider_display_name`,
      [stateCode],
    );
    return rows.map(providerOf);
  }

  async providers(stateCode: string) {
    return (await this.providersOf(await this.state(stateCode))).map(providerView);
  }

  /** The board for a state and a provider code (pinned) or a credential name. */
  async resolveProvider(
    stateCode: string,
    by: { providerCode?: string; credentialName?: string },
  ): Promise<ProviderRecord> {
    const state = await this.state(stateCode);
    if (by.providerCode) {
      const [row] = await preparedQuery<ProviderRow>(
        this.orm,
        'credential_provider_by_code',
        `select ${PROVIDER_COLUMNS} from credential_provider where state_code = $1 and provider_code = $2`,
        [state, by.providerCode.trim().toUpperCase()],
      );
      if (!row)
        throw new DomainError(
          'not_found',
          `unknown provider ${JSON.stringify(by.providerCode)} in ${state}: see GET /api/v2/credential/states/${state}/providers`,
        );
      return providerOf(row);
    }
    const wanted = (by.credentialName ?? '').trim().toLowerCase();
    const matches = (await this.providersOf(state)).filter((p) => p.credentialName.toLowerCase() === wanted);
    if (matches.length === 0)
      throw new DomainError('not_found', `no provider in ${state} issues ${JSON.stringify(by.credentialName)}`);
    if (matches.length > 1)
      throw new DomainError(
        'validation_error',
        `several boards in ${state} issue ${JSON.stringify(by.credentialName)}: send provider_code`,
      );
    return matches[0]!;
  }

  /** Looks a number up as sent, then (with `clean`) in its cleaned forms; says what it tried. */
  async lookup(
    provider: ProviderRecord,
    number: string,
    options: { npi?: string; clean?: boolean } = {},
  ): Promise<{ record: BoardRecord | null; tried: string[] }> {
    const board = boardFor(provider, this.builtin);
    const tried = [number];
    let record = await board.lookup(provider.stateCode, provider.providerCode, number, options.npi);
    if (record || !options.clean) return { record, tried };
    for (const candidate of cleanedCandidates(number, [provider.stateCode, provider.providerCode])) {
      tried.push(candidate);
      record =
        provider.adapter === 'builtin'
          ? await this.builtin.lookupByKey(provider.stateCode, provider.providerCode, licenseKey(candidate))
          : await board.lookup(provider.stateCode, provider.providerCode, candidate, options.npi);
      if (record) break;
    }
    return { record, tried };
  }

  /** Registers (or updates) a board reached over HTTP: its state and itself in one statement. */
  async upsertHttpProvider(input: {
    stateCode: string;
    stateName: string;
    providerCode: string;
    providerDisplayName: string;
    credentialName: string;
    requiredFields?: string[];
    config: HttpBoardConfig;
  }) {
    const [row] = await preparedQuery<ProviderRow>(
      this.orm,
      'credential_http_provider_upsert',
      `with state as (
         insert into credential_state (state_code, state_name) values ($2, $3) on conflict (state_code) do update set state_name = excluded.state_name
       )
       insert into credential_provider (id, state_code, provider_code, provider_display_name, credential_name, required_fields, adapter, adapter_config)
       values ($1, $2, $4, $5, $6, $7, 'http', $8)
       on conflict (state_code, provider_code) do update set provider_display_name = excluded.provider_display_name, credential_name = excluded.credential_name,
         required_fields = excluded.required_fields, adapter = 'http', adapter_config = excluded.adapter_config
       returning ${PROVIDER_COLUMNS}`,
      [
        newId('prv'),
        input.stateCode.toUpperCase(),
        input.stateName,
        input.providerCode.toUpperCase(),
        input.providerDisplayName,
        input.credentialName,
        input.requiredFields ?? DEFAULT_REQUIRED_FIELDS,
        JSON.stringify(input.config),
      ],
    );
    return providerView(providerOf(row!));
  }

  /**
   * Imports a board roster CSV (`LICENSE_CSV_COLUMNS`, header row first); upserts by licence number.
   * `onProgress` hears of the rows read after each batch, against the file's line count (a quoted
   * field may span lines, so the last call gives the true total).
   */
  async importCsv(text: string, onProgress?: (done: number, total: number) => void): Promise<ImportReport> {
    const rows = csvRows(text);
    const first = rows.next();
    const header = (first.done ? [] : first.value).map((column: string) => column.trim().toLowerCase());
    const missing = LICENSE_CSV_COLUMNS.filter(
      (column) => !['middle_name', 'specialty', 'npi', 'issued_at'].includes(column) && !header.includes(column),
    );
    if (missing.length) throw new DomainError('validation_error', `the CSV lacks columns: ${missing.join(', ')}`);
    const at = (row: string[], column: string) => (row[header.indexOf(column)] ?? '').trim();
    const report: ImportReport = { states: 0, providers: 0, licenses: 0, rejected: [], rejectedCount: 0 };
    const states = new Set<string>();
    const providers = new Set<string>();
    let batch: LicenseRow[] = [];
    // A roster names few states and boards: each is upserted once, when first seen.
    const saveState = (stateCode: string, stateName: string) =>
      preparedQuery(this.orm, 'registry_import_state', IMPORT_STATE, [stateCode, stateName]);
    const saveProvider = (stateCode: string, providerCode: string, displayName: string, credentialName: string) =>
      preparedQuery(this.orm, 'registry_import_provider', IMPORT_PROVIDER, [
        newId('prv'),
        stateCode,
        providerCode,
        displayName,
        credentialName,
        DEFAULT_REQUIRED_FIELDS,
      ]);
    const flushBatch = async () => {
      if (!batch.length) return;
      await preparedQuery(
        this.orm,
        'registry_import_licenses',
        IMPORT_LICENSES,
        LICENSE_ROW_COLUMNS.map((column) => batch.map((row) => row[column])),
      );
      report.licenses += batch.length;
      batch = [];
    };
    const lines = dataLineCount(text);
    let line = 1;
    for (const row of rows) {
      line += 1;
      if ((line - 1) % PROGRESS_EVERY === 0) onProgress?.(line - 1, Math.max(lines, line - 1));
      const stateCode = at(row, 'state_code').toUpperCase();
      const providerCode = at(row, 'provider_code').toUpperCase();
      const number = at(row, 'license_number');
      const status = at(row, 'status').toLowerCase();
      const dates = [at(row, 'issued_at'), at(row, 'expires_at')];
      const reason = !/^[A-Z]{2}$/.test(stateCode)
        ? 'state_code must be two letters'
        : !providerCode
          ? 'provider_code is empty'
          : !number
            ? 'license_number is empty'
            : !at(row, 'last_name')
              ? 'last_name is empty'
              : !(LICENSE_STATUSES as readonly string[]).includes(status)
                ? `status must be one of ${LICENSE_STATUSES.join(', ')}`
                : dates.some((date) => date && !/^\d{4}-\d{2}-\d{2}$/.test(date))
                  ? 'dates must be YYYY-MM-DD'
                  : null;
      if (reason) {
        report.rejectedCount += 1;
        if (report.rejected.length < 50) report.rejected.push({ line, reason });
        continue;
      }
      if (!states.has(stateCode)) {
        states.add(stateCode);
        await saveState(stateCode, at(row, 'state_name') || stateCode);
      }
      const providerKey = `${stateCode}/${providerCode}`;
      if (!providers.has(providerKey)) {
        providers.add(providerKey);
        await saveProvider(
          stateCode,
          providerCode,
          at(row, 'provider_display_name') || providerCode,
          at(row, 'credential_name') || providerCode,
        );
      }
      batch.push({
        state_code: stateCode,
        provider_code: providerCode,
        license_number: number,
        license_key: licenseKey(number),
        first_name: at(row, 'first_name'),
        middle_name: at(row, 'middle_name') || null,
        last_name: at(row, 'last_name'),
        status,
        issued_at: dates[0] || null,
        expires_at: dates[1] || null,
        specialty: at(row, 'specialty') || null,
        npi: at(row, 'npi') || null,
      });
      if (batch.length >= 500) await flushBatch();
    }
    await flushBatch();
    onProgress?.(line - 1, line - 1);
    report.states = states.size;
    report.providers = providers.size;
    return report;
  }
}
