// Generated inputs (`--generate`): servers with faults that no hand-written request of
// the suite meets are found, the finding shrunk to a smallest request and sent again
// alike with the same seed; the clean simulator gives no finding; the safety flags hold;
// the cases themselves are what the contract says (valid ones pass its validator, each
// invalid one has exactly one fault, bounds read from the contract).
import { describe, expect, it } from "vitest";
import { runConformance, type ConformanceOptions, type Report } from "../../src/conformance/index.ts";
import { casesFor } from "../../src/conformance/kit/generate/cases.ts";
import { planFor, type Known, type Plan } from "../../src/conformance/kit/generate/plans.ts";
import { bound, validateChosen } from "../../src/contract/index.ts";
import { clampsKnowledgeLimit, crashesOnUnknownField, hangsOnUnknownField, ignoresContentType } from "./support/faults.ts";
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

describe("generated inputs against servers with faults only they meet", () => {
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
    const crashes = failuresOf(report, "PRICE-7").filter((f) => /^estimatePrice: conformance_unknown_field added \(no such field\): answered 500 internal_error, not a refusal/.test(f.message));
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
  it("PRICE-7: reports a request the server never answers, with its curl line, and goes on with the other operations", async () => {
    const report = await through(hangsOnUnknownField(), { only: ["PRICE-7", "PAGE-3"], requestTimeoutMs: 1500, generate: { perOperation: 60, seed: 8, operations: ["estimatePrice", "searchKnowledge"] } });
    const hung = failuresOf(report, "PRICE-7").filter((f) => /no answer \(timed out after 1500 ms\)/.test(f.message));
    expect(hung.length, explain(report)).toBeGreaterThan(0);
    const field = hung.find((f) => /^estimatePrice: conformance_unknown_field added \(no such field\): POST \/v1\/pricing\/estimate: no answer/.test(f.message));
    expect(field, hung.map((f) => f.message).join("\n")).toBeDefined();
    expect(field!.curl).toMatch(/^curl -sS -i -X POST \S+\/v1\/pricing\/estimate .*"conformance_unknown_field":"conformance"\}'$/);
    // (The hand-written estimate check meets the hang too, and says it could not complete.)
    expect(report.errors.map((e) => e.check)).not.toContain("generated inputs");
    expect(report.generated!.operations.map((o) => o.operationId)).toEqual(["searchKnowledge", "estimatePrice"]);
  });
});

describe("generated inputs against the clean simulator", () => {
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

  it("sends no generated write without --allow-writes and no generated submit without --allow-spend", async () => {
    await withSim(OPEN, async (sim) => {
      const count = async (path: string) => ((await (await fetch(`${sim.url}${path}`, { headers: { authorization: "Bearer ghk_demo_full" } })).json()) as { data: unknown[] }).data.length;
      const before = [await count("/v1/generations?limit=100"), await count("/v1/library/folders")];
      const report = await runConformance({ baseUrl: sim.url, apiKey: "ghk_demo_full", generate: { perOperation: 10, seed: 1 } });
      const skipped = Object.fromEntries(report.generated!.skipped.map((s) => [s.operationId, s.reason]));
      expect(skipped.submitGeneration).toMatch(/needs --allow-spend/);
      expect(skipped.createLibraryFolder).toMatch(/needs --allow-writes/);
      expect(skipped.sendSupportMessage).toMatch(/needs --allow-writes/);
      // Only requests that can change nothing reached the write routes: without a credential
      // (401) and with a body that is not JSON (400); none was served.
      const credentialed = Object.fromEntries(report.coverage.statuses.operations.map((o) => [o.operationId, Object.entries({ ...o.declared, ...o.undeclared }).filter(([k]) => k !== "401" && k !== "400").reduce((n, [, v]) => n + v, 0)]));
      for (const op of ["submitGeneration", "createLibraryFolder", "changeLibraryFolder", "deleteLibraryFolder", "moveLibraryItems", "createUpload", "sendSupportMessage", "reportGeneration"]) expect(credentialed[op], op).toBe(0);
      expect([await count("/v1/generations?limit=100"), await count("/v1/library/folders")]).toEqual(before);
      expect(report.generated!.operations.find((o) => o.operationId === "estimatePrice")!.cases).toBe(10);
    });
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
    for (const kind of ["above_maximum", "below_minimum", "too_long", "too_short", "too_many_items", "wrong_type", "not_in_set", "unknown_field", "missing", "malformed_json", "wrong_content_type", "oversized", "not_an_object"]) expect(kinds, kind).toContain(kind);
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
    expect(limits("invalid")).toEqual(expect.arrayContaining(["0", "101", "conformance", "1.5"]));
    expect(cases.filter((k) => k.kind === "valid").flatMap((k) => k.query.filter(([n]) => n === "cursor").map(([, v]) => v)).every((v) => v === "c1")).toBe(true);
    expect(cases.find((k) => k.fault?.field === "cursor")!.fault!.expected.codes).toEqual(["invalid_cursor"]);
  });
});
