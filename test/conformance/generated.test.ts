// Generated inputs (`--generate`): servers with faults that no hand-written request of
// the suite meets are found, the finding shrunk to a smallest request and sent again
// alike with the same seed; the clean simulator gives no finding; the safety flags hold;
// the cases themselves are what the contract says (valid ones pass its validator, each
// invalid one has exactly one fault, bounds read from the contract; every input also of
// each other JSON type, null, and as a lenient parser would coerce it).
import { describe, expect, it } from "vitest";
import { runConformance, type ConformanceOptions, type Report } from "../../src/conformance/index.ts";
import { casesFor } from "../../src/conformance/kit/generate/cases.ts";
import { planFor, type Known, type Plan } from "../../src/conformance/kit/generate/plans.ts";
import { fieldsOf, propertiesOf, valueAt, view } from "../../src/conformance/kit/generate/schema.ts";
import { bound, matchOperation, validateChosen } from "../../src/contract/index.ts";
import { clampsKnowledgeLimit, coercesTypes, crashesOnUnknownField, hangsOnUnknownField, ignoresContentType } from "./support/faults.ts";
import { startProxy, type Rewrite } from "./support/proxy.ts";
import { explain, failing, OPEN, runFull, SIMULATOR_FINDINGS, startSim, withSim } from "./support/run.ts";

async function through(rewrite: Rewrite, options: Partial<ConformanceOptions>): Promise<Report> {
  const sim = await startSim(OPEN);
  const proxy = await startProxy(sim.url, rewrite);
  try {
    return await runConformance({ baseUrl: proxy.url, apiKey: "ghk_demo_full", ...options });
  } finally {
    await proxy.close();
    await sim.close();
  }
}

function failuresOf(report: Report, rule: string) {
  return report.rows.find((r) => r.id === rule)!.failures;
}

/** A failure's curl line without what differs between two runs (request ids, the server's port). */
function comparable(curl: string | undefined): string {
  return String(curl).replace(/conformance-[\w-]+/g, "ID").replace(/127\.0\.0\.1:\d+/g, "HOST");
}

