// quarry serve | bench | import ...
import { ConfigError } from "./config.js";

async function main(argv: string[]): Promise<void> {
  const [cmd = "serve", ...rest] = argv;
  switch (cmd) {
    case "serve": {
      const { serve } = await import("./server.js");
      await serve();
      return;
    }
    default:
      console.error(`Unknown command '${cmd}'. Commands: serve.`);
      void rest;
      process.exit(2);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(`Configuration error: ${err.message}`);
    process.exit(2);
  }
  console.error(err);
  process.exit(1);
});
