// The contract as the tests read it: the bundle, its operations, their error answers,
// and ajv over the standalone schema files.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import * as formatsModule from "ajv-formats";
import { contract, deref, operations, type JsonObject, type Operation } from "../../src/contract/index.ts";
import { at } from "../../scripts/lib/paths.ts";

export { contract, deref, operations };
export type { JsonObject, Operation };

const addFormats = ((formatsModule as unknown as { default?: unknown }).default ?? formatsModule) as (a: Ajv2020) => void;

export const isV1 = (op: Operation) => op.path.startsWith("/v1/");
export const isErrorStatus = (status: string) => /^[45]/.test(status);

/** Responses of an operation, resolved, with their status keys. */
export function responsesOf(op: Operation): [string, JsonObject][] {
  return Object.entries(op.op.responses as JsonObject).map(([status, r]) => [status, deref(r)]);
}

/** The error codes an operation lists, by status: the names of its error examples. */
export function errorCodesOf(op: Operation): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [status, response] of responsesOf(op)) {
    if (!isErrorStatus(status)) continue;
    const codes = new Set<string>();
    for (const media of Object.values((response.content as JsonObject) ?? {})) {
      for (const name of Object.keys(((media as JsonObject).examples as JsonObject) ?? {})) codes.add(name);
    }
    out.set(status, [...codes]);
  }
  return out;
}

/** Every schema file under schemas/, by path relative to it. */
export function schemaFiles(): Map<string, JsonObject> {
  const root = at("schemas");
  const files = new Map<string, JsonObject>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".json")) files.set(relative(root, full), JSON.parse(readFileSync(full, "utf8")));
    }
  };
  walk(root);
  return files;
}

const FILE_BASE = "https://generation-hub.local/schemas/";

/**
 * ajv with every standalone schema file loaded under an id of its own path (the files
 * carry no `$id`, see the toolchain notes), so relative `$ref`s resolve as they do on disk.
 */
export function standaloneAjv(): { ajv: Ajv2020; idOf: (file: string) => string } {
  // Strict about unknown keywords, numbers and tuples; `required` inside an `anyOf` branch
  // (an idiomatic "one of these fields") is allowed.
  const ajv = new Ajv2020({ allErrors: true, strictSchema: true, strictNumbers: true, strictTuples: true, strictRequired: false, strictTypes: false, validateFormats: true });
  addFormats(ajv);
  // The only non-standard keywords the files use: gap records and table annotations.
  for (const keyword of ["x-not-shown", "x-no-bound", "x-http-status", "x-in-progress"]) ajv.addKeyword({ keyword });
  for (const [file, s] of schemaFiles()) ajv.addSchema({ ...s, $id: FILE_BASE + file });
  return { ajv, idOf: (file) => FILE_BASE + file };
}
