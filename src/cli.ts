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
    case "bench": {
      const { benchCommand } = await import("./bench/run.js");
      process.exit(await benchCommand(rest));
      return;
    }
    case "import": {
      const { importCommand } = await import("./bench/import-command.js");
      process.exit(await importCommand(rest));
      return;
    }
    default:
      console.error(`Unknown command '${cmd}'. Commands: serve, bench, import beir.`);
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
