// The adapted query model's file and encoder (src/model/query-delta.ts) over the shipped model:
// the file round-trips and refuses damage; a delta without rows embeds as the base model does; a
// delta's rows change the queries that hold its tokens and no other.
import { describe, expect, it } from "vitest";
import path from "node:path";
import { readModel } from "../../src/model/artifact.js";
import { StaticEncoder } from "../../src/model/encoder.js";
import { MODEL_DIR, MODEL_FILE } from "../../src/model/paths.js";
import { AdaptedQueryEncoder, baseRow, decodeQueryDelta, encodeQueryDelta, QueryDeltaError, type QueryDelta } from "../../src/model/query-delta.js";
import { modelTokens } from "../../src/model/tokenizer.js";
import { adaptQueries, passageVectors, scorePairs, type AdaptPair } from "../../src/model/query-adapt.js";

const { header, parts } = readModel(path.join(MODEL_DIR, MODEL_FILE));
const base = new StaticEncoder(parts);
const dim = parts.shape.dim;
const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

/** a delta moving the row of `token` to the row of `to` (and taking its weight) */
function moved(token: string, to: string): QueryDelta {
  const rows = new Float32Array(dim);
  baseRow(base, base.rowOfToken(to), rows);
  return { baseModel: header.model, basePayloadSha256: header.payload_sha256, dim, tokens: [token], rows, weights: Float32Array.of(parts.params.weights[base.rowOfToken(to)]!), training: { test: true } };
}

describe("adapted query model", () => {
  const [river] = modelTokens("river");
  const [spreadsheet] = modelTokens("spreadsheet");

  it("round-trips through its file, rows within int8 precision", () => {
    const d = moved(river!, spreadsheet!);
    const back = decodeQueryDelta(encodeQueryDelta(d));
    expect(back.tokens).toEqual(d.tokens);
    expect(back.weights).toEqual(d.weights);
    expect(back.baseModel).toBe(header.model);
    expect(back.training).toEqual({ test: true });
    const err = Math.max(...Array.from(back.rows, (x, i) => Math.abs(x - d.rows[i]!)));
    expect(err).toBeLessThan(Math.max(...d.rows.map(Math.abs)) / 100);
  });

  it("refuses a damaged or foreign file", () => {
    const buf = encodeQueryDelta(moved(river!, spreadsheet!));
    buf[buf.length - 1] ^= 0xff;
    expect(() => decodeQueryDelta(buf)).toThrow(QueryDeltaError);
    expect(() => decodeQueryDelta(Buffer.from("QSM1\nnot a delta"))).toThrow(/not a Quarry query adaptation/);
  });

  it("embeds as the base model without rows, and changes only queries holding its tokens", () => {
    const none = new AdaptedQueryEncoder(base, { ...moved(river!, spreadsheet!), tokens: [], rows: new Float32Array(0), weights: new Float32Array(0) });
    for (const q of ["how do I sum a column", "river crossing", "readFileSync options"]) expect(cos(none.embed(q), base.embed(q))).toBeGreaterThan(0.9999);
    const adapted = new AdaptedQueryEncoder(base, moved(river!, spreadsheet!));
    expect(cos(adapted.embed("printer toner"), base.embed("printer toner"))).toBeGreaterThan(0.9999);
    // "river" now means what "spreadsheet" means to the base model
    // "river" now has what "spreadsheet" means to the base model in the trained dimensions (its exact-word part stays its own)
    const trained = (v: Float32Array) => v.subarray(0, dim);
    const unit = (v: Float32Array) => {
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    };
    expect(cos(unit(trained(adapted.embed("river"))), unit(trained(base.embed("spreadsheet"))))).toBeGreaterThan(0.999);
    expect(cos(unit(trained(base.embed("river"))), unit(trained(base.embed("spreadsheet"))))).toBeLessThan(0.9);
  });
});

describe("query adaptation training", () => {
  // 600 headings naming one of six subjects with words their sections never use (a water word heads spreadsheet text)
  const subjects = [
    { heading: ["river", "lake", "stream", "pond", "creek"], body: ["spreadsheet", "cell", "formula", "column", "row", "chart", "pivot", "sheet"] },
    { heading: ["violin", "piano", "guitar", "trumpet", "drum"], body: ["password", "login", "account", "security", "token", "reset", "session", "lock"] },
    { heading: ["tomato", "carrot", "onion", "pepper", "garlic"], body: ["printer", "paper", "toner", "page", "margin", "print", "scan", "tray"] },
    { heading: ["castle", "tower", "bridge", "palace", "temple"], body: ["invoice", "payment", "customer", "billing", "refund", "price", "tax", "receipt"] },
    { heading: ["eagle", "falcon", "sparrow", "owl", "heron"], body: ["server", "network", "port", "firewall", "router", "proxy", "packet", "gateway"] },
    { heading: ["winter", "summer", "autumn", "spring", "season"], body: ["font", "bold", "italic", "paragraph", "style", "indent", "underline", "size"] },
  ];
  const pairs: AdaptPair[] = Array.from({ length: 600 }, (_, i) => {
    const s = subjects[i % 6]!;
    return {
      id: `p${i}`,
      query: `${s.heading[i % 5]} ${s.heading[(i + 2) % 5]} ${i}`,
      passage: Array.from({ length: 30 }, (_, k) => s.body[(i * 7 + k * 3) % s.body.length]).join(" "),
    };
  });
  const masked = passageVectors(base, pairs, true);
  const train = pairs.map((_, i) => i).filter((i) => i % 10 !== 0);
  const held = pairs.map((_, i) => i).filter((i) => i % 10 === 0);

  it("lowers its loss, lifts held-out pairs it never saw, and is deterministic", async () => {
    const a = await adaptQueries(base, pairs, masked, train);
    expect(a.losses[a.losses.length - 1]!).toBeLessThan(a.losses[0]!);
    const adapted = new AdaptedQueryEncoder(base, { ...a.delta, baseModel: header.model, basePayloadSha256: header.payload_sha256, training: {} });
    // a held-out heading's 10 nearest sections: how many are of its subject (its section has 99 near twins)
    const whole = passageVectors(base, pairs, false);
    const d = whole.length / pairs.length;
    const sameSubject = (embed: (q: string) => Float32Array) =>
      held.reduce((n, i) => {
        const q = embed(pairs[i]!.query);
        const scores = pairs.map((_, j) => ({ j, s: q.reduce((a, x, k) => a + x * whole[j * d + k]!, 0) }));
        scores.sort((x, y) => y.s - x.s);
        return n + scores.slice(0, 10).filter((x) => x.j % 6 === i % 6).length;
      }, 0);
    const before = sameSubject((q) => base.embed(q));
    const after = sameSubject((q) => adapted.embed(q));
    expect(after).toBeGreaterThan(before + held.length * 2);
    const b = await adaptQueries(base, pairs, masked, train);
    expect(b.delta.tokens).toEqual(a.delta.tokens);
    expect(b.delta.rows).toEqual(a.delta.rows);
  }, 60_000);

  it("lets the event loop run while it trains (a server keeps answering searches)", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const t0 = performance.now();
    await adaptQueries(base, pairs, masked, train);
    const ms = performance.now() - t0;
    clearInterval(timer);
    // it yields between batches once 20 ms of work have passed: a 1 ms timer fires at each yield (a
    // batch of 128 takes tens of ms here); run without yielding, the timer could not fire at all
    expect(ms).toBeGreaterThan(100);
    expect(ticks).toBeGreaterThanOrEqual(Math.max(2, Math.floor(ms / 250)));
  }, 60_000);
});
