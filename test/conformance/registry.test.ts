// The suite's bookkeeping: every seed rule is checked, listed as not checked with a
// reason, or not observable; and a departure from the contract is charged to the rule
// its contract location encodes (one broken thing, one failed rule).
import { describe, expect, it } from "vitest";
import { CHECKS, UNCHECKED } from "../../src/conformance/index.ts";
import { ANSWER_CHECKS } from "../../src/conformance/judge/answer-checks/index.ts";
import { INVARIANTS } from "../../src/conformance/judge/invariants/index.ts";
import { ruleBroken } from "../../src/conformance/judge/broken-rule.ts";
import { Results } from "../../src/conformance/judge/results.ts";
import { checkAnswer, operationById, seedRules } from "../../src/contract/index.ts";
import { readFileSync } from "node:fs";

const observedEverywhere = (() => {
  // Rules the answer checks and the invariants charge, and those the classifier names for the contract's locations (broken-rule.ts).
  const text = readFileSync(new URL("../../src/conformance/judge/broken-rule.ts", import.meta.url), "utf8");
  return new Set([...ANSWER_CHECKS.flatMap((c) => c.rules), ...INVARIANTS.flatMap((i) => i.rules), ...[...text.matchAll(/"([A-Z0-9]+-[0-9A-Z]+)"/g)].map((m) => m[1]!)]);
})();

describe("the suite's rule bookkeeping", () => {
  it("every seed rule is checked, listed as not checked, or not observable", () => {
    const checked = new Set([...CHECKS.flatMap((c) => c.rules), ...observedEverywhere]);
    const orphans = seedRules().filter((r) => r.observable && !checked.has(r.id) && !(r.id in UNCHECKED)).map((r) => r.id);
    expect(orphans).toEqual([]);
  });

  it("lists as not checked only observable rules of the registry that no check observes", () => {
    const known = new Map(seedRules().map((r) => [r.id, r]));
    expect(Object.keys(UNCHECKED)).not.toHaveLength(0);
    for (const id of Object.keys(UNCHECKED)) {
      expect(known.has(id), id).toBe(true);
      expect(known.get(id)!.observable, id).toBe(true);
      expect(CHECKS.some((c) => c.rules.includes(id)), `${id} has a check and is listed as not checked`).toBe(false);
    }
  });

  it("refuses a rule id the registry does not have (no second numbering)", () => {
    const results = new Results();
    expect(() => results.pass("PAGE-99")).toThrow(/No seed rule PAGE-99/);
    expect(() => results.fail("X-1", "no")).toThrow();
  });

  it("a rule with a failure fails, one with passes only passes, the rest are n/a with a reason", () => {
    const results = new Results();
    results.pass("PAGE-3");
    results.fail("PAGE-3", "limit=0 answered 200", { requestId: "r1", request: "GET /v1/generations?limit=0 -> 200" });
    results.pass("PAGE-2");
    results.skip("PAGE-4", "needs records");
    const rows = new Map(results.rows().map((r) => [r.id, r]));
    expect(rows.get("PAGE-3")!.verdict).toBe("fail");
    expect(rows.get("PAGE-3")!.failures).toEqual([{ message: "limit=0 answered 200", requestId: "r1", request: "GET /v1/generations?limit=0 -> 200" }]);
    expect(rows.get("PAGE-2")!.verdict).toBe("pass");
    expect(rows.get("PAGE-4")).toMatchObject({ verdict: "n/a", reason: "needs records" });
    expect(rows.get("CAT-2")).toMatchObject({ verdict: "n/a", reason: expect.stringMatching(/not observable/) });
    expect(rows.get("OAUTH-9")!.reason).toMatch(/^not checked: the consent screen needs a user in a browser/);
  });
});

/** The rules `checkAnswer`'s findings on an answer are charged to. */
function charged(operationId: string, status: number, headers: Record<string, string>, body: unknown, context = "CONTEXT-RULE"): string[] {
  const op = operationById(operationId);
  const text = body === undefined ? "" : JSON.stringify(body);
  return [...new Set(checkAnswer(op, { status, headers, body: text }).map((v) => ruleBroken(op, status, v, body, context)))];
}

const V1 = { "x-request-id": "r", "cache-control": "private, no-store", vary: "Authorization, Cookie, Origin", "ratelimit": '"default";r=9;t=5', "ratelimit-policy": '"default";q=10;w=60', "content-type": "application/json" };
const record = { id: "gen_1", type: "video", status: "QUEUED" };
const envelope = (code: string) => ({ error: { code, message: "m", user_message: "m", request_id: "r" } });

