import { z } from 'zod';
import type { AccountService, AccountState } from '../accounts/service.js';
import { compareDates, formatCalendarDate, parseCalendarDate, utcDate } from '../checks/dates.js';
import type { StandaloneCheck } from '../checks/pipeline.js';
import type { CheckContext, CheckOutcome } from '../checks/types.js';
import { DomainError } from '../errors.js';
import type { BoardRecord } from './boards.js';
import type { ProviderRecord } from './views.js';
import { namesMatch } from './matching.js';
import type { CredentialRegistry } from './registry.js';

const field = z.string().trim().max(200);

export const credentialInput = z.object({
  license_state: field.optional(),
  state: field.optional(),
  license_number: field.optional(),
  license_no: field.optional(),
  license_type: field.optional(),
  provider_code: field.optional(),
  first_name: field.optional(),
  last_name: field.optional(),
  full_name: field.optional(),
  npi: z
    .string()
    .trim()
    .regex(/^\d{10}$/, 'npi is 10 digits')
    .optional(),
  svc_access_token: z.string().min(1).max(200).optional(),
  svc_id: z.string().min(1).max(40).optional(),
  do_ai_clean: z.boolean().optional(),
});
export type CredentialInput = z.infer<typeof credentialInput>;

interface Prepared {
  provider: ProviderRecord;
  number: string;
  npi?: string;
  clean: boolean;
  mode: 'search' | 'verify' | 'account';
  /** The name to match: sent (verify) or the account's verified KYC name (account). */
  name?: string;
}

const missing = (name: string, message: string) =>
  new DomainError('validation_error', message, { data: { errors: { [name]: message } } });

/** The licence as the spec's `license` object, with the status the dates imply. */
function licenseOf(record: BoardRecord, today: string) {
  const expired = record.expiresAt !== null && record.expiresAt < today;
  return {
    license_number: record.licenseNumber,
    status: expired && record.status === 'active' ? 'expired' : record.status,
    issued_at: record.issuedAt,
    expires_at: record.expiresAt,
    specialty: record.specialty,
  };
}

/** POST /api/v2/credential-verification: search, verify or account mode, as the spec's mode rules say. */
export function credentialCheck(deps: {
  registry: CredentialRegistry;
  accounts: AccountService;
}): StandaloneCheck<CredentialInput, Prepared> {
  return {
    type: 'credential',
    input: credentialInput,
    async prepare(input, context): Promise<Prepared> {
      const stateCode = input.license_state ?? input.state;
      const number = input.license_number ?? input.license_no;
      if (!stateCode) throw missing('license_state', 'license_state (or state) is required');
      if (!number) throw missing('license_number', 'license_number (or license_no) is required');
      if (!input.provider_code && !input.license_type)
        throw missing('license_type', 'send provider_code (recommended) or license_type');
      const provider = await deps.registry.resolveProvider(stateCode, {
        providerCode: input.provider_code,
        credentialName: input.license_type,
      });
      const base = { provider, number, npi: input.npi, clean: input.do_ai_clean === true };
      if (context.mode === 'account') {
        // The account's verified KYC name; any name sent is ignored.
        const identity = await deps.accounts.stateFor(context).verifiedIdentity(context.svcId!);
        if (!identity) throw new DomainError('kyc_required');
        return { ...base, mode: 'account', name: identity.fullName };
      }
      const sentName = input.full_name || [input.first_name, input.last_name].filter(Boolean).join(' ');
      return sentName ? { ...base, mode: 'verify', name: sentName } : { ...base, mode: 'search' };
    },
    async execute(prepared, context: CheckContext): Promise<CheckOutcome> {
      const { provider } = prepared;
      const { record, tried } = await deps.registry.lookup(provider, prepared.number, {
        npi: prepared.npi,
        clean: prepared.clean,
      });
      const board = {
        state_code: provider.stateCode,
        provider_code: provider.providerCode,
        provider_display_name: provider.providerDisplayName,
        credential_name: provider.credentialName,
      };
      const cleaning = prepared.clean ? { tried } : {};
      if (!record) {
        return {
          check: {
            type: 'credential',
            status: 'failed',
            data: {
              mode: prepared.mode,
              found: false,
              match: prepared.mode === 'search' ? null : false,
              license: null,
              board,
              ...cleaning,
            },
            error: `no licence ${prepared.number} with ${provider.providerDisplayName} (${provider.stateCode})${prepared.clean ? '' : '; do_ai_clean retries odd formats'}`,
          },
          reason: 'not_found',
        };
      }
      const license = licenseOf(record, formatCalendarDate(utcDate(context.today)));
      const active = license.status === 'active';
      const match =
        prepared.mode === 'search'
          ? null
          : namesMatch(
              prepared.name!,
              [record.firstName, record.middleName].filter(Boolean).join(' '),
              record.lastName,
            );
      const passed = active && match !== false;
      let error: string | null = null;
      let reason: string | undefined;
      if (match === false) {
        error = "the name does not match the board's record for this licence";
        reason = 'name_mismatch';
      } else if (!active) {
        error = `the licence is ${license.status}`;
        reason = `license_${license.status}`;
      }
      if (passed && prepared.mode === 'account')
        await badge(deps.accounts.stateFor(context), context.svcId!, provider, record, context.today);
      return {
        check: {
          type: 'credential',
          status: passed ? 'passed' : 'failed',
          data: { mode: prepared.mode, found: true, match, license, board, ...cleaning },
          error,
        },
        reason,
      };
    },
  };
}

/** Puts a verified licence on the account, served until the licence itself expires. */
async function badge(
  accounts: AccountState,
  svcId: string,
  provider: ProviderRecord,
  record: BoardRecord,
  now: Date,
): Promise<void> {
  const expiry = record.expiresAt ? parseCalendarDate(record.expiresAt) : null;
  if (expiry && compareDates(expiry, utcDate(now)) < 0) return;
  const expireAt = expiry
    ? new Date(Date.UTC(expiry.year, expiry.month - 1, expiry.day, 23, 59, 59))
    : new Date(now.getTime() + 365 * 24 * 3600_000);
  await accounts.badgeLicense(
    svcId,
    {
      type: provider.credentialName,
      number: record.licenseNumber,
      status: record.status,
      issuer: provider.providerDisplayName,
      stateCode: provider.stateCode,
      expiresOn: record.expiresAt ?? null,
      verifiedFrom: `${provider.providerDisplayName} (${provider.stateCode})`,
      expireAt,
    },
    now,
  );
}
