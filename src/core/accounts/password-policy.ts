import { createRequire } from 'node:module';

// What a new password must be (issue 20, brute force): at least 10 characters, and not one of the
// ~49,000 passwords most seen in leaks (zxcvbn-ts's common-password list, MIT, read from
// node_modules on first use). Guessing attacks try those first, whatever the throttle.

export const MIN_PASSWORD_LENGTH = 10;

const require = createRequire(import.meta.url);
let common: Set<string> | undefined;

function commonPasswords(): Set<string> {
  common ??= new Set(
    (require('@zxcvbn-ts/language-common') as { dictionary: Record<string, string[]> }).dictionary['passwords-common'],
  );
  return common;
}

/** Why a new password is refused, or null when it may be used. */
export function passwordProblem(password: string): string | null {
  if ([...password].length < MIN_PASSWORD_LENGTH) return `use at least ${MIN_PASSWORD_LENGTH} characters`;
  if (commonPasswords().has(password.toLowerCase()))
    return 'this password is one of the most common ones in leaked lists: choose another';
  return null;
}
