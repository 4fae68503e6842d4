// GAP-1: every gap the seed marks ("not shown", "none shown", "not listed") is recorded
// where it applies by an `x-not-shown` that quotes the seed, and nothing else is.
import { describe, expect, it } from "vitest";
import { contract, deref, operations, schemaFiles, type JsonObject } from "../support/contract.ts";
import { gapSentences, seedText } from "../support/seed.ts";

interface Annotation {
  where: string;
  quote: string;
}

function annotations(node: unknown, where: string, out: Annotation[]): Annotation[] {
  if (!node || typeof node !== "object") return out;
  for (const [key, value] of Object.entries(node)) {
    if (key === "x-not-shown") {
      for (const quote of Array.isArray(value) ? value : [value]) out.push({ where, quote: String(quote) });
    } else {
      annotations(value, `${where}/${key}`, out);
    }
  }
  return out;
}

const inBundle = annotations(contract, "#", []);
const inFiles = [...schemaFiles()].flatMap(([file, s]) => annotations(s, `schemas/${file}#`, []));
const all = [...inBundle, ...inFiles];
const normalize = (s: string) => s.replace(/\s+/g, " ").trim();

describe("GAP-1: gaps of the seed", () => {
  it("every x-not-shown quotes the seed word for word and names a gap", () => {
    expect(all).not.toHaveLength(0);
    for (const a of all) {
      expect(normalize(seedText), `${a.where}: "${a.quote}"`).toContain(normalize(a.quote));
      expect(a.quote, a.where).toMatch(/not shown|none shown|not listed/);
    }
  });

  it.each(gapSentences())("is recorded in the contract: %s", (sentence) => {
    const covering = all.filter((a) => normalize(sentence).includes(normalize(a.quote)));
    expect(covering.length, `no x-not-shown quotes "${sentence}"`).toBeGreaterThan(0);
  });

  it("the bundle carries the gaps of the schema files (nothing is lost in bundling)", () => {
    const bundled = new Set(inBundle.map((a) => a.quote));
    expect(inFiles).not.toHaveLength(0);
    for (const a of inFiles) expect(bundled, a.where).toContain(a.quote);
  });
});

// GAP-2: a string or array a request body takes is bounded (`maxLength`, `maxItems`, a
// closed set, a fixed-length format) or says that the seed gives it no bound: `x-no-bound`
// quotes the seed where it names the input, and no bound is invented in its place.
const bounded = (s: JsonObject) =>
  s.maxLength !== undefined || s.maxItems !== undefined || s.enum !== undefined || s.const !== undefined || s.format === "uuid";

interface Input {
  where: string;
  node: JsonObject;
}

/** Every string and array a request body schema takes, resolved, each once per place. */
function inputs(raw: unknown, where: string, out: Input[], seen: Set<unknown>): Input[] {
  const s = deref<JsonObject>(raw);
  if (!s || typeof s !== "object" || seen.has(s)) return out;
  const inner = new Set(seen).add(s);
  const types = ([] as unknown[]).concat(s.type ?? []);
  if (types.includes("string") || types.includes("array")) out.push({ where, node: s });
  for (const key of ["allOf", "anyOf", "oneOf"]) for (const branch of (s[key] as unknown[] | undefined) ?? []) inputs(branch, where, out, inner);
  for (const [name, prop] of Object.entries((s.properties as JsonObject | undefined) ?? {})) inputs(prop, `${where}.${name}`, out, inner);
  if (s.items) inputs(s.items, `${where}[]`, out, inner);
  return out;
}

const requestInputs = operations().flatMap((op) => {
  const body = deref<JsonObject>(op.op.requestBody ?? {});
  const json = ((body.content as JsonObject | undefined) ?? {})["application/json"] as JsonObject | undefined;
  return json ? inputs(json.schema, op.operationId, [], new Set()) : [];
});

describe("GAP-2: request inputs the seed gives no bound", () => {
  it("every string and array of a JSON request body is bounded or records that the seed gives no bound", () => {
    expect(requestInputs.length).toBeGreaterThan(50);
    // An open value set whose rest is not shown (`generate_type`) is recorded by its x-not-shown.
    const recorded = (s: JsonObject) => s["x-no-bound"] !== undefined || s["x-not-shown"] !== undefined;
    const open = requestInputs.filter((i) => !bounded(i.node) && !recorded(i.node)).map((i) => i.where);
    expect(open).toEqual([]);
  });

  it("x-no-bound quotes the seed word for word, and sits only where there is no bound", () => {
    const records = requestInputs.filter((i) => i.node["x-no-bound"] !== undefined);
    expect(records.length).toBeGreaterThan(0);
    for (const r of records) {
      expect(normalize(seedText), r.where).toContain(normalize(String(r.node["x-no-bound"])));
      expect(bounded(r.node), `${r.where} has a bound and says it has none`).toBe(false);
    }
  });

  it("folder names, support text, the move's ids, the cancel reason text, a registration's name and redirect addresses say they have no bound", () => {
    const named = ["createLibraryFolder.name", "sendSupportMessage.text", "moveLibraryItems.item_ids", "moveLibraryItems.item_ids[]", "cancelSubscription.reason_text", "registerClient.client_name", "registerClient.redirect_uris"];
    for (const where of named) {
      const input = requestInputs.find((i) => i.where === where);
      expect(input?.node["x-no-bound"], where).toBeTypeOf("string");
    }
  });
});
