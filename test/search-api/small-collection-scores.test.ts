// Issue 27 item 5: calibrated scores mean the same in a collection of ten short pages as in a large
// one. The clearly right answer to a plain question keeps a score >= 0.5, so `min_score: 0.5` keeps
// it and drops the rest. Through HTTP with the real models of both shipped profiles. (Before the
// calibration learnt collection size, calibration.ts `small`, the answer scored 0.03 here.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, indexedCollection } from "../kit/index.js";

const PAGES: { name: string; content: string }[] = [
  {
    name: "otters.md",
    content: `# Otter Field Notes

Through the cold months the river otters we follow live mostly on fish: slow-moving carp, perch
and sticklebacks caught under the ice. When the water freezes hard they turn to frogs hibernating
in the mud, crayfish and the odd water bird. A winter otter needs about a fifth of its weight in
food every day to stay warm.
`,
  },
  { name: "tyres.md", content: "# Winter tyres\n\nFit winter tyres when the temperature stays below seven degrees. Check the tread depth and the pressure every month; cold air lowers it.\n" },
  { name: "bread.md", content: "# Sourdough basics\n\nFeed the starter with flour and water the evening before. Mix, rest, fold four times, shape the loaf and bake it hot in a covered pot.\n" },
  { name: "garden.md", content: "# Preparing the garden for frost\n\nCover tender plants with fleece, move pots against the house wall and mulch the beds with leaves before the first hard frost.\n" },
  { name: "invoice.md", content: "# Sending an invoice\n\nOpen Billing, choose New invoice, add the customer and the lines, then press Send. Paid invoices move to the archive automatically.\n" },
  { name: "bikes.md", content: "# Bicycle chain care\n\nWipe the chain after a wet ride, oil every link and remove the excess. A chain that skips under load is worn and should be replaced.\n" },
  { name: "meeting.md", content: "# Running a good meeting\n\nSend the agenda a day ahead, start on time, keep a list of decisions and owners, and end five minutes early.\n" },
  { name: "heating.md", content: "# Bleeding a radiator\n\nTurn the heating off, hold a cloth under the valve and open it with the key until water comes out, then close it and check the boiler pressure.\n" },
  { name: "birds.md", content: "# Feeding garden birds\n\nHang seed feeders and fat balls away from cats. Clean the feeders every two weeks and keep fresh water out, even when it freezes.\n" },
  { name: "passwords.md", content: "# Resetting your password\n\nOpen Settings, then Security, and choose Send reset link. The link stays valid for one hour.\n" },
];

const QUERY = "what do otters eat in winter";

describe.each(["default", "use-lite-int8", "quarry-static"])("scores in a collection of ten short pages (%s profile)", (profile) => {
  let s: TestServer;
  let key: string;
  let collection: string;
  beforeAll(async () => {
    s = await startServer({ EMBEDDING_PROFILE: profile }, { listen: false });
    expect(await s.rt.embedder!.whenReady()).toBe(true);
    ({ key, collection } = await indexedCollection(s, PAGES));
  }, 180_000);
  afterAll(async () => s?.close());

  const search = (body: Record<string, unknown>) => s.call("POST", "/search", { key, json: { collection_id: collection, ...body } });

  it("scores the clearly right answer at least 0.5 and every other page below", async () => {
    const r = await search({ query: QUERY, top_k: 10, explain: true });
    expect(r.status).toBe(200);
    expect(r.body.mode).toBe("hybrid");
    expect(r.body.results[0].title).toBe("Otter Field Notes");
    expect(r.body.results[0].score).toBeGreaterThanOrEqual(0.5);
    for (const h of r.body.results.slice(1)) expect(h.score).toBeLessThan(0.5);
  });

  it("min_score 0.5 keeps the answer and drops the rest", async () => {
    const r = await search({ query: QUERY, min_score: 0.5 });
    expect(r.status).toBe(200);
    expect(r.body.results.map((h: any) => h.title)).toEqual(["Otter Field Notes"]);
    expect(r.body.total).toBe(1);
  });

  it("a question none of the pages answers keeps nothing at min_score 0.5", async () => {
    for (const query of ["how do I renew my passport", "what is the capital city of australia"]) {
      const r = await search({ query, min_score: 0.5 });
      expect(r.status).toBe(200);
      expect(r.body.results).toEqual([]);
    }
  });
});
