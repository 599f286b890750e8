// A real S3-compatible server for tests: s3rver (npm, devDependency) in a child process of its
// own (its logger hooks process-wide exception handlers), on a free loopback port, with one
// bucket, its objects in a temp directory that goes when it stops.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "./process.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

export interface S3TestServer {
  endpoint: string;
  bucket: string;
  /** the FILE_STORE_URL and S3_* settings of a process that keeps its originals there */
  env(prefix: string): Record<string, string>;
  close(): Promise<void>;
}

export async function startS3Server(bucket = "quarry-test"): Promise<S3TestServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-s3-"));
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(ROOT, "node_modules/s3rver/bin/s3rver.js"), "-d", dir, "-a", "127.0.0.1", "-p", String(port), "--silent", "--configure-bucket", bucket], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    const up = await fetch(`${endpoint}/${bucket}`).then((r) => r.status < 500, () => false);
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`s3rver did not start: ${out.slice(-1000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    endpoint,
    bucket,
    env: (prefix) => ({
      FILE_STORE_URL: `s3://${bucket}/${prefix}`,
      S3_ENDPOINT: endpoint,
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
    }),
    async close() {
      if (child.exitCode === null) {
        const gone = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await gone;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
