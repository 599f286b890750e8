// A pathological file fails alone and quickly with the limit named, and does not hold up another
// tenant's upload made right after it.
import { expect, it } from "vitest";
import { createSource, noModelEnv, upload, useServer, waitIndexed } from "../kit/index.js";

const s = useServer(noModelEnv());

it("fails 50,000 nested divs within 5 s naming the depth limit, while another tenant's upload is indexed", async () => {
  const a = await s.tenant("Attacker");
  const b = await s.tenant("Bystander");
  const srcA = await createSource(s, a.adminKey);
  const srcB = await createSource(s, b.adminKey);
  // warm the parse workers first, so the clock below measures the parse, not a worker's start-up
  // (a few hundred ms on a quiet machine, many seconds on a loaded one)
  const warm = Array.from({ length: 2 }, (_, i) => ({ name: `warm-${i}.md`, content: `# Warm ${i}\n\nWarm-up text.`, type: "text/markdown" }));
  expect((await upload(s, b.adminKey, srcB, warm)).status).toBe(202);
  await waitIndexed(s, b.adminKey, srcB, 60_000);
  const deep = `<html><body>${"<div>".repeat(50_000)}deep${"</div>".repeat(50_000)}</body></html>`;
  const files = [{ name: "deep.html", content: deep, type: "text/html" }];

  const upA = await upload(s, a.adminKey, srcA, files);
  expect(upA.status).toBe(202);
  const upB = await upload(s, b.adminKey, srcB, [{ name: "notes.md", content: "# Notes\n\nThe bystander's notes on ferns.", type: "text/markdown" }]);
  expect(upB.status).toBe(202);

  const docsB = await waitIndexed(s, b.adminKey, srcB, 30_000);
  expect(docsB.map((d) => d.status)).toEqual(["indexed", "indexed", "indexed"]);
  const docsA = await waitIndexed(s, a.adminKey, srcA, 30_000);
  for (const d of docsA) {
    expect(d.status).toBe("failed");
    expect(d.error).toBe(
      "The HTML document nests elements 50000 levels deep; the limit is 256. Simplify its structure (or save it as plain text) and upload again.",
    );
    expect(Date.parse(d.updated_at) - Date.parse(d.created_at)).toBeLessThan(5_000);
  }
});
