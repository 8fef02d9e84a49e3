import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261123000000_foundation } from './Migration20261123000000_foundation.js';
import { Migration20261123010000_checks } from './Migration20261123010000_checks.js';
import { Migration20261123020000_login } from './Migration20261123020000_login.js';
import { Migration20261123030000_credentials } from './Migration20261123030000_credentials.js';
import { Migration20261123050000_faces } from './Migration20261123050000_faces.js';
import { Migration20261123040000_sessions } from './Migration20261123040000_sessions.js';
import { Migration20261123060000_roster } from './Migration20261123060000_roster.js';
import { Migration20261123070000_ops } from './Migration20261123070000_ops.js';
import { Migration20261124100000_security } from './Migration20261124100000_security.js';
import { Migration20261125100000_descriptor_kind } from './Migration20261125100000_descriptor_kind.js';
import { Migration20261125200000_key_activation } from './Migration20261125200000_key_activation.js';
import { Migration20261125210000_account_links } from './Migration20261125210000_account_links.js';
import { Migration20261127012500_session_handoff } from './Migration20261127012500_session_handoff.js';
import { Migration20261125220000_workflow_step_tries } from './Migration20261125220000_workflow_step_tries.js';
import { Migration20261127013000_sandbox } from './Migration20261127013000_sandbox.js';
import { Migration20261127013500_project_branding } from './Migration20261127013500_project_branding.js';
import { Migration20261127014000_session_evidence } from './Migration20261127014000_session_evidence.js';
import { Migration20261127150000_wallet_lease } from './Migration20261127150000_wallet_lease.js';
import { Migration20261129050000_license_state } from './Migration20261129050000_license_state.js';
import { Migration20261129160000_refresh_in_place } from './Migration20261129160000_refresh_in_place.js';
import { Migration20261202130000_login_hardening } from './Migration20261202130000_login_hardening.js';

// Committed migrations in order. Listed explicitly so the same list serves src/ and dist/.
export const migrations: MigrationObject[] = [
  { name: 'Migration20261123000000_foundation', class: Migration20261123000000_foundation },
  { name: 'Migration20261123010000_checks', class: Migration20261123010000_checks },
  { name: 'Migration20261123020000_login', class: Migration20261123020000_login },
  { name: 'Migration20261123030000_credentials', class: Migration20261123030000_credentials },
  { name: 'Migration20261123040000_sessions', class: Migration20261123040000_sessions },
  { name: 'Migration20261123050000_faces', class: Migration20261123050000_faces },
  { name: 'Migration20261123060000_roster', class: Migration20261123060000_roster },
  { name: 'Migration20261123070000_ops', class: Migration20261123070000_ops },
  { name: 'Migration20261124100000_security', class: Migration20261124100000_security },
  { name: 'Migration20261125100000_descriptor_kind', class: Migration20261125100000_descriptor_kind },
  { name: 'Migration20261125200000_key_activation', class: Migration20261125200000_key_activation },
  { name: 'Migration20261125210000_account_links', class: Migration20261125210000_account_links },
  { name: 'Migration20261125220000_workflow_step_tries', class: Migration20261125220000_workflow_step_tries },
  { name: 'Migration20261127012500_session_handoff', class: Migration20261127012500_session_handoff },
  { name: 'Migration20261127013000_sandbox', class: Migration20261127013000_sandbox },
  { name: 'Migration20261127013500_project_branding', class: Migration20261127013500_project_branding },
  { name: 'Migration20261127014000_session_evidence', class: Migration20261127014000_session_evidence },
  { name: 'Migration20261127150000_wallet_lease', class: Migration20261127150000_wallet_lease },
  { name: 'Migration20261129050000_license_state', class: Migration20261129050000_license_state },
  { name: 'Migration20261129160000_refresh_in_place', class: Migration20261129160000_refresh_in_place },
  { name: 'Migration20261202130000_login_hardening', class: Migration20261202130000_login_hardening },
];
