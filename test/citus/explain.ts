// Which shards a statement touches, read from Citus's EXPLAIN: the statements a request ran are
// recorded (every pg client's query while recording is on) and explained afterwards.
import pg from "pg";

export interface Recorded {
  text: string;
  values: unknown[];
}

const recorded: Recorded[] = [];
let recording = false;
const original = pg.Client.prototype.query;

/** Records the statements of every pg client while `fn` runs. */
export async function recordStatements<T>(fn: () => Promise<T>): Promise<{ out: T; statements: Recorded[] }> {
  // patched for the duration only: the file's other queries run unrecorded
  pg.Client.prototype.query = function (this: pg.Client, config: any, values?: any, cb?: any) {
    if (recording) {
      const text = typeof config === "string" ? config : config?.text;
      const vals = Array.isArray(values) ? values : (config?.values ?? []);
      if (typeof text === "string") recorded.push({ text, values: vals });
    }
    return (original as any).call(this, config, values, cb);
  } as any;
  recorded.length = 0;
  recording = true;
  try {
    const out = await fn();
    return { out, statements: [...recorded] };
  } finally {
    recording = false;
    pg.Client.prototype.query = original;
  }
}

export interface Routing {
  /** the statement was planned by Citus (touches a distributed or reference table) */
  citus: boolean;
  /** tasks of its Citus scans (1 each for a router query) */
  taskCounts: number[];
  /** shard ids named in the plan */
  shards: number[];
}

const EXPLAINABLE = /^\s*(WITH|SELECT|INSERT|UPDATE|DELETE)\b/i;

export function explainable(s: Recorded): boolean {
  return EXPLAINABLE.test(s.text);
}

export async function routing(c: pg.Client, s: Recorded): Promise<Routing> {
  const r = await c.query<{ "QUERY PLAN": string }>(`EXPLAIN (COSTS OFF) ${s.text}`, s.values);
  const plan = r.rows.map((x) => x["QUERY PLAN"]).join("\n");
  const taskCounts = [...plan.matchAll(/Task Count: (\d+)/g)].map((m) => Number(m[1]));
  const shards = [...new Set([...plan.matchAll(/ on \w+?_(\d{6,})\b/g)].map((m) => Number(m[1])))];
  return { citus: /Custom Scan \(Citus/.test(plan), taskCounts, shards };
}
