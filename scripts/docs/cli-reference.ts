// The CLI reference: every command's own --help text, at the fixed width program.ts sets, so the
// reference is what a user sees in a terminal.
import { buildProgram, helpTexts } from "../../src/cli/program.js";

export function cliReferenceMarkdown(): string {
  return helpTexts(buildProgram({ done: () => undefined }))
    .filter((h) => !h.command.endsWith(" help"))
    .map((h) => `## \`${h.command}\`\n\n\`\`\`text\n${h.help.trimEnd()}\n\`\`\`\n`)
    .join("\n");
}
