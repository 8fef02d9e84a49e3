import type { Orm } from '../db/orm.js';
import { DomainError } from '../errors.js';
import { newId } from '../secrets.js';
import { boardFor, BuiltinBoard, type BoardRecord, type HttpBoardConfig } from './boards.js';
import { csvRows, dataLineCount } from './csv.js';
import { CredentialProvider, CredentialState } from './entities.js';
import { cleanedCandidates, licenseKey } from './matching.js';
import type { ProviderView, StateView } from './views.js';

export const LICENSE_STATUSES = ['active', 'expired', 'suspended', 'revoked'] as const;
const DEFAULT_REQUIRED_FIELDS = ['license_number', 'first_name', 'last_name'];
/** An import reports its progress every this many rows. */
const PROGRESS_EVERY = 500;

/** The CSV columns of `verity admin import-licenses` (README: "Licence rosters"). */
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

export const stateView = (state: CredentialState): StateView => ({ state_name: state.stateName, state_code: state.stateCode });
export const providerView = (provider: CredentialProvider): ProviderView => ({
  provider_code: provider.providerCode,
  provider_display_name: provider.providerDisplayName,
  credential_name: provider.credentialName,
  required_fields: [...provider.requiredFields],
});

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
    const rows = await this.orm.em.fork().find(CredentialState, {}, { orderBy: { stateName: 'asc' } });
    return rows.map(stateView);
  }

  private async state(stateCode: string): Promise<CredentialState> {
    const state = /^[A-Za-z]{2}$/.test(stateCode) ? await this.orm.em.fork().findOne(CredentialState, { stateCode: stateCode.toUpperCase() }) : null;
    if (!state) throw new DomainError('not_found', `unknown state ${JSON.stringify(stateCode)}: see GET /api/v2/credential/states`);
    return state;
  }

  async providers(stateCode: string) {
    const state = await this.state(stateCode);
    const rows = await this.orm.em.fork().find(CredentialProvider, { stateCode: state.stateCode }, { orderBy: { providerDisplayName: 'asc' } });
    return rows.map(providerView);
  }

  /** The board for a state and a provider code (pinned) or a credential name. */
  async resolveProvider(stateCode: string, by: { providerCode?: string; credentialName?: string }): Promise<CredentialProvider> {
    const state = await this.state(stateCode);
    const em = this.orm.em.fork();
    if (by.providerCode) {
      const provider = await em.findOne(CredentialProvider, { stateCode: state.stateCode, providerCode: by.providerCode.trim().toUpperCase() });
      if (!provider) throw new DomainError('not_found', `unknown provider ${JSON.stringify(by.providerCode)} in ${state.stateCode}: see GET /api/v2/credential/states/${state.stateCode}/providers`);
      return provider;
    }
    const wanted = (by.credentialName ?? '').trim().toLowerCase();
    const matches = (await em.find(CredentialProvider, { stateCode: state.stateCode })).filter((p) => p.credentialName.toLowerCase() === wanted);
    if (matches.length === 0) throw new DomainError('not_found', `no provider in ${state.stateCode} issues ${JSON.stringify(by.credentialName)}`);
    if (matches.length > 1) throw new DomainError('validation_error', `several boards in ${state.stateCode} issue ${JSON.stringify(by.credentialName)}: send provider_code`);
    return matches[0]!;
  }

  /** Looks a number up as sent, then (with `clean`) in its cleaned forms; says what it tried. */
  async lookup(provider: CredentialProvider, number: string, options: { npi?: string; clean?: boolean } = {}): Promise<{ record: BoardRecord | null; tried: string[] }> {
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

  /** Registers (or updates) a board reached over HTTP. */
  async upsertHttpProvider(input: { stateCode: string; stateName: string; providerCode: string; providerDisplayName: string; credentialName: string; requiredFields?: string[]; config: HttpBoardConfig }) {
    const em = this.orm.em.fork();
    await em.upsert(CredentialState, { stateCode: input.stateCode.toUpperCase(), stateName: input.stateName });
    const existing = await em.findOne(CredentialProvider, { stateCode: input.stateCode.toUpperCase(), providerCode: input.providerCode.toUpperCase() });
    const row =
      existing ??
      em.create(CredentialProvider, {
        id: newId('prv'),
        stateCode: input.stateCode.toUpperCase(),
        providerCode: input.providerCode.toUpperCase(),
        providerDisplayName: '',
        credentialName: '',
        requiredFields: [],
        adapter: 'http',
      });
    Object.assign(row, {
      providerDisplayName: input.providerDisplayName,
      credentialName: input.credentialName,
      requiredFields: input.requiredFields ?? DEFAULT_REQUIRED_FIELDS,
      adapter: 'http',
      adapterConfig: input.config,
    });
    await em.flush();
    return providerView(row);
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
    const missing = LICENSE_CSV_COLUMNS.filter((column) => !['middle_name', 'specialty', 'npi', 'issued_at'].includes(column) && !header.includes(column));
    if (missing.length) throw new DomainError('validation_error', `the CSV lacks columns: ${missing.join(', ')}`);
    const at = (row: string[], column: string) => (row[header.indexOf(column)] ?? '').trim();
    const report: ImportReport = { states: 0, providers: 0, licenses: 0, rejected: [], rejectedCount: 0 };
    const states = new Set<string>();
    const providers = new Set<string>();
    let batch: Record<string, unknown>[] = [];
    const connection = this.orm.em.getConnection();
    // A roster names few states and boards: each is upserted once, when first seen.
    const saveState = (stateCode: string, stateName: string) =>
      connection.execute('insert into credential_state (state_code, state_name) values (?, ?) on conflict (state_code) do update set state_name = excluded.state_name', [stateCode, stateName]);
    const saveProvider = (stateCode: string, providerCode: string, displayName: string, credentialName: string) =>
      connection.execute(
        `insert into credential_provider (id, state_code, provider_code, provider_display_name, credential_name, required_fields, adapter)
         values (?, ?, ?, ?, ?, ?, 'builtin') on conflict (state_code, provider_code) do update set provider_display_name = excluded.provider_display_name, credential_name = excluded.credential_name`,
        [newId('prv'), stateCode, providerCode, displayName, credentialName, `{${DEFAULT_REQUIRED_FIELDS.join(',')}}`],
      );
    const flushBatch = async () => {
      if (!batch.length) return;
      await connection.getKnex()('license_record').insert(batch).onConflict(['state_code', 'provider_code', 'license_number']).merge();
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
        await saveProvider(stateCode, providerCode, at(row, 'provider_display_name') || providerCode, at(row, 'credential_name') || providerCode);
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
