// Shared by the console's browser tests: a server with the built console and a Chromium page on it,
// the mails in DATA_DIR/outbox, and the screenshot-and-no-sideways-scrolling check.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { CHROMIUM_ARGS, chromiumPath } from "../../src/crawl/render.js";
import { noModelEnv, startServer, type TestServer } from "../kit/index.js";
import { textOf, tokenFromLink } from "../accounts/helpers/mail.js";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const SHOTS = path.join(ROOT, "test-output", "screenshots");
export const TIMEOUT = 15_000;

/** builds console/dist when it is missing or older than console/ (so a fresh clone's npm test passes) */
export function ensureConsoleBuilt(): void {
  execFileSync(process.execPath, [path.join(ROOT, "scripts/build-console.mjs"), "--if-needed"], { cwd: ROOT, stdio: "pipe" });
  fs.mkdirSync(path.join(SHOTS, "390"), { recursive: true });
}

export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

export interface ConsoleSession {
  s: TestServer;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/**
 * A model-free server whose PUBLIC_URL is itself (so the links in its mails open this console),
 * started beside Chromium, and a 1280 px page on it. `env` adds settings to the server's.
 */
export async function openConsole(env: Record<string, string> = {}): Promise<ConsoleSession> {
  ensureConsoleBuilt();
  const port = await freePort();
  const [s, browser] = await Promise.all([
    startServer({ ...noModelEnv(), PUBLIC_URL: `http://127.0.0.1:${port}`, ...env }, { port }),
    chromium.launch({ executablePath: chromiumPath()!, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 }),
  ]);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: s.url });
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  const close = async () => {
    await context.close();
    await browser.close();
    await s.close();
  };
  return { s, browser, context, page, close };
}

/** Mails in DATA_DIR/outbox, oldest first, each taken once. */
export function outbox(dataDir: string) {
  const seen = new Set<string>();
  return async function next(subject: RegExp): Promise<string> {
    const dir = path.join(dataDir, "outbox");
    const deadline = Date.now() + TIMEOUT;
    for (;;) {
      const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".eml")).sort() : [];
      for (const f of files) {
        if (seen.has(f)) continue;
        const raw = fs.readFileSync(path.join(dir, f), "utf8");
        const subj = /^Subject: (.*)$/m.exec(raw)?.[1] ?? "";
        if (subject.test(subj)) {
          seen.add(f);
          return textOf(raw);
        }
      }
      if (Date.now() > deadline) throw new Error(`no mail matching ${subject} in ${dir}: ${files.join(", ")}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
}

/** The first `${base}/${page}?token=...` link of a mail, checked with the accounts tests' parser. */
export function linkIn(text: string, base: string, page: "verify-email" | "reset-password"): string {
  const token = tokenFromLink(text, base, page);
  return `${base}/${page}?token=${encodeURIComponent(token)}`;
}

/** 1280 px screenshot under a stable name; the same screen at 390 px (in 390/) must not scroll sideways. */
export async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(SHOTS, "390", `${name}.png`), fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `${name} scrolls sideways at 390 px`).toBeLessThanOrEqual(0);
  await page.setViewportSize({ width: 1280, height: 900 });
}
