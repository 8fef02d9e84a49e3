import { z } from 'zod';
import type { Clock } from '../clock.js';
import { DomainError } from '../errors.js';
import type { MailService } from '../mail/index.js';
import { digestSecret, hashPassword, newSecret } from '../secrets.js';
import { parseInput } from '../validation.js';
import type { AccountLinkPurpose } from './entities.js';
import type { AccountLinkRecord, AccountStore } from './store.js';
import { passwordProblem } from './password-policy.js';
import { createAccountInput, type AccountService } from './service.js';

/** An email verification link works for 24 hours (a password reset also proves the address, later). */
export const VERIFY_LINK_TTL_MS = 24 * 3600_000;
/** A password reset link works for 15 minutes, once. */
export const RESET_LINK_TTL_MS = 15 * 60_000;
/** At most one reset mail per account per minute, however often the form is sent. */
const RESET_MAIL_INTERVAL_MS = 60_000;

const newPasswordInput = z.object({
  password: z
    .string()
    .max(200)
    .superRefine((password, ctx) => {
      const problem = passwordProblem(password);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
});

const emailInput = z.object({ email: z.string().trim().toLowerCase().pipe(z.email()) });

/**
 * What is mailed to an account's address and what following it does: sign-up's verification link
 * (and the notice to an existing owner when someone signs up with their address), and password
 * reset by a single-use link. Links are random secrets; only their digests are stored.
 */
export class AccountRecovery {
  constructor(
    private readonly deps: {
      clock: Clock;
      accounts: AccountService;
      /** The accounts' table (this is the accounts area): the links' account, its address and its password. */
      store: AccountStore;
      mail: MailService;
      /** The public base URL the links point to. */
      baseUrl: string;
      /** After a reset: end every sign-in of the account (tokens, browser sessions, lock). */
      afterPasswordReset: (account: { svcId: string; email: string }) => Promise<void>;
    },
  ) {}

  private now(): Date {
    return this.deps.clock.now();
  }

  private async createLink(
    purpose: AccountLinkPurpose,
    account: { id: string; email: string },
    ttlMs: number,
  ): Promise<string> {
    const secret = newSecret(purpose === 'verify_email' ? 've' : 'pr');
    const now = this.now();
    await this.deps.store.addLink({
      digest: digestSecret(secret),
      purpose,
      accountId: account.id,
      email: account.email,
      createdAt: now,
      expiresAt: new Date(now.getTime() + ttlMs),
    });
    return secret;
  }

  private link(path: string, secret: string): string {
    return `${this.deps.baseUrl}/api/auth/oidc/${path}?token=${encodeURIComponent(secret)}`;
  }

  /** Mails a verification link for the account's address. */
  async sendVerification(svcId: string): Promise<void> {
    const account = await this.deps.store.byId(svcId);
    if (!account) throw new DomainError('account_not_found');
    const link = this.link('verify-email', await this.createLink('verify_email', account, VERIFY_LINK_TTL_MS));
    await this.deps.mail.send([
      {
        to: account.email,
        subject: 'Confirm your email address for Verity',
        text: `Welcome to Verity.\n\nConfirm that this is your email address by opening this link within 24 hours:\n\n${link}\n\nIf you did not create a Verity account, ignore this message.`,
      },
    ]);
  }

  /**
   * Sign-up from the login pages, answering the same whether the email is new or taken: a new
   * address gets an account and a verification link; a taken one gets no account, and its owner
   * a notice (someone tried to sign up with it). Invalid input is `validation_error` either way.
   * Returns the new account's id, or null when the address was taken.
   */
  async signUp(input: unknown): Promise<string | null> {
    const fields = parseInput(createAccountInput, input);
    try {
      const account = await this.deps.accounts.createAccount(fields);
      await this.sendVerification(account.svcId);
      return account.svcId;
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'account_exists') throw error;
    }
    // Costs about what the new-account path costs: createAccount hashed the password before the
    // unique index refused the row, and one mail goes out either way.
    await this.deps.mail.send([
      {
        to: fields.email,
        subject: 'Someone tried to create a Verity account with your address',
        text: `Someone (maybe you) tried to create a new Verity account with this email address, which already has one. No new account was made and nothing changed on yours.\n\nIf it was you, sign in with your password instead. If you forgot it, choose a new one here:\n\n${this.deps.baseUrl}/api/auth/oidc/forgot-password\n\nIf it was not you, you can ignore this message.`,
      },
    ]);
    return null;
  }

  /**
   * Follows a verification link: true when it is live (24 hours) and its address is (now)
   * verified. Following it again answers the same: a mail scanner opening it first does no harm.
   */
  async verifyEmail(secret: string): Promise<boolean> {
    if (!secret || secret.length > 100) return false;
    const link = await this.deps.store.link(digestSecret(secret), 'verify_email');
    if (!link || link.expiresAt <= this.now()) return false;
    await this.deps.store.markLinkUsed(link.digest, this.now());
    return this.markVerified(link);
  }

  private async markVerified(link: AccountLinkRecord): Promise<boolean> {
    // Only the address the link went to: an account whose email changed since is not verified by it.
    return this.deps.store.verifyEmail(link.accountId, link.email, this.now());
  }

  /** Uses a link up, once: the row when it was live and of this purpose, else null. */
  private claim(purpose: AccountLinkPurpose, secret: string): Promise<AccountLinkRecord | null> {
    if (!secret || secret.length > 100) return Promise.resolve(null);
    return this.deps.store.useLink(digestSecret(secret), purpose, this.now());
  }

  /** Whether a reset link can still be used (the reset page shows its form only then). */
  async resetLinkUsable(secret: string): Promise<boolean> {
    if (!secret || secret.length > 100) return false;
    const link = await this.deps.store.link(digestSecret(secret), 'reset_password');
    return !!link && link.usedAt === null && link.expiresAt > this.now();
  }

  /**
   * The "forgot password" form: mails a reset link when an account has this address, and does
   * nothing otherwise (the page answers the same). At most one mail per account per minute.
   */
  async requestReset(input: unknown): Promise<void> {
    const { email } = parseInput(emailInput, input);
    const account = await this.deps.store.byEmail(email);
    if (!account) return;
    const recent = await this.deps.store.linksSentSince(
      account.id,
      'reset_password',
      new Date(this.now().getTime() - RESET_MAIL_INTERVAL_MS),
    );
    if (recent) return;
    const link = this.link('reset-password', await this.createLink('reset_password', account, RESET_LINK_TTL_MS));
    await this.deps.mail.send([
      {
        to: account.email,
        subject: 'Reset your Verity password',
        text: `Someone (we hope you) asked to reset the password of the Verity account with this email address.\n\nChoose a new password here within 15 minutes (the link works once):\n\n${link}\n\nChanging it signs you out of every application. If you did not ask for this, ignore this message: your password stays as it is.`,
      },
    ]);
  }

  /**
   * Sets a new password with a reset link: the password policy first (a refused password leaves
   * the link usable), then the link is used up; every other reset link of the account dies, the
   * address counts as verified (the link proved it), and every sign-in of the account ends.
   * `invalid_token` when the link is unknown, used or expired.
   */
  async resetPassword(secret: string, input: unknown): Promise<void> {
    const { password } = parseInput(newPasswordInput, input);
    const passwordHash = await hashPassword(password);
    const link = await this.claim('reset_password', secret);
    if (!link) throw new DomainError('invalid_token', 'this reset link is invalid, used or expired');
    const account = await this.deps.store.byId(link.accountId);
    if (!account || account.email !== link.email)
      throw new DomainError('invalid_token', 'this reset link is invalid, used or expired');
    await this.deps.store.setPasswordHash(account.id, passwordHash, null);
    await this.deps.store.endLinks(account.id, 'reset_password', this.now());
    await this.markVerified(link);
    await this.deps.afterPasswordReset({ svcId: account.id, email: account.email });
  }
}
