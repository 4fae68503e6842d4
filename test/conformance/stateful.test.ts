// The stateful walk of generated runs (src/conformance/stateful/): the routes that take an
// id are read from the contract's links, a link makes its request of an answer, and a
// finding carries the sequence of requests that led to it (each with its curl line),
// walked alike again with the same seed. Against servers with one stateful bug each: a
// revoked generation still served, and two Authorization headers of which one is taken.
// (Another account's ids and fewer scopes on every route are properties of every run:
// properties-sweeps.test.ts.)
import { describe, expect, it } from "vitest";
import { renderHar, renderTable, type Report } from "../../src/conformance/index.ts";
import { allLinks, evaluate, follow, merged } from "../../src/conformance/kit/links.ts";
import { aboutId, ASSETS, FOLDERS, GENERATIONS, idRoutes } from "../../src/conformance/kit/objects.ts";
import { DOUBLES } from "./support/doubles.ts";
import { editJson, startProxy, type Rewrite } from "./support/proxy.ts";
import { explain, failing, OPEN, runFull, startSim } from "./support/run.ts";
import type { ConformanceOptions } from "../../src/conformance/facts/given.ts";

async function through(rewrite: (sim: Awaited<ReturnType<typeof startSim>>) => Rewrite, extra: Partial<ConformanceOptions>): Promise<Report> {
  const sim = await startSim(OPEN);
  const proxy = await startProxy(sim.url, rewrite(sim));
  try {
    return await runFull(sim, proxy.url, { quick: true, ...extra });
  } finally {
    await proxy.close();
    await sim.close();
  }
}

function double(rule: string, area: string) {
  return DOUBLES.find((d) => d.rule === rule && d.area === area)!;
}

function failuresOf(report: Report, rule: string) {
  return report.rows.find((r) => r.id === rule)!.failures;
}

/** What differs between two runs of the same seed: request ids, object ids, the port, tokens. */
function comparable(text: string | undefined): string {
  return String(text)
    .replace(/conformance-[\w-]+/g, "ID")
    .replace(/\b(gen|fld|ast|upl)_\w+/g, "OBJ")
    .replace(/127\.0\.0\.1:\d+/g, "HOST");
}

