import nodemailer, { type Transporter } from 'nodemailer';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { newId, type Sealer } from '../secrets.js';
import { MailOutboxMessage } from './entities.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** Sends mail. `send` answers how many messages could not be handed over (never throws for one bad address). */
export interface Mailer {
  readonly kind: 'smtp' | 'outbox';
  send(messages: MailMessage[]): Promise<{ failed: number }>;
}

export interface MailOptions {
  /** e.g. `smtps://user:pass@smtp.example.com:465`; unset means the development outbox. */
  smtpUrl?: string;
  /** The From header, e.g. `Verity <no-reply@example.com>`. */
  from?: string;
}

export const DEFAULT_MAIL_FROM = 'Verity <no-reply@verity.local>';

/** Hands mail to an SMTP server with nodemailer, a few messages at a time. */
export class SmtpMailer implements Mailer {
  readonly kind = 'smtp';
  private readonly transport: Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    this.transport = nodemailer.createTransport(smtpUrl);
  }

  async send(messages: MailMessage[]): Promise<{ failed: number }> {
    let failed = 0;
    const queue = [...messages];
    const worker = async () => {
      for (let message = queue.shift(); message; message = queue.shift()) {
        await this.transport.sendMail({ from: this.from, ...message }).catch(() => {
          failed += 1;
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(4, messages.length) }, worker));
    return { failed };
  }
}

/** Stores mail in Postgres (`mail_outbox`, bodies sealed) instead of sending it. */
export class OutboxMailer implements Mailer {
  readonly kind = 'outbox';

  constructor(private readonly deps: { orm: Orm; clock: Clock; sealer: Sealer }) {}

  async send(messages: MailMessage[]): Promise<{ failed: number }> {
    if (!messages.length) return { failed: 0 };
    const em = this.deps.orm.em.fork();
    const now = this.deps.clock.now();
    for (const message of messages) {
      em.create(MailOutboxMessage, {
        id: newId('mail'),
        recipient: message.to.trim().toLowerCase(),
        subject: message.subject,
        bodySealed: this.deps.sealer.seal(JSON.stringify({ text: message.text, html: message.html ?? null })),
        createdAt: now,
      });
    }
    await em.flush();
    return { failed: 0 };
  }

  /** Newest first; optionally only mail to one address. */
  async list(options: { to?: string; limit?: number } = {}) {
    const where = options.to ? { recipient: options.to.trim().toLowerCase() } : {};
    const rows = await this.deps.orm.em.fork().find(MailOutboxMessage, where, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: options.limit ?? 50 });
    return rows.map((row) => {
      const body = JSON.parse(this.deps.sealer.open(row.bodySealed)) as { text: string; html: string | null };
      return { id: row.id, to: row.recipient, subject: row.subject, text: body.text, html: body.html, createdAt: row.createdAt.toISOString() };
    });
  }
}

/** SMTP when configured, else the development outbox. The outbox is always readable by ops. */
export class MailService {
  readonly mailer: Mailer;
  readonly outbox: OutboxMailer;

  constructor(deps: { orm: Orm; clock: Clock; sealer: Sealer }, options: MailOptions = {}) {
    this.outbox = new OutboxMailer(deps);
    this.mailer = options.smtpUrl ? new SmtpMailer(options.smtpUrl, options.from ?? DEFAULT_MAIL_FROM) : this.outbox;
  }

  send(messages: MailMessage[]) {
    return this.mailer.send(messages);
  }
}
