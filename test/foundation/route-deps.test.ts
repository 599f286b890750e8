// Route plugins name the services they use (a small typed options object) instead of taking the
// whole Runtime, and never reach the store: a route file that imports runtime.ts or store/ fails.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const dir = fileURLToPath(new URL("../../src/http/routes/", import.meta.url));
const routeFiles = fs.readdirSync(dir).filter((f) => f.endsWith(".ts"));

it.each(routeFiles)("%s declares its services and imports neither the runtime nor the store", (file) => {
  const text = fs.readFileSync(path.join(dir, file), "utf8");
  const imports = [...text.matchAll(/from "([^"]+)"/g)].map((m) => m[1]);
  expect(imports.filter((i) => /runtime\.js$|\/store\//.test(i))).toEqual([]);
  expect(text).toMatch(/export interface \w+RouteDeps \{/);
});