describe("links of the contract", () => {
  const link = (name: string) => allLinks().find((l) => l.link.name === name)!.link;

  it("REP-3 LIB-5 LIB-7 W-8: the routes that take an object's id are the targets of its links, and the two no link names", () => {
    const ids = (kind: string) => idRoutes(kind).map((r) => `${r.operation.operationId} (${r.via})`);
    expect(ids(GENERATIONS)).toEqual([
      "readGeneration (link ReadFirstListed)",
      "readGenerationStatuses (link ReadGenerationStatus)",
      "reportGeneration (link ReportGeneration)",
      "changeGenerationTitle (link ChangeGenerationTitle)",
      "downloadGenerationOutput (output_urls of the record (used as given: no link builds the address))",
    ]);
    expect(ids(ASSETS)).toEqual(["readLibraryAssetContent (link ReadFirstAssetContent)", "changeLibraryAssetTitle (link ChangeFirstAssetTitle)", "moveLibraryItems (link MoveFirstAssetToRoot)"]);
    expect(ids(FOLDERS)).toEqual(["changeLibraryFolder (link ChangeFirstFolder)", "deleteLibraryFolder (link DeleteFirstFolder)", "moveLibraryItems (folder_id of the move body (no link names it))"]);
  });

  it("GEN-2 BATCH-1 LIB-6: a link takes its values from the answer (a path parameter, a body template), for the page's item the walk made", () => {
    expect(follow(link("ReadGeneration"), aboutId("gen_1"))).toMatchObject({ path: "/v1/generations/gen_1", values: { id: "gen_1" } });
    expect(follow(link("ReadGenerationStatus"), aboutId("gen_1"))).toMatchObject({ path: "/v1/generations/status", body: { ids: ["gen_1"] } });
    const page = { ...aboutId("x"), body: { data: [{ id: "fld_a" }, { id: "fld b/c" }], next_cursor: null } };
    expect(follow(link("DeleteFirstFolder"), page).path).toBe("/v1/library/folders/fld_a");
    expect(follow(link("DeleteFirstFolder"), page, 1).path).toBe("/v1/library/folders/fld%20b%2Fc");
    expect(follow(link("MoveFirstAssetToRoot"), { ...page, body: { data: [{ id: "ast_1" }] } }).body).toEqual({ item_ids: ["ast_1"], folder_id: null });
    expect(follow(link("ReadGeneration"), { ...page, body: {} }).missing).toBe("id");
  });

  it("evaluates the runtime expressions of OpenAPI links and merges a template into a valid body", () => {
    const a = { method: "POST", url: "http://h/v1/generations?x=1", status: 202, headers: new Headers({ location: "/v1/generations/gen_1" }), body: { id: "gen_1" }, request: { path: { id: "p" }, headers: { "Idempotency-Key": "k" }, body: { type: "video" } } };
    expect(evaluate("$statusCode", a)).toBe(202);
    expect(evaluate("$url", a)).toBe("http://h/v1/generations?x=1");
    expect(evaluate("$method", a)).toBe("POST");
    expect(evaluate("$response.header.Location", a)).toBe("/v1/generations/gen_1");
    expect(evaluate("$request.header.idempotency-key", a)).toBe("k");
    expect(evaluate("$request.query.x", a)).toBe("1");
    expect(evaluate("$request.path.id", a)).toBe("p");
    expect(evaluate("$request.body#/type", a)).toBe("video");
    expect(merged({ ids: ["r1", "r2"], text: "t", nested: { a: 1, b: 2 } }, { ids: ["gen_1"], nested: { b: 3 } })).toEqual({ ids: ["gen_1"], text: "t", nested: { a: 1, b: 3 } });
  });
});

