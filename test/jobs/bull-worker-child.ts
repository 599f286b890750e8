// A worker process for the BullMQ takeover test: runs the "work" queue with a short lock, says
// "started <subject>" when it takes a job and then hangs until it is killed.
import pino from "pino";
import { createBullBackend } from "../../src/jobs/bullmq-queue.js";

const [url, prefix] = process.argv.slice(2);
const backend = await createBullBackend({ url, prefix, tenantConcurrency: 1, log: pino({ level: "silent" }), lockMs: 1_000 });
const q = backend.create({
  name: "work",
  concurrency: 1,
  handlers: {
    work: (job) => {
      process.stdout.write(`started ${job.subject}\n`);
      return new Promise(() => undefined);
    },
  },
});
await q.start();
process.stdout.write("ready\n");