describe("charging a departure from the contract to its seed rule", () => {
  it("SUB-1: a submit answered 201", () => {
    expect(charged("submitGeneration", 201, { ...V1, location: "/v1/generations/gen_1" }, record)).toEqual(["SUB-1"]);
  });

  it("SUB-1: a 202 without Location", () => {
    expect(charged("submitGeneration", 202, V1, record)).toEqual(["SUB-1"]);
  });

  it("EP-2 W-13 EP-3 LIM-2: headers of a /v1 answer", () => {
    const { ["x-request-id"]: _id, ...noId } = V1;
    expect(charged("readGeneration", 200, noId, record)).toEqual(["EP-2"]);
    expect(charged("readGeneration", 200, { ...V1, "cache-control": "public, max-age=60" }, record)).toEqual(["W-13"]);
    const { ratelimit: _r, ...noLimit } = V1;
    expect(charged("readGeneration", 200, noLimit, record)).toEqual(["EP-3"]);
    expect(charged("readGeneration", 200, { ...V1, ratelimit: "default, 9, 5" }, record)).toEqual(["LIM-2"]);
  });

  it("CAT-4: the catalog's ETag and Cache-Control", () => {
    const headers = { ...V1, "cache-control": "private, max-age=0, must-revalidate", etag: '"strong"' };
    expect(charged("listModels", 200, headers, { data: [], next_cursor: null })).toEqual(["CAT-4"]);
  });

  it("ENV-1 ENV-4 W-5 ERR-2: the envelope of a refusal", () => {
    const { request_id: _rid, ...noId } = envelope("invalid_limit").error;
    expect(charged("listGenerations", 400, V1, { error: noId })).toEqual(["ENV-4"]);
    expect(charged("listGenerations", 400, V1, envelope("no_such_code"))).toEqual(["ENV-1"]);
    expect(charged("listGenerations", 400, V1, { message: "bad" })).toEqual(["W-5"]);
    expect(charged("listGenerations", 418, V1, envelope("invalid_limit"))).toEqual(["ERR-2"]);
  });

  it("GEN-4 GEN-7 W-4 PAGE-1: records and collections", () => {
    expect(charged("readGeneration", 200, V1, { ...record, status: "CANCELLED" })).toEqual(["GEN-4"]);
    expect(charged("readGeneration", 200, V1, { ...record, status: "FAILED" })).toEqual(["GEN-7"]);
    expect(charged("listGenerations", 200, V1, { data: [record] })).toEqual(["W-4"]);
    expect(charged("listGenerations", 200, V1, { data: [record], next_cursor: "" })).toEqual(["PAGE-1"]);
    expect(charged("listGenerations", 200, V1, { data: [{ ...record, status: 7 }], next_cursor: null })).toEqual(["GEN-4"]);
  });

  it("AUTH-8: a 401 without its challenge", () => {
    expect(charged("readWhoami", 401, V1, envelope("unauthorized"))).toEqual(["AUTH-8"]);
  });

  it("OAUTH-3 OAUTH-6 OAUTH-16 OAUTH-17 OAUTH-10 UPL-6: the OAuth routes and uploads", () => {
    const reply = { client_id: "cli_1", client_id_issued_at: 1, redirect_uris: ["http://127.0.0.1:9/cb"], grant_types: ["authorization_code"], response_types: ["code"], token_endpoint_auth_method: "none", application_type: "native" };
    const json = { "content-type": "application/json" };
    expect(charged("registerClient", 201, json, { ...reply, client_secret: "s" })).toEqual(["OAUTH-3"]);
    expect(charged("registerClient", 201, json, { ...reply, registration_access_token: "t" })).toEqual(["OAUTH-6"]);
    expect(charged("registerClient", 400, json, { message: "bad" })).toEqual(["OAUTH-6"]);
    expect(charged("exchangeToken", 400, json, { error: 7 })).toEqual(["OAUTH-16"]);
    expect(charged("revokeToken", 204, {}, undefined)).toEqual(["OAUTH-17"]);
    expect(charged("authorize", 303, {}, undefined)).toEqual(["OAUTH-10"]);
    const ticket = { url: "https://storage.example/x", proxy_path: "/v1/uploads/content?ticket=x", headers: {}, reference: "x", expires_at: "2026-01-01T00:00:00Z" };
    expect(charged("createUpload", 201, V1, ticket)).toEqual(["UPL-6"]);
  });

  it("blames the rule being exercised where no rule owns the location", () => {
    expect(charged("listGenerations", 404, V1, envelope("not_found"), "PAGE-3")).toEqual(["PAGE-5"]);
    expect(charged("readWhoami", 404, V1, envelope("not_found"), "ACC-2")).toEqual(["ACC-2"]);
  });
});
