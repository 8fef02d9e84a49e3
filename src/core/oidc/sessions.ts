import { preparedQuery, sqlDate } from '../db/prepared.js';
import { digestSecret, newSecret } from '../secrets.js';
import type { BrowserSession } from './authorization/types.js';
import type { OidcDeps } from './context.js';

const SESSION_TTL_MS = 12 * 3600_000;

/**
 * Browser sessions: who is signed in to this browser (the cookie holds a secret, the table
 * `login_session` its digest). Each authorize request reads one: named statements, no unit of work.
 */
export class BrowserSessions {
  constructor(private readonly deps: Pick<OidcDeps, 'orm' | 'clock' | 'accounts' | 'throttle'>) {}

  /** Signs a person in: a session secret for the cookie, or null for a wrong email or password. */
  async signIn(email: string, password: string, address: string): Promise<{ cookie: string; session: BrowserSession } | null> {
    await this.deps.throttle.ensureOpen(email, address); // 429 rate_limited while locked, before any password check
    const account = await this.deps.accounts.checkPassword(email, password);
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
  async signUp(input: { email: string; password: string; name?: string }): Promise<{ cookie: string; session: BrowserSession }> {
    const account = await this.deps.accounts.createAccount({ email: input.email, password: input.password, displayName: input.name || undefined });
    return this.open(account.svcId);
  }

  async open(accountId: string): Promise<{ cookie: string; session: BrowserSession }> {
    const cookie = newSecret('ses');
    const authTime = new Date(Math.floor(this.deps.clock.now().getTime() / 1000) * 1000);
    await preparedQuery(this.deps.orm, 'login_session_open', 'insert into login_session (digest, account_id, auth_time, expires_at) values ($1, $2, $3, $4)', [
      digestSecret(cookie),
      accountId,
      authTime,
      new Date(authTime.getTime() + SESSION_TTL_MS),
    ]);
    return { cookie, session: { accountId, authTime } };
  }

  async find(cookie: string | undefined): Promise<BrowserSession | null> {
    if (!cookie || cookie.length > 100) return null;
    const [row] = await preparedQuery<{ account_id: string; auth_time: Date | string; expires_at: Date | string }>(
      this.deps.orm,
      'login_session_find',
      'select account_id, auth_time, expires_at from login_session where digest = $1',
      [digestSecret(cookie)],
    );
    if (!row || sqlDate(row.expires_at) <= this.deps.clock.now()) return null;
    return { accountId: row.account_id, authTime: sqlDate(row.auth_time) };
  }

  async end(cookie: string | undefined): Promise<void> {
    if (cookie) await preparedQuery(this.deps.orm, 'login_session_end', 'delete from login_session where digest = $1', [digestSecret(cookie)]);
  }
}
