// The files under schemas/ are standalone JSON Schema 2020-12: each compiles under a
// strict validator with only its sibling files, is named after its title, and reaches
// the bundle under that name unchanged (but for its $refs).
import { basename } from "node:path";
import { describe, expect, it } from "vitest";
import { operationById, schema, type JsonObject } from "../../src/contract/index.ts";
import { schemaFiles, standaloneAjv } from "../support/contract.ts";

const files = [...schemaFiles()];
const { ajv, idOf } = standaloneAjv();

describe("standalone schemas", () => {
  it("every file declares the 2020-12 dialect and is named after its title, uniquely", () => {
    const names = files.map(([file]) => basename(file, ".json"));
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    expect(files).not.toHaveLength(0);
    for (const [file, s] of files) {
      expect(s.$schema, file).toBe("https://json-schema.org/draft/2020-12/schema");
      expect(s.title, file).toBe(basename(file, ".json"));
      expect(s.$id, `${file}: no $id (see the toolchain notes)`).toBeUndefined();
    }
  });

  it.each(files.map(([file]) => [file] as const))("%s compiles under strict ajv with its siblings", (file) => {
    expect(() => ajv.getSchema(idOf(file))).not.toThrow();
    expect(ajv.getSchema(idOf(file))).toBeTypeOf("function");
  });

  it.each(files.map(([file, s]) => [file, s] as const))("%s is in the bundle under its title, with the same keywords (its $schema said once at the root)", (_file, s) => {
    // The authorization redirect's query has no place in OpenAPI; it is inlined where it applies.
    const bundled = s.title === "AuthorizationRedirect"
      ? (((operationById("authorize").op.responses as JsonObject)["303"] as JsonObject)["x-redirect-query"] as JsonObject)
      : schema(String(s.title));
    const strip = (node: unknown): unknown =>
      Array.isArray(node) ? node.map(strip)
      : node && typeof node === "object"
        ? Object.fromEntries(Object.entries(node).filter(([k]) => k !== "$schema").map(([k, v]) => [k, k === "$ref" ? String(v).split("/").pop()!.replace(/\.json$/, "") : strip(v)]))
        : node;
    expect(strip(bundled)).toEqual(strip(s));
  });
});
