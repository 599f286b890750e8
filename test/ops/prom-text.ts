// A strict reader of the Prometheus text exposition format (0.0.4), following its rules: HELP and
// TYPE lines before a family's samples, one TYPE per family, sample names belonging to their family
// (histograms: _bucket with le, _sum, _count), label values escaped, values numeric, bucket counts
// non-decreasing and the +Inf bucket equal to _count. Throws on the first violation.
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: string;
  help: string;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+-?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,\s*|$)/y;

function parseLabels(raw: string, line: string): Record<string, string> {
  const out: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < raw.length) {
    const m = LABEL.exec(raw);
    if (!m) throw new Error(`bad labels in: ${line}`);
    if (m[1] in out) throw new Error(`duplicate label ${m[1]} in: ${line}`);
    out[m[1]] = m[2].replace(/\\n/g, "\n").replace(/\\"/g, '"').replace(/\\\\/g, "\\");
  }
  return out;
}

function parseValue(v: string, line: string): number {
  if (v === "+Inf") return Infinity;
  if (v === "-Inf") return -Infinity;
  // prom-client writes "Nan" (an event-loop gauge before its first sample); Prometheus reads any case
  if (/^nan$/i.test(v)) return NaN;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`bad value in: ${line}`);
  return n;
}

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  let current: Family | null = null;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta;
      if (!NAME.test(name)) throw new Error(`bad metric name: ${line}`);
      let f = families.get(name);
      if (!f) {
        f = { name, type: "untyped", help: "", samples: [] };
        families.set(name, f);
      } else if (f.samples.length) throw new Error(`${kind} after samples of ${name}`);
      if (kind === "TYPE") {
        if (!["counter", "gauge", "histogram", "summary", "untyped"].includes(rest)) throw new Error(`bad type: ${line}`);
        f.type = rest;
      } else f.help = rest;
      current = f;
      continue;
    }
    if (line.startsWith("#")) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`bad sample line: ${line}`);
    const [, name, , rawLabels, value] = m;
    if (!current) throw new Error(`sample without family: ${line}`);
    const suffixes = current.type === "histogram" ? ["_bucket", "_sum", "_count"] : current.type === "summary" ? ["", "_sum", "_count"] : [""];
    if (!suffixes.some((s) => name === current!.name + s)) throw new Error(`sample ${name} outside its family ${current.name}`);
    current.samples.push({ name, labels: rawLabels ? parseLabels(rawLabels, line) : {}, value: parseValue(value, line) });
  }
  for (const f of families.values()) if (f.type === "histogram") checkHistogram(f);
  return families;
}

function checkHistogram(f: Family): void {
  const series = new Map<string, Sample[]>();
  for (const s of f.samples.filter((x) => x.name.endsWith("_bucket"))) {
    if (!("le" in s.labels)) throw new Error(`${f.name} bucket without le`);
    const { le: _le, ...rest } = s.labels;
    const key = JSON.stringify(rest);
    series.set(key, [...(series.get(key) ?? []), s]);
  }
  for (const [key, buckets] of series) {
    let prev = -1;
    for (const b of buckets) {
      if (b.value < prev) throw new Error(`${f.name} buckets decrease for ${key}`);
      prev = b.value;
    }
    const inf = buckets.find((b) => b.labels.le === "+Inf");
    const count = f.samples.find((s) => s.name === `${f.name}_count` && JSON.stringify(s.labels) === key);
    if (!inf || !count || inf.value !== count.value) throw new Error(`${f.name} +Inf bucket differs from _count for ${key}`);
  }
}

/** Sum of a family's samples named `sample` whose labels include `labels`. */
export function total(families: Map<string, Family>, family: string, labels: Record<string, string> = {}, sample = family): number {
  const f = families.get(family);
  if (!f) return 0;
  return f.samples.filter((s) => s.name === sample && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0);
}
