// Outgoing mail. With SMTP_URL set, messages go out over SMTP (nodemailer); without it, each
// message is rendered to a complete .eml file in DATA_DIR/outbox/ and logged, so a local install
// can follow its own verification and reset links without a mail server.
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import type { Transporter } from "nodemailer";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface Mailer {
  /** "smtp" or "outbox" */
  readonly mode: "smtp" | "outbox";
  /** resolves once the message is handed to the SMTP server or written to the outbox */
  send(msg: MailMessage): Promise<void>;
  /** sends without waiting; failures are logged. close() waits for these. */
  sendInBackground(msg: MailMessage): void;
  close(): Promise<void>;
}

export function createMailer(deps: { smtpUrl: string | null; from: string; outboxDir: string; log: Logger }): Mailer {
  const { log } = deps;
  const pending = new Set<Promise<void>>();

  // nodemailer is loaded with the first message (0.15 CPU-s a process start otherwise, and most
  // processes send none). With SMTP, its transport; without, the stream transport, which renders
  // the exact RFC 5322 message SMTP would carry.
  let transport: Promise<Transporter> | null = null;
  const transporter = () =>
    (transport ??= import("nodemailer").then(({ default: nodemailer }) =>
      deps.smtpUrl ? nodemailer.createTransport(deps.smtpUrl) : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" }),
    ));

  async function send(msg: MailMessage): Promise<void> {
    const mail = { from: deps.from, to: msg.to, subject: msg.subject, text: msg.text, ...(msg.html ? { html: msg.html } : {}) };
    const info = await (await transporter()).sendMail(mail);
    if (deps.smtpUrl) {
      log.info({ to: msg.to, subject: msg.subject, messageId: info.messageId }, "mail sent");
      return;
    }
    await fs.promises.mkdir(deps.outboxDir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const file = path.join(deps.outboxDir, `${stamp}-${randomBytes(4).toString("hex")}.eml`);
    // written aside and renamed into place, so a reader of the outbox never sees half a message
    await fs.promises.writeFile(`${file}.part`, info.message as Buffer, { mode: 0o600 });
    await fs.promises.rename(`${file}.part`, file);
    log.info({ to: msg.to, subject: msg.subject, file }, "mail written to the outbox (SMTP_URL is not set)");
  }

  return {
    mode: deps.smtpUrl ? "smtp" : "outbox",
    send,
    sendInBackground(msg) {
      const p = send(msg)
        .catch((err: unknown) => log.error({ err, to: msg.to, subject: msg.subject }, "mail delivery failed"))
        .finally(() => pending.delete(p));
      pending.add(p);
    },
    async close() {
      await Promise.allSettled([...pending]);
      if (transport) (await transport.catch(() => null))?.close();
    },
  };
}
