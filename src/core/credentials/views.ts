import { z } from 'zod';
import type { BoardAdapterKind } from './entities.js';

// The licensing-board directory on the wire, declared once: stateView and providerView are typed
// by these schemas and the credential routes document with them.

export const stateWire = z.object({ state_name: z.string(), state_code: z.string() });
export type StateView = z.output<typeof stateWire>;

export const providerWire = z.object({
  provider_code: z.string(),
  provider_display_name: z.string(),
  credential_name: z.string(),
  required_fields: z.array(z.string()),
});
export type ProviderView = z.output<typeof providerWire>;

/** A licensing board as the registry stores it: how to reach it (`adapter`, `adapterConfig`) and what it issues. */
export interface ProviderRecord {
  id: string;
  stateCode: string;
  providerCode: string;
  providerDisplayName: string;
  credentialName: string;
  requiredFields: string[];
  adapter: BoardAdapterKind;
  adapterConfig: Record<string, unknown> | null;
}

/** GET /api/v2/credential/states. */
export const stateListWire = z.object({ states: z.array(stateWire) });
/** GET /api/v2/credential/states/{state}/providers. */
export const providerListWire = z.object({ providers: z.array(providerWire) });
