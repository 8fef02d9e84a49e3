import type { AccountService } from '../accounts/service.js';
import { digestSecret, newSecret } from '../secrets.js';
import type { BrowserSession } from './authorization/types.js';
import type { OidcDeps } from './context.js';

const SESSION_TTL_MS = 12 * 3600_000;

/**
 * Browser sessions: who is signed in to this browser (the cookie holds a secret, the table
 * `login_session` its digest, through the grant store). Each authorize request reads one.
 */
export class BrowserSessions {
  constructor(private readonly deps: Pick<OidcDeps, 'grants' | 'clock' | 'accounts' | 'throttle'>) {}

  /**
   * Signs a person in: a session secret for the cookie, or null for a wrong email or password.
   * The attempt is counted before the password is checked (429 rate_limited while the account or
   * address is locked, or its other attempts being checked use up what it may still fail).
   */
  async signIn(
    email: string,
    password: string,
    address: string,
  ): Promise<{ cookie: string; session: BrowserSession } | null> {
    await this.deps.throttle.reserve(email, address);
    let account: Awaited<ReturnType<AccountService['checkPassword']>>;
    try {
      account = await this.deps.accounts.checkPassword(email, password);
    } catch (error) {
      // Not checked: the slot goes back (were the database gone, it lapses on its own).
      await this.deps.throttle.released(email, address).catch(() => undefined);
      throw error;
    }
    if (!account) {
      await this.deps.throttle.failed(email, address);
      return null;
    }
    await this.deps.throttle.succeeded(email, address);
    return this.open(account.svcId);
  }

  /**
   * Creates an account and signs it in (`account_exists`, `validation_error`): the invitation
   * page's sign-up, where the invited address is known already. The login pages' sign-up is
   * AccountRecovery.signUp, which does not tell whether an address has an account.
   */
  async signUp(input: {
    email: string;
    password: string;
    name?: string;
  }): Promise<{ cookie: string; session: BrowserSession }> {
    const account = await this.deps.accounts.createAccount({
      email: input.email,
      password: input.password,
      displayName: input.name || undefined,
    });
    return this.open(account.svcId);
  }

  async open(accountId: string): Promise<{ cookie: string; session: BrowserSession }> {
    const cookie = newSecret('ses');
    const authTime = new Date(Math.floor(this.deps.clock.now().getTime() / 1000) * 1000);
    await this.deps.grants.openBrowserSession(digestSecret(cookie), {
      accountId,
      authTime,
      expiresAt: new Date(authTime.getTime() + SESSION_TTL_MS),
    });
    return { cookie, session: { accountId, authTime } };
  }

  async find(cookie: string | undefined): Promise<BrowserSession | null> {
    if (!cookie || cookie.length > 100) return null;
    const stored = await this.deps.grants.browserSession(digestSecret(cookie));
    if (!stored || stored.expiresAt <= this.deps.clock.now()) return null;
    return { accountId: stored.accountId, authTime: stored.authTime };
  }

  async end(cookie: string | undefined): Promise<void> {
    if (cookie) await this.deps.grants.endBrowserSession(digestSecret(cookie));
  }
}