/** The JSON body a curl line sends. */
function curlBody(curl: string | undefined): Record<string, unknown> {
  const m = /--data-binary '(.*)'$/.exec(String(curl));
  return JSON.parse(m![1]!.replace(/'\\''/g, "'"));
}

describe.concurrent("generated inputs against servers with faults only they meet", { timeout: 120_000 }, () => {
  it("PAGE-3: finds a knowledge search that clamps limit instead of refusing it, and sends the same requests with the same seed", async () => {
    // The run without generated inputs finds it too: the bounds of every input are a property of every run.
    const handWritten = await through(clampsKnowledgeLimit(), { only: ["PAGE-3"] });
    expect(failuresOf(handWritten, "PAGE-3").map((f) => f.message).sort(), explain(handWritten)).toEqual([expect.stringMatching(/^searchKnowledge: limit="0" \(minimum 1\): accepted with 200; expected 400 invalid_limit \(the bounds of every input\)$/), expect.stringMatching(/^searchKnowledge: limit="101" \(maximum 100\): accepted with 200/)]);

    const options = { only: ["PAGE-3"], generate: { perOperation: 40, seed: 5, operations: ["searchKnowledge"] } };
    const first = await through(clampsKnowledgeLimit(), options);
    const found = failuresOf(first, "PAGE-3");
    const messages = found.map((f) => f.message).join("\n");
    expect(messages).toMatch(/^searchKnowledge: limit="101" \(maximum 100\): accepted with 200; expected 400 invalid_limit \(invalid case \d+ of 40;.* replay: --generate=40 --seed 5 --operations searchKnowledge\)$/m);
    expect(messages).toMatch(/^searchKnowledge: limit="0" \(minimum 1\): accepted with 200/m);
    const above = found.find((f) => /limit="101".*invalid case/.test(f.message))!;
    expect(above.operation).toBe("searchKnowledge (GET /v1/knowledge)");
    // Shrunk: nothing but the parameter at fault.
    expect(above.curl).toMatch(/'http:\/\/127\.0\.0\.1:\d+\/v1\/knowledge\?limit=101' -H "Authorization: Bearer \$\{HUB_API_KEY\}" -H 'X-Request-Id: conformance-[\w-]+'$/);
    expect(first.generated).toMatchObject({ seed: 5, perOperation: 40, operations: [{ operationId: "searchKnowledge", cases: 40, findings: 2 }] });

    const again = await through(clampsKnowledgeLimit(), options);
    expect(failuresOf(again, "PAGE-3").map((f) => f.message)).toEqual(found.map((f) => f.message));
    expect(failuresOf(again, "PAGE-3").map((f) => comparable(f.curl))).toEqual(found.map((f) => comparable(f.curl)));
  });

  it("PRICE-7: finds a price estimate that crashes on an unknown field, shrunk to the variant's required fields and the field", async () => {
    const report = await through(crashesOnUnknownField(), { only: ["PRICE-7"], generate: { perOperation: 400, seed: 11, operations: ["estimatePrice"] } });
    // The generated case's finding (the types of every input meets the crash too, unshrunk, in its own words).
    const crashes = failuresOf(report, "PRICE-7").filter((f) => /^estimatePrice: conformance_unknown_field added \(no such field\): answered 500 internal_error, not a refusal \(invalid case/.test(f.message));
    expect(crashes, explain(report)).toHaveLength(1);
    const crash = crashes[0]!;
    expect(crash.message).toMatch(/shrunk from \d+ to \d+ fields in \d+ requests/);
    const body = curlBody(crash.curl);
    const others = Object.keys(body).filter((k) => k !== "conformance_unknown_field");
    const { conformance_unknown_field: _unknown, ...rest } = body;
    expect(validateChosen("SubmitRequest", rest)).toEqual([]); // what is left is valid...
    expect(others).not.toHaveLength(0);
    for (const k of others) expect(validateChosen("SubmitRequest", Object.fromEntries(Object.entries(rest).filter(([x]) => x !== k))).length, `${k} is needed`).toBeGreaterThan(0); // ...and nothing can go
    // Nested unknown fields crash too, each its own finding.
    expect(failuresOf(report, "PRICE-7").some((f) => /multi_prompt\.0\.conformance_unknown_field added/.test(f.message))).toBe(true);
  });

  it("PRICE-7: finds a price estimate that answers 200 to a body sent as text/plain", async () => {
    const report = await through(ignoresContentType(), { only: ["PRICE-7"], generate: { perOperation: 100, seed: 3, operations: ["estimatePrice"] } });
    const found = failuresOf(report, "PRICE-7").find((f) => /a JSON body sent as text\/plain: accepted with 200; expected 400 invalid_request/.test(f.message));
    expect(found, explain(report)).toBeDefined();
    expect(found!.curl).toMatch(/-H 'Content-Type: text\/plain' --data-binary '\{/);
    expect(failing(report)).toEqual(["PRICE-7"]);
  });
  it("PRICE-7: finds a price estimate that converts a value of the wrong type before it validates, by the values a lenient parser takes", async () => {
    const report = await through(coercesTypes(), { only: ["PRICE-7"], generate: { perOperation: 100, seed: 1, operations: ["estimatePrice"] } });
    expect(failing(report), explain(report)).toEqual(["PRICE-7"]);
    const found = failuresOf(report, "PRICE-7").map((f) => f.message);
    expect(found.some((m) => /^estimatePrice: \S+ = \S+ \(type [^:]+: (a number as a numeric string|a boolean as a string|a valid value in a one-item array|one item, not in an array)\): accepted with 200/.test(m)), found.join("\n")).toBe(true);
  });

  it("PRICE-7: reports a request the server never answers, with its curl line, and goes on with the other operations", async () => {
    const report = await through(hangsOnUnknownField(), { only: ["PRICE-7", "PAGE-3"], requestTimeoutMs: 1500, generate: { perOperation: 60, seed: 8, operations: ["estimatePrice", "searchKnowledge"] } });
    const hung = failuresOf(report, "PRICE-7").filter((f) => /no answer \(timed out after 1500 ms\)/.test(f.message));
    expect(hung.length, explain(report)).toBeGreaterThan(0);
    // A field of no variant, or of another variant than the body's (both unknown to it).
    const field = hung.find((f) => /^estimatePrice: (conformance_unknown_field added \(no such field\)|\w+ = .+ added \(a field of \w+, not of \w+\)): POST \/v1\/pricing\/estimate: no answer/.test(f.message));
    expect(field, hung.map((f) => f.message).join("\n")).toBeDefined();
    const name = /^estimatePrice: (\w+)/.exec(field!.message)![1]!;
    expect(field!.curl).toMatch(new RegExp(`^curl -sS -i -X POST \\S+/v1/pricing/estimate .*"${name}":.*'$`));
    // (The hand-written estimate check meets the hang too, and says it could not complete.)
    expect(report.errors.map((e) => e.check)).not.toContain("generated inputs");
    expect(report.generated!.operations.map((o) => o.operationId)).toEqual(["searchKnowledge", "estimatePrice"]);
  });
});

describe.concurrent("generated inputs against the clean simulator", () => {
  // The heaviest test of the suite: a whole run and about a thousand generated requests
  // (5 to 10 s alone; a loaded machine running the other test files triples it).
  it("finds nothing, with writes and spending allowed, on every operation it generates for", { timeout: 120_000 }, async () => {
    await withSim(OPEN, async (sim) => {
      const report = await runFull(sim, sim.url, { quick: true, generate: { perOperation: 40, seed: 2026 } });
      expect(report.errors, explain(report)).toEqual([]);
      expect(failing(report), explain(report)).toEqual([...SIMULATOR_FINDINGS].sort());
      const g = report.generated!;
      expect(g.operations.map((o) => o.findings).reduce((a, b) => a + b, 0)).toBe(0);
      expect(g.operations.map((o) => o.operationId)).toEqual(expect.arrayContaining(["submitGeneration", "estimatePrice", "readGenerationStatuses", "searchKnowledge", "createLibraryFolder", "createUpload", "sendSupportMessage", "reportGeneration"]));
      expect(g.operations.every((o) => o.cases > 0 && o.cases <= 40)).toBe(true);
      // The stateful walk: every sequence walked (nothing left out for a flag or a key), nothing found.
      expect(g.sequences.map((x) => x.name)).toEqual(["lists: the links of their items", "generation: submit, its links, a moderation report, then gone", "folder: create, its links, delete, then gone"]);
      for (const x of g.sequences) expect([x.name, x.findings, x.requests > 0]).toEqual([x.name, 0, true]);
    });
  });
});

describe.concurrent("generated inputs without --allow-writes and --allow-spend", { timeout: 120_000 }, () => {
  const WRITES = ["submitGeneration", "reportGeneration", "createLibraryFolder", "changeLibraryFolder", "deleteLibraryFolder", "moveLibraryItems", "createUpload", "sendSupportMessage", "readSupportThread"];

  it("SUB-6 LIB-3 SUP-3 UPL-2: sends no generated input to a write, valid or invalid, and says which flag it needs", async () => {
    const sim = await startSim(OPEN);
    // What reached a gated route with a credential: a generated input would.
    const reached: string[] = [];
    const proxy = await startProxy(sim.url, {
      request(req) {
        const op = matchOperation(req.method, req.path.split("?")[0]!)?.operation.operationId;
        if (op && WRITES.includes(op) && req.headers.authorization) reached.push(`${req.method} ${req.path} ${req.body.toString("utf8").slice(0, 80)}`);
        return req;
      },
    });
    try {
      const report = await runConformance({ baseUrl: proxy.url, apiKey: "ghk_demo_full", only: ["SUB-6", "SUB-0", "REP-2", "LIB-3", "LIB-4", "LIB-5", "LIB-6", "UPL-2", "SUP-2", "SUP-3", "PRICE-7"], generate: { perOperation: 10, seed: 1 } });
      expect(reached).toEqual([]);
      const g = report.generated!;
      expect(g.operations.map((o) => [o.operationId, o.cases])).toEqual([["estimatePrice", 10]]);
      const skipped = Object.fromEntries(g.skipped.map((x) => [x.operationId, x.reason]));
      // The flag first, also where the plan needs what the flag would have made (a generation to report on, a folder to change).
      for (const op of WRITES) expect(skipped[op], op).toMatch(op === "submitGeneration" || op === "reportGeneration" ? /^needs --allow-spend \(.*an invalid one too where the server wrongly accepts it\)$/ : /^needs --allow-writes \(.*an invalid one too where the server wrongly accepts it\)$/);
      // The rules' rows say it too, as for every request a flag holds back.
      expect(report.rows.find((r) => r.id === "SUB-6")!.reason).toMatch(/generated inputs of submitGeneration not sent, valid or invalid: needs --allow-spend/);
      expect(report.rows.find((r) => r.id === "LIB-3")!.reason).toMatch(/generated inputs of createLibraryFolder not sent, valid or invalid: needs --allow-writes/);
    } finally {
      await proxy.close();
      await sim.close();
    }
  });
});

describe("the generated cases", () => {
  const known: Known = {
    models: [
      { id: "video-model-a", type: "video" },
      { id: "image-model-a", type: "image" },
      { id: "model-3d-a", type: "model_3d" },
    ],
    ownIds: ["gen_01JCONFORMANCE0000000000"],
    createdIds: [],
    uploadRefs: ["upl_conformance"],
    assetIds: [],
    slugs: ["getting-started"],
    outputPaths: [],
    cursors: { listGenerations: ["c1"] },
  };
  const plan = (id: string) => planFor(id, known) as Plan;

  it("PRICE-7 SUB-6: gives the same cases for the same seed, and others for another", () => {
    const a = casesFor(plan("estimatePrice"), known, 80, 42);
    const b = casesFor(plan("estimatePrice"), known, 80, 42);
    const c = casesFor(plan("estimatePrice"), known, 80, 43);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(JSON.stringify(a)).not.toBe(JSON.stringify(c));
    expect(a).toHaveLength(80);
  });

  it("PRICE-7 SUB-6: every valid body passes the contract's validator; every invalid one has exactly one fault, at its field", () => {
    const p = plan("estimatePrice");
    const cases = casesFor(p, known, 600, 7);
    const valid = cases.filter((k) => k.kind === "valid");
    const invalid = cases.filter((k) => k.kind === "invalid" && k.fault!.where === "body" && !k.bodyFault && k.fault!.kind !== "not_an_object");
    expect(valid.length).toBeGreaterThan(100);
    expect(invalid.length).toBeGreaterThan(100);
    for (const k of valid) expect(validateChosen("SubmitRequest", k.body), JSON.stringify(k.body)).toEqual([]);
    for (const k of invalid) {
      const details = validateChosen("SubmitRequest", k.body);
      expect(details.length, k.fault!.describe).toBeGreaterThan(0);
      expect(details.every((d) => d.field === k.fault!.field), `${k.fault!.describe}: ${JSON.stringify(details)}`).toBe(true);
    }
    // Every fault kind appears, and the whole-body faults.
    const kinds = new Set(cases.filter((k) => k.kind === "invalid").map((k) => k.fault!.kind));
    for (const kind of ["above_maximum", "below_minimum", "too_long", "too_short", "too_many_items", "wrong_type", "null_value", "coercible", "not_in_set", "unknown_field", "other_variant_field", "missing", "malformed_json", "wrong_content_type", "oversized", "not_an_object"]) expect(kinds, kind).toContain(kind);
    // Model ids are the catalog's, never invented.
    for (const k of valid) if (k.body && typeof (k.body as any).model === "string" && (k.body as any).type !== "upscale") expect(known.models.map((m) => m.id)).toContain((k.body as any).model);
  });

  it("BATCH-1: reads the 50-id bound from the contract: 50 ids valid, 51 refused with invalid_limit naming ids in details[0]", () => {
    const max = bound("GenerationStatusRequest", "ids", "maxItems");
    const cases = casesFor(plan("readGenerationStatuses"), known, 400, 1);
    expect(cases.some((k) => k.kind === "valid" && (k.body as any).ids.length === max)).toBe(true);
    const over = cases.find((k) => k.fault?.kind === "too_many_items")!;
    expect((over.body as any).ids).toHaveLength(max + 1);
    expect(over.fault!.expected).toEqual({ statuses: [400], codes: ["invalid_limit"], detail: { field: "ids", reasons: ["out_of_range"], first: true } });
  });

  it("PAGE-2 PAGE-3: sends a limit at each bound and one past it, a cursor only as the server gave it", () => {
    const cases = casesFor(plan("listGenerations"), known, 200, 1);
    const limits = (kind: string) => cases.filter((k) => k.kind === kind).flatMap((k) => k.query.filter(([n]) => n === "limit").map(([, v]) => v));
    expect(limits("valid")).toEqual(expect.arrayContaining(["1", "100"]));
    // Each other JSON type and null, as a query carries them (text); what a lenient
    // parser coerces ("20") is the query's own form, and a string parameter takes any text.
    expect(limits("invalid")).toEqual(expect.arrayContaining(["0", "101", "conformance", "1.5", "true", "null", '["conformance"]', '{"conformance":1}']));
    expect(cases.filter((k) => k.fault?.where === "query").map((k) => k.fault!.kind)).not.toContain("coercible");
    expect(cases.filter((k) => k.fault?.field === "cursor").map((k) => k.fault!.kind)).not.toContain("wrong_type");
    expect(cases.filter((k) => k.fault?.field === "cursor").map((k) => k.fault!.kind)).not.toContain("null_value");
    expect(cases.filter((k) => k.kind === "valid").flatMap((k) => k.query.filter(([n]) => n === "cursor").map(([, v]) => v)).every((v) => v === "c1")).toBe(true);
    expect(cases.find((k) => k.fault?.field === "cursor")!.fault!.expected.codes).toEqual(["invalid_cursor"]);
  });

  const typeOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

  it("UPL-2 LIB-6 SUP-3: sends every body field with each other JSON type and null, and as a lenient parser would take it, each confirmed invalid at that field", () => {
    for (const id of ["createUpload", "moveLibraryItems", "sendSupportMessage"]) {
      const p = plan(id);
      const variant = p.body!.variants[0]!;
      const fields = fieldsOf(variant.raw).filter((f) => f.view.s.type !== undefined);
      expect(fields.length, id).toBeGreaterThan(0);
      // Every systematic case fits (half of the cases are invalid ones).
      const negative = casesFor(p, known, 4000, 1).filter((k) => ["wrong_type", "null_value", "coercible"].includes(k.fault?.kind ?? ""));
      expect(negative.length, id).toBeGreaterThan(fields.length * 4);
      for (const f of fields) {
        const at = f.path.join(".");
        const declared = [f.view.s.type].flat().map((t) => (t === "integer" ? "number" : t));
        const sent = new Set(negative.filter((k) => k.fault!.field === at).map((k) => typeOf(valueAt(k.body!, f.path))));
        const others = ["string", "number", "boolean", "array", "object", "null"].filter((x) => !declared.includes(x));
        expect(others.length, at).toBeGreaterThan(3);
        for (const t of others) expect(sent, `${id} ${at} as ${t}`).toContain(t);
      }
      // The lenient parser's values: a number as a numeric string, a value in a one-item array, an array's lone item.
      const coerced = negative.filter((k) => k.fault!.kind === "coercible").map((k) => k.fault!.describe);
      expect(coerced.length, id).toBeGreaterThan(0);
      for (const k of negative) {
        const details = p.body!.details(k.body!);
        expect(details.length, k.fault!.describe).toBeGreaterThan(0);
        expect(details.every((d) => d.field === k.fault!.field), `${k.fault!.describe}: ${JSON.stringify(details)}`).toBe(true);
        expect(k.fault!.expected).toMatchObject({ statuses: [400], codes: ["invalid_request"], detail: { field: k.fault!.field, reasons: expect.arrayContaining(["wrong_type"]) } });
      }
    }
    const upload = casesFor(plan("createUpload"), known, 4000, 1).map((k) => k.fault?.describe);
    expect(upload).toContain('content_length = "0" (type integer: a number as a numeric string)');
    expect(upload).toContain("content_length = null (type integer, not nullable)");
    // folder_id takes null: null is no fault of it.
    expect(casesFor(plan("moveLibraryItems"), known, 4000, 1).filter((k) => k.fault?.kind === "null_value").map((k) => k.fault!.field)).not.toContain("folder_id");
  });

  it("PRICE-7 SUB-0 SUB-6: sends the body as each JSON type but an object, and each variant with a field only another variant has", () => {
    const cases = casesFor(plan("estimatePrice"), known, 4000, 3);
    const bodies = cases.filter((k) => k.fault?.kind === "not_an_object").map((k) => typeOf(k.body));
    expect(bodies.sort()).toEqual(["array", "boolean", "null", "number", "string"]);
    const mixed = cases.filter((k) => k.fault?.kind === "other_variant_field");
    const p = plan("estimatePrice");
    // Every closed variant (the text variant lets any body through to its 503).
    const closed = p.body!.variants.filter((v) => !v.unavailable && view(v.raw).s.additionalProperties === false);
    expect(closed.length).toBeGreaterThan(1);
    expect(new Set(mixed.map((k) => k.variant))).toEqual(new Set(closed.map((v) => v.name)));
    for (const k of mixed) {
      const own = propertiesOf(view(p.body!.variants.find((v) => v.name === k.variant)!.raw).s);
      const others = p.body!.variants.filter((v) => v.name !== k.variant).map((v) => propertiesOf(view(v.raw).s));
      expect(own[k.fault!.field!], k.fault!.describe).toBeUndefined();
      expect(others.some((o) => k.fault!.field! in o), k.fault!.describe).toBe(true);
      expect(validateChosen("SubmitRequest", k.body)).toEqual([expect.objectContaining({ field: k.fault!.field, reason: "unknown_field" })]);
    }
    // On the submit, a field the variant does not have breaks its closedness (SUB-0).
    const submit = casesFor(plan("submitGeneration"), known, 4000, 3).filter((k) => k.fault?.kind === "other_variant_field");
    expect(submit).not.toHaveLength(0);
    expect(new Set(submit.map((k) => k.fault!.rule))).toEqual(new Set(["SUB-0"]));
  });
});
