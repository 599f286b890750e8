// The ready-made public question sets (BEIR): which exist and loading one into a collection with
// its suite. benchmarkRoutes (benchmarks.ts) registers them after the suites' routes.
import { Type } from "@sinclair/typebox";
import { errors, ref } from "../schemas/common.js";
import { IndustryBenchmarkImport, IndustryBenchmarkImportOut, IndustryBenchmarkOut } from "../schemas/benchmarks.js";
import { needs } from "../route-config.js";
import type { RouteApp } from "../route-app.js";
import type { IndustryBenchmarkService } from "../../evaluation/index.js";

const NameParams = Type.Object({ name: Type.String() });
const tags = ["benchmarks"];

/** What these routes use, and nothing else of the runtime. */
export interface IndustryBenchmarkRouteDeps {
  industryBenchmarks: IndustryBenchmarkService;
}

export function registerIndustryBenchmarkRoutes(app: RouteApp, { industryBenchmarks }: IndustryBenchmarkRouteDeps) {
  registerList(app, industryBenchmarks);
  registerImport(app, industryBenchmarks);
}

function registerList(app: RouteApp, industryBenchmarks: IndustryBenchmarkService) {
  app.get(
    "/industry-benchmarks",
    {
      config: needs("search"),
      schema: {
        tags,
        summary: "Ready-made public question sets (BEIR) and how to load one",
        response: { 200: Type.Array(ref(IndustryBenchmarkOut)), ...errors(401, 403) },
      },
    },
    async () => industryBenchmarks.list(),
  );
}

function registerImport(app: RouteApp, industryBenchmarks: IndustryBenchmarkService) {
  app.post(
    "/industry-benchmarks/:name/import",
    {
      config: needs("ingest"),
      schema: {
        tags,
        summary: "Load a public question set into a collection and create its suite",
        description:
          "Reads the BEIR files from the server's data directory (never downloads), creates the collection (unless collection_id is given), " +
          "a data source with every document (their `source` is the BEIR _id) and the suite, then answers 202 while the documents are indexed " +
          "in the background. 409 when the files are not on this server; 429 when the documents do not fit the plan.",
        params: NameParams,
        body: ref(IndustryBenchmarkImport),
        response: { 202: ref(IndustryBenchmarkImportOut), ...errors(401, 403, 404, 409, 422, 429) },
      },
    },
    async (req, reply) => reply.status(202).send(await industryBenchmarks.import(req.principal!, req.params.name, req.body ?? {})),
  );
}