describe("a finding of the walk carries the sequence that led to it", () => {
  it("REP-3: a generation revoked by a moderation report that still takes title changes, with every step, its curl line, and the same steps again with the same seed", { timeout: 120_000 }, async () => {
    const options = { only: ["REP-3"], generate: { perOperation: 10, seed: 3, operations: ["submitGeneration"] } };
    const report = await through(double("REP-3", "stateful").make, options);
    expect(failing(report), explain(report)).toEqual(["REP-3"]);
    const found = failuresOf(report, "REP-3");
    expect(found).toHaveLength(1);
    const f = found[0]!;
    expect(f.message).toMatch(/^generation: submit, its links, a moderation report, then gone: changeGenerationTitle \(PATCH \/v1\/generations\/\{id\}\) \(link ChangeGenerationTitle\) after the moderation report answered 200: the gone object gen_\w+ was acted on; it answers 404 not_found \(replay: --generate=10 --seed 3 --operations submitGeneration\)$/);
    expect(f.operation).toBe("changeGenerationTitle (PATCH /v1/generations/{id})");
    expect(f.curl).toMatch(/^curl -sS -i -X PATCH \S+\/v1\/generations\/gen_\w+ -H "Authorization: Bearer \$\{HUB_API_KEY\}"/);
    expect(f.steps!.map((s) => s.step)).toEqual([
      "streamGenerationEvents (link FollowGenerations, opened before the submit)",
      "submitGeneration",
      "readGeneration (link ReadGeneration)",
      "readGenerationStatuses (link ReadGenerationStatus)",
      "reportGeneration (link ReportGeneration)",
      "readGeneration (link ReadFirstListed)",
      "readGenerationStatuses (link ReadGenerationStatus)",
      "reportGeneration (link ReportGeneration)",
    ]);
    expect(f.steps!.map((s) => comparable(s.request))).toEqual(["GET /v1/events -> 200", "POST /v1/generations -> 202", "GET /v1/generations/OBJ -> 200", "POST /v1/generations/status -> 200", "POST /v1/generations/OBJ/report -> 201", "GET /v1/generations/OBJ -> 404", "POST /v1/generations/status -> 200", "POST /v1/generations/OBJ/report -> 404"]);
    expect(f.steps![4]!.curl).toMatch(/"reason":"moderation"/);
    expect(f.steps!.every((s) => s.curl?.startsWith("curl ") && s.requestId?.startsWith("conformance-"))).toBe(true);
    // The table and the HAR file show them.
    const table = renderTable(report);
    expect(table).toMatch(/after 8 request\(s\) of its sequence:\n\s+1\. streamGenerationEvents \(link FollowGenerations, opened before the submit\): GET \/v1\/events -> 200, request id conformance-/);
    expect(table).toMatch(/\n\s+5\. reportGeneration \(link ReportGeneration\): POST \/v1\/generations\/gen_\w+\/report -> 201.*\n\s+\$ curl .*"reason":"moderation"/);
    expect(table).toMatch(/Stateful sequences \(the contract's links; the same seed walks them alike\): 1 sequence\(s\), \d+ requests, 1 finding\(s\)/);
    const har = JSON.parse(renderHar(report)).log.entries as { comment: string }[];
    expect(har.filter((e) => /step \d+ \(/.test(e.comment))).toHaveLength(8);
    // The same seed walks the same sequence: the same steps, the same bodies.
    const again = await through(double("REP-3", "stateful").make, options);
    const g = failuresOf(again, "REP-3")[0]!;
    expect(g.steps!.map((s) => [s.step, comparable(s.request), comparable(s.curl)])).toEqual(f.steps!.map((s) => [s.step, comparable(s.request), comparable(s.curl)]));
  });
});

describe("two Authorization headers (issue 12)", () => {
  it("AUTH-1: sends them as two lines (the curl line repeats -H), and fails a server that takes the first", { timeout: 60_000 }, async () => {
    const report = await through(double("AUTH-1", "auth ladder").make, { only: ["AUTH-1"] });
    expect(failing(report), explain(report)).toEqual(["AUTH-1"]);
    const f = failuresOf(report, "AUTH-1");
    expect(f.map((x) => x.message)).toEqual(["two Authorization headers (the main key, then an unknown key) answered 200: the server acted on one of the two, an ambiguous request is refused", "two Authorization headers (the main key, then the second account's key) answered 200: the server acted on one of the two, an ambiguous request is refused"]);
    expect(f[0]!.curl).toMatch(/-H "Authorization: Bearer \$\{HUB_API_KEY\}" -H 'Authorization: Bearer ghk_…'$/);
  });

  it("AUTH-1 PAGE-3: the simulator refuses both with invalid_request naming the field duplicate (no note), and a server that only says 401 passes with a note", { timeout: 60_000 }, async () => {
    const clean = await through(() => ({}), { only: ["AUTH-1", "PAGE-3"] });
    expect(failing(clean), explain(clean)).toEqual([]);
    for (const id of ["AUTH-1", "PAGE-3"]) expect(clean.rows.find((r) => r.id === id)!.notes.filter((n) => /twice|two Authorization/.test(n)), id).toEqual([]);
    const unauthorized = (): Rewrite => ({
      answer(req, a) {
        const lines = req.rawHeaders.filter((_, i) => i % 2 === 0 && req.rawHeaders[i]!.toLowerCase() === "authorization").length;
        return lines < 2 ? a : editJson({ ...a, status: 401, headers: { ...a.headers, "www-authenticate": 'Bearer resource_metadata="http://x/.well-known/oauth-protected-resource/v1"' } }, (b) => ({ error: { ...b.error, code: "unauthorized", message: "Give one credential.", user_message: "Give one credential.", details: undefined } }));
      },
    });
    const other = await through(unauthorized, { only: ["AUTH-1"] });
    expect(failing(other), explain(other)).toEqual([]);
    expect(other.rows.find((r) => r.id === "AUTH-1")!.notes).toContain("two Authorization headers (the main key, then an unknown key) was refused with 401 unauthorized, without a details item naming Authorization duplicate");
  });
});
