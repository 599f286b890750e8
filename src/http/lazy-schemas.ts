// Request validators and response serializers built on first use. Fastify compiles every route's
// schemas when a server starts, and fast-json-stringify validates all the shared schemas again for
// each response schema: about 1.5 s of CPU per server start, spent on routes a process may never
// answer (a worker's health port, a test's server). Here a route's serializer is built the first
// time a response of its status is sent, by Fastify's own compiler, once per schema object (error
// responses share theirs across routes, and every app of the process shares them); validators
// likewise (validation.ts).
// compileAllSchemas builds everything at once, so a broken schema fails a test, not a response.
import { SerializerSelector } from "@fastify/fast-json-stringify-compiler";
import type { FastifyInstance, FastifySerializerCompiler } from "fastify";
import type { TSchema } from "@sinclair/typebox";
import { createAjvPair, createValidators, type AjvPair } from "./validation.js";

type Serialize = (data: unknown) => string;

type BuildSerializer = ReturnType<ReturnType<typeof SerializerSelector>>;

interface SharedCompilers {
  ajv: AjvPair;
  build: BuildSerializer;
  /** serializers by schema object */
  built: WeakMap<object, Serialize>;
}

/**
 * What every app of a process shares for one set of shared schemas: Ajv keeps each validator it
 * compiled by schema object and `built` each serializer, so a route's are compiled once per
 * process, not once per app (a test run opens hundreds; two new Ajv instances compiling the
 * meta-schema alone were about 20 ms of CPU an app).
 */
const perProcess = new WeakMap<TSchema[], SharedCompilers>();

function sharedCompilers(shared: TSchema[]): SharedCompilers {
  let compilers = perProcess.get(shared);
  if (!compilers) {
    const externals = Object.fromEntries(shared.map((s) => [s.$id as string, s]));
    compilers = { ajv: createAjvPair(shared), build: SerializerSelector()(externals, {}), built: new WeakMap() };
    perProcess.set(shared, compilers);
  }
  return compilers;
}

function lazySerializers({ build, built }: SharedCompilers) {
  const pending = new Set<() => Serialize>();
  const compiler: FastifySerializerCompiler<unknown> = (route) => {
    const schema = route.schema as object;
    let fn: Serialize | undefined;
    const get = () => {
      if (fn) return fn;
      pending.delete(get);
      fn = built.get(schema);
      if (!fn) built.set(schema, (fn = build(route as Parameters<typeof build>[0]) as Serialize));
      return fn;
    };
    pending.add(get);
    return (data: unknown) => get()(data);
  };
  const buildAll = () => {
    const todo = [...pending];
    for (const get of todo) get();
    return todo.length;
  };
  return { compiler, buildAll };
}

const compileAlls = new WeakMap<FastifyInstance, () => number>();

/** Validates requests and serializes responses of `app` against its schemas, each compiled on first use. */
export function useLazySchemas(app: FastifyInstance, shared: TSchema[]): void {
  const compilers = sharedCompilers(shared);
  const validators = createValidators(compilers.ajv);
  app.setValidatorCompiler(({ schema, httpPart }) => validators.compile(schema as TSchema, httpPart));
  const serializers = lazySerializers(compilers);
  app.setSerializerCompiler(serializers.compiler);
  compileAlls.set(app, () => validators.compileAll() + serializers.buildAll());
}

/** Compiles every validator and serializer of `app` not compiled yet; returns how many that was. */
export function compileAllSchemas(app: FastifyInstance): number {
  const compileAll = compileAlls.get(app);
  if (!compileAll) throw new Error("this app does not compile its schemas lazily (useLazySchemas)");
  return compileAll();
}
