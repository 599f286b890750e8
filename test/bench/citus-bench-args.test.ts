// The bench's store choice and Citus cluster options: names checked, SQLite first, workers parsed.
import { describe, expect, it } from "vitest";
import { Command } from "commander";
import { addBenchOptions, benchOptionsFrom } from "../../src/evaluation/bench/args.js";
import { openBenchCitus, parseWorkers } from "../../src/evaluation/bench/citus.js";

function parse(argv: string[]) {
  const cmd = addBenchOptions(new Command().exitOverride());
  cmd.parse(argv, { from: "user" });
  return benchOptionsFrom(cmd.opts() as any, "/data");
}

describe("bench stores", () => {
  it("takes citus beside the others, SQLite first", () => {
    expect(parse(["--stores", "citus,postgres"]).stores).toEqual(["sqlite", "postgres", "citus"]);
    expect(parse(["--store", "citus"]).stores).toEqual(["sqlite", "citus"]);
  });

  it("passes a given cluster on, and refuses an unknown store by name", () => {
    const o = parse(["--stores", "citus", "--citus-url", "postgres://postgres@10.0.0.1:5432/postgres", "--citus-workers", "10.0.0.2:5432"]);
    expect([o.citusUrl, o.citusWorkers]).toEqual(["postgres://postgres@10.0.0.1:5432/postgres", "10.0.0.2:5432"]);
    expect(() => parse(["--stores", "sqlite,mysql"])).toThrow(/unknown store "mysql"/);
  });

  it("reads workers as host:port and says which one is not", async () => {
    expect(parseWorkers("w1:5432, w2:6432")).toEqual([{ host: "w1", port: 5432 }, { host: "w2", port: 6432 }]);
    expect(() => parseWorkers("w1:5432,w2")).toThrow(/"w2" is not host:port/);
    await expect(openBenchCitus({ url: "postgres://postgres@c:5432/postgres", workers: null }, () => {})).rejects.toThrow(/--citus-workers/);
  });
});
