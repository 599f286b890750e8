// The hand-made collection the tuning tests (tune.test.ts, tune-jobs.test.ts) tune: for each topic
// a "note" names the topic only in its body (the relevant document) and a "memo" only in its title
// and headings (a distractor). Without a model (lexical search) their rankings are certain.
import { expect } from "vitest";
import { createCollection, createSource, upload, waitIndexed, type TestServer } from "../kit/index.js";

export const TOPICS = ["gearbox", "blades", "tower", "generator", "yaw", "nacelle", "inverter", "anemometer", "transformer", "brake"];
/** the memo comes first for every query; weights that let the body count bring the note first */
export const TITLE_HEAVY = { field_weights: { title: 10, headings: 10, body: 1 } };

/** A source and a collection holding a note and a memo per topic, all indexed; document ids by topic. */
export async function servicingCollection(s: TestServer, key: string) {
  const src = await createSource(s, key);
  const collection = await createCollection(s, key, [src]);
  const files = TOPICS.flatMap((t, i) => [
    {
      name: `note-${t}.md`,
      content: `# Field note ${i}\n\nThe ${t} servicing procedure. Log every ${t} servicing step; the ${t} servicing record is kept on site. ${t} servicing takes two hours.\n`,
    },
    { name: `memo-${t}.md`, content: `# ${t} servicing\n\nContact the site office.\n` },
  ]);
  expect((await upload(s, key, src, files)).status).toBe(202);
  const note: Record<string, string> = {};
  const memo: Record<string, string> = {};
  for (const d of await waitIndexed(s, key, src)) {
    expect(d.status).toBe("indexed");
    const [kind, topic] = d.source.replace(/\.md$/, "").split("-");
    (kind === "note" ? note : memo)[topic!] = d.id;
  }
  return { collection, note, memo };
}
