// The configuration reference: one row per setting of src/config.ts (SETTINGS), in its order.
import { SETTINGS } from "../../src/config.js";

const cell = (s: string) => s.replace(/\|/g, "\\|");

export function configReferenceMarkdown(): string {
  const rows = SETTINGS.map((s) => `| \`${s.env}\` | ${cell(s.default)} | ${cell(s.doc)} |`);
  return ["| Variable | Default | Meaning |", "| --- | --- | --- |", ...rows, ""].join("\n");
}
