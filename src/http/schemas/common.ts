// TypeBox helpers shared by every schema file. One schema validates the request, types the
// handler and documents the endpoint in /openapi.json.
import { Type, type TSchema, type Static, type SchemaOptions } from "@sinclair/typebox";

/** `T | null` as one JSON-Schema type array, so validation errors stay about T (not anyOf noise). */
export function Nullable<T extends TSchema>(schema: T, options: SchemaOptions = {}) {
  const { type, ...rest } = schema as unknown as { type?: string };
  if (typeof type !== "string") return Type.Unsafe<Static<T> | null>({ ...options, anyOf: [schema, { type: "null" }] });
  return Type.Unsafe<Static<T> | null>({ ...rest, ...options, type: [type, "null"] });
}

export const DateTime = Type.String({ format: "date-time" });
export const Id = Type.String({ minLength: 1, maxLength: 200 });
export const FreeObject = Type.Record(Type.String(), Type.Unknown());

export const ErrorOut = Type.Object({ detail: Type.String() }, { $id: "Error", description: "Every error except 422" });
export const ValidationErrorOut = Type.Object(
  {
    detail: Type.Array(
      Type.Object({
        type: Type.String(),
        loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
        msg: Type.String(),
        input: Type.Unknown(),
      }),
    ),
  },
  { $id: "HTTPValidationError" },
);

export const Empty = Type.Null({ description: "empty body" });

/** Standard error responses every authenticated route documents. */
export function errors(...codes: number[]) {
  const out: Record<number, TSchema> = {};
  for (const c of codes) out[c] = c === 422 ? Type.Ref("HTTPValidationError") : Type.Ref("Error");
  return out;
}

export const strictObject = <T extends Parameters<typeof Type.Object>[0]>(props: T, opts: SchemaOptions = {}) =>
  Type.Object(props, { additionalProperties: false, ...opts });

/** A typed $ref to a shared schema (registered by $id): validation and types from one place. */
export function ref<T extends TSchema>(schema: T) {
  if (!schema.$id) throw new Error("ref() needs a schema with $id");
  return Type.Unsafe<Static<T>>({ $ref: schema.$id });
}
