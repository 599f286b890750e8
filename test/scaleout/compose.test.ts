// compose.scale.yaml, the operators' scale-out shape: parsed as YAML (with its merge keys, as
// Compose reads them) and checked for what docs/scale-out.md promises — pgvector and Redis images with
// health checks, migrations once before anything starts, API replicas that run no jobs, worker
// replicas that serve no HTTP, all on one database, one queue and one shared file volume, built
// from the project's Dockerfile with commands that exist in its CLI.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { buildProgram } from "../../src/cli/program.js";

const compose = parse(fs.readFileSync("compose.scale.yaml", "utf8"), { merge: true }) as any;
const services = compose.services as Record<string, any>;
const quarry = ["migrate", "api", "worker"];

describe("compose.scale.yaml", () => {
  it("has PostgreSQL with pgvector and Redis, each with a health check and a volume", () => {
    expect(services.postgres.image).toMatch(/^pgvector\/pgvector:/);
    expect(services.redis.image).toMatch(/^redis:\d/);
    for (const s of ["postgres", "redis"]) {
      expect(services[s].healthcheck.test.length).toBeGreaterThan(0);
      expect(services[s].volumes.length).toBe(1);
    }
    // BullMQ loses jobs if Redis evicts keys
    expect(services.redis.command).toContain("noeviction");
  });

  it("runs the Quarry services from the Dockerfile with real CLI commands", () => {
    const program = buildProgram({ done: () => undefined });
    const commands = new Map(program.commands.map((c) => [c.name(), c]));
    for (const name of quarry) {
      const s = services[name];
      expect(s.build.context).toBe(".");
      expect(s.command.slice(0, 2)).toEqual(["node", "dist/cli.js"]);
      const cmd = commands.get(s.command[2]);
      expect(cmd, `${name}: unknown command ${s.command[2]}`).toBeDefined();
      for (const flag of s.command.slice(3)) expect(cmd!.options.map((o) => o.long)).toContain(flag);
    }
    expect(services.api.command.slice(2)).toEqual(["serve", "--no-worker"]);
    expect(services.worker.command.slice(2)).toEqual(["worker"]);
    expect(fs.readFileSync("Dockerfile", "utf8")).toMatch(/COPY --from=build \/app\/dist \.\/dist/);
  });

  it("puts every Quarry process on the same database, queue and file volume", () => {
    const envs = quarry.map((n) => services[n].environment);
    for (const key of ["DATABASE_URL", "REDIS_URL", "QUEUE_PREFIX", "PLATFORM_API_KEY"]) {
      expect(new Set(envs.map((e) => e[key])).size, key).toBe(1);
    }
    expect(envs[0].DATABASE_URL).toMatch(/^postgres:\/\/[^@]+@postgres:5432\//);
    expect(envs[0].REDIS_URL).toBe("redis://redis:6379");
    for (const n of quarry) expect(services[n].volumes).toEqual(["quarry-files:/data"]);
    expect(Object.keys(compose.volumes)).toEqual(expect.arrayContaining(["postgres-data", "redis-data", "quarry-files"]));
    expect(services.api.environment.HOST).toBe("0.0.0.0");
  });

  it("migrates once before the API and worker replicas start, and scales both", () => {
    expect(services.migrate.command.slice(2)).toEqual(["migrate"]);
    expect(services.migrate.depends_on.postgres.condition).toBe("service_healthy");
    for (const n of ["api", "worker"]) {
      expect(services[n].depends_on.migrate.condition).toBe("service_completed_successfully");
      expect(services[n].depends_on.redis.condition).toBe("service_healthy");
      expect(String(services[n].deploy.replicas)).toMatch(/^\$\{\w+_REPLICAS:-2\}$/);
    }
    // the image's HEALTHCHECK probes HTTP, which a worker does not serve
    expect(services.worker.healthcheck.disable).toBe(true);
    expect(services.worker.ports).toBeUndefined();
  });
});
