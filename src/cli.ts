// Entry point of the `quarry` command (bin/quarry.js, or `node dist/cli.js` in production). First
// one malloc arena for the process (cli/malloc-arena.ts), which may run the command again at once,
// so nothing else is loaded until it has decided; then the command itself (cli/main.ts).
import { useOneMallocArena } from "./cli/malloc-arena.js";

useOneMallocArena();
await import("./cli/main.js");
