// A small indexed collection shared by the agent tests: distinct topics so the expected document
// of each query is unambiguous.
import { type TestServer, createCollection, createSource, upload, waitIndexed } from "../kit/index.js";

export const DOCS = {
  "gearbox.md": `# Turbine gearbox maintenance

The gearbox lubrication interval is 2000 operating hours. Drain the old oil while it is warm and
refill with ISO VG 320 synthetic gear oil. Inspect the magnetic plug for metal particles.
`,
  "pasta.md": `# Cooking pasta

Boil a large pot of water, add salt, and stir the spaghetti so it does not stick. Drain it one
minute before the time on the packet and finish it in the sauce.
`,
  "cats.md": `# Feline nutrition

Cats are obligate carnivores. Their food must contain taurine and animal protein; a diet of
vegetables alone makes them ill.
`,
};

export interface AgentFixture {
  tenantId: string;
  adminKey: string;
  searchKey: string;
  collectionId: string;
  sourceId: string;
  /** document id by file name */
  docs: Record<string, string>;
}

export async function indexedFixture(s: TestServer): Promise<AgentFixture> {
  const t = await s.tenant();
  const keyRes = await s.call("POST", "/api-keys", { key: t.adminKey, json: { name: "agent", scopes: ["search"] } });
  if (keyRes.status !== 201) throw new Error(`search key: ${keyRes.status} ${JSON.stringify(keyRes.body)}`);
  const sourceId = await createSource(s, t.adminKey);
  const collectionId = await createCollection(s, t.adminKey, [sourceId], "Handbook");
  const up = await upload(
    s,
    t.adminKey,
    sourceId,
    Object.entries(DOCS).map(([name, content]) => ({ name, content, type: "text/markdown" })),
  );
  if (up.status !== 202) throw new Error(`upload: ${up.status} ${JSON.stringify(up.body)}`);
  const indexed = await waitIndexed(s, t.adminKey, sourceId);
  const docs = Object.fromEntries(indexed.map((d: any) => [d.source, d.id]));
  return { tenantId: t.id, adminKey: t.adminKey, searchKey: keyRes.body.key, collectionId, sourceId, docs };
}
