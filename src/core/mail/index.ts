import nodemailer, { type Transporter } from 'nodemailer';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { newId, type Sealer } from '../secrets.js';
import { preparedQuery, sqlDate } from '../db/prepared.js';

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

/**
 * Stores mail in Postgres (`mail_outbox`, bodies sealed) instead of sending it: the only code that touches that table.
 */
export class OutboxMailer implements Mailer {
  readonly kind = 'outbox';

  constructor(private readonly deps: { orm: Orm; clock: Clock; sealer: Sealer }) {}

  async send(messages: MailMessage[]): Promise<{ failed: number }> {
    if (!messages.length) return { failed: 0 };
    // Every message in one statement, one array per column.
    await preparedQuery(
      this.deps.orm,
      'mail_outbox_add',
      `insert into mail_outbox (id, recipient, subject, body_sealed, created_at)
       select m.id, m.recipient, m.subject, m.body_sealed, $5 from unnest($1::varchar[], $2::varchar[], $3::varchar[], $4::text[]) as m(id, recipient, subject, body_sealed)`,
      [
        messages.map(() => newId('mail')),
        messages.map((message) => message.to.trim().toLowerCase()),
        messages.map((message) => message.subject),
        messages.map((message) =>
          this.deps.sealer.seal(JSON.stringify({ text: message.text, html: message.html ?? null })),
        ),
        this.deps.clock.now(),
      ],
    );
    return { failed: 0 };
  }

  /** Newest first; optionally only mail to one address. */
  async list(options: { to?: string; limit?: number } = {}) {
    const rows = await preparedQuery<{
      id: string;
      recipient: string;
      subject: string;
      body_sealed: string;
      created_at: Date | string;
    }>(
      this.deps.orm,
      'mail_outbox_list',
      'select id, recipient, subject, body_sealed, created_at from mail_outbox where ($1::varchar is null or recipient = $1) order by created_at desc, id desc limit $2',
      [options.to ? options.to.trim().toLowerCase() : null, options.limit ?? 50],
    );
    return rows.map((row) => {
      const body = JSON.parse(this.deps.sealer.open(row.body_sealed)) as { text: string; html: string | null };
      return {
        id: row.id,
        to: row.recipient,
        subject: row.subject,
        text: body.text,
        html: body.html,
        createdAt: sqlDate(row.created_at).toISOString(),
      };
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
