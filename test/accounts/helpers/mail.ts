// A real SMTP server on loopback (smtp-server) that collects what Quarry sends, and a small MIME
// decoder so tests can read the text and follow the links like a person would.
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
  raw: string;
}

export interface MailCatcher {
  /** smtp://127.0.0.1:<port>, for SMTP_URL */
  url: string;
  messages: ReceivedMail[];
  /** the first message (received or arriving within the timeout) to `to` matching `subject` that was not taken before */
  next(to: string, subject: RegExp, timeoutMs?: number): Promise<ReceivedMail>;
  /** how many messages went to `to` so far */
  countTo(to: string): number;
  close(): Promise<void>;
}

function decodeQuotedPrintable(s: string): string {
  const bytes = s
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}

function splitHeaders(part: string): { headers: Record<string, string>; body: string } {
  const idx = part.search(/\r?\n\r?\n/);
  const head = idx < 0 ? part : part.slice(0, idx);
  const body = idx < 0 ? "" : part.slice(idx).replace(/^\r?\n\r?\n/, "");
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const m = /^([^:]+):\s*(.*)$/.exec(line);
    if (m) headers[m[1].toLowerCase()] = m[2];
  }
  return { headers, body };
}

/** The text/plain content of a message (single part or multipart), transfer-decoded. */
export function textOf(raw: string): string {
  const { headers, body } = splitHeaders(raw);
  const type = headers["content-type"] ?? "text/plain";
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    const parts = body.split(`--${boundary}`).slice(1, -1);
    const texts = parts.map((p) => textOf(p.replace(/^\r?\n/, ""))).filter((t) => t !== "");
    return texts[0] ?? "";
  }
  if (!/^text\/plain/i.test(type)) return "";
  const cte = (headers["content-transfer-encoding"] ?? "7bit").toLowerCase();
  if (cte === "quoted-printable") return decodeQuotedPrintable(body);
  if (cte === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  return body;
}

export async function startMailCatcher(): Promise<MailCatcher> {
  const messages: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const { headers } = splitHeaders(raw);
        messages.push({
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          subject: headers.subject ?? "",
          text: textOf(raw),
          raw,
        });
        waiters.splice(0).forEach((w) => w());
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;

  const find = (to: string, subject: RegExp) =>
    messages.find((m) => !taken.has(m) && m.to.includes(to.toLowerCase()) && subject.test(m.subject));

  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async next(to, subject, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = find(to, subject);
        if (m) {
          taken.add(m);
          return m;
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no mail to ${to} matching ${subject} within ${timeoutMs} ms; got: ${messages.map((x) => `${x.to} ${x.subject}`).join(" | ")}`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.min(left, 200));
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
    },
    countTo(to) {
      return messages.filter((m) => m.to.includes(to.toLowerCase())).length;
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The token of the first `${base}/<page>?token=...` link in a mail text. */
export function tokenFromLink(text: string, base: string, page: "verify-email" | "reset-password"): string {
  const esc = base.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const m = new RegExp(`${esc}/${page}\\?token=([A-Za-z0-9_%.-]+)`).exec(text);
  if (!m) throw new Error(`no ${page} link to ${base} in:\n${text}`);
  return decodeURIComponent(m[1]);
}

/** The `service_session` cookie pair ("service_session=...") from a response, or null. */
export function sessionCookie(headers: Headers): string | null {
  for (const c of headers.getSetCookie()) {
    const m = /^service_session=([^;]*)/.exec(c);
    if (m && m[1]) return `service_session=${m[1]}`;
  }
  return null;
}

export function setCookieHeader(headers: Headers): string | null {
  return headers.getSetCookie().find((c) => c.startsWith("service_session=")) ?? null;
}
