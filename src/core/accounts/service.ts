import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { DomainError } from '../errors.js';
import { hashPassword, newId, verifyPassword } from '../secrets.js';
import { parseInput } from '../validation.js';
import { Account } from './entities.js';

export const createAccountInput = z.object({
  email: z.string().trim().toLowerCase().pipe(z.email()),
  password: z.string().min(8).max(200),
  displayName: z.string().trim().min(1).max(200).optional(),
});

export const accountView = (account: Account) => ({
  svcId: account.id,
  email: account.email,
  displayName: account.displayName ?? null,
  createdAt: account.createdAt.toISOString(),
});
export type AccountView = ReturnType<typeof accountView>;

/** People's accounts: sign-up and password checks. Identity data arrives with the login issue. */
export class AccountService {
  constructor(private readonly deps: { orm: Orm; clock: Clock }) {}

  async createAccount(input: unknown) {
    const { email, password, displayName } = parseInput(createAccountInput, input);
    const em = this.deps.orm.em.fork();
    const account = em.create(Account, {
      id: newId('svc'),
      email,
      passwordHash: await hashPassword(password),
      displayName: displayName ?? null,
      createdAt: this.deps.clock.now(),
    });
    try {
      await em.flush();
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) throw new DomainError('account_exists');
      throw error;
    }
    return accountView(account);
  }

  /** The account for an email and password, or null; wrong email and wrong password cost the same. */
  async checkPassword(email: string, password: string) {
    const account = await this.deps.orm.em.fork().findOne(Account, { email: email.trim().toLowerCase() });
    const ok = await verifyPassword(password, account?.passwordHash ?? DUMMY_HASH);
    return account && ok ? accountView(account) : null;
  }
}

// A real scrypt hash of a random string, so an unknown email takes as long as a known one.
const DUMMY_HASH = 'scrypt$16384$8$1$6JDgTX3gY8fNcBeugBqsxg==$eaEB68TTqNINRWBwfYzzv6FCZ7IlcsOG8rVFcNFP6bU=';
