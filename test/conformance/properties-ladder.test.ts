// The credential checks as properties of every route (src/conformance/properties/): each
// refusal of the seed's ladder on every operation that takes the credential, the spellings
// of a path a router may take for the route, and a credential in the query. Each broken
// server breaks the rule on some routes only (a check made on one route and not repeated
// on the others): the suite fails exactly that rule, and only the property finds it (every
// failure is the property's, on the routes the bug lives on).
import { describe, expect, it } from "vitest";
import { curlLine } from "../../src/conformance/target/record.ts";
import { Masker } from "../../src/conformance/target/secrets.ts";
import { spellingsOf } from "../../src/conformance/checks/auth/spellings.ts";
import { v1Operations } from "../../src/conformance/kit/routes.ts";
import { matchOperation } from "../../src/contract/index.ts";
import { pathOnly, type ProxiedRequest } from "./support/proxy.ts";
import { against, messages, narrow, routeDouble } from "./support/properties.ts";
import { explain, failing } from "./support/run.ts";
import { DEMO_KEYS } from "../../src/conformance/run/simulator.ts";
import { operationLabel } from "../../src/conformance/target/exchange.ts";

const LIBRARY = v1Operations("api_key").filter((op) => op.path.startsWith("/v1/library/"));

describe("the credential ladder on every route", () => {
  it("AUTH-7 AUTH-8 AUTH-4: the simulator passes; every rung reached every operation that takes its credential, every spelling and both query parameters reached every route, as sent", { timeout: 60_000 }, async () => {
    const seen: ProxiedRequest[] = [];
    const report = await narrow(undefined, ["AUTH-7", "AUTH-8", "AUTH-4"], {}, seen);
    expect(report.errors, explain(report)).toEqual([]);
    expect(failing(report), explain(report)).toEqual([]);
    const reached = (authorization: string) => new Set(seen.filter((r) => r.headers.authorization === authorization).map((r) => matchOperation(r.method, pathOnly(r))?.operation.operationId).filter(Boolean));
    const ids = (scheme: string) => new Set(v1Operations(scheme).map((op) => op.operationId));
    for (const role of ["expired", "revoked", "no-api-access", "suspended", "terms"] as const) expect(reached(`Bearer ${DEMO_KEYS[role]}`), role).toEqual(ids("api_key"));
    expect(reached(`Bearer ${DEMO_KEYS["oauth-invalid"]}`)).toEqual(ids("oauth2"));
    expect(reached("Bearer %%conformance%%")).toEqual(ids("api_key"));
    const paths = new Set(seen.map((r) => r.path));
    for (const p of ["/v1/whoami/", "/v1//whoami", "/v1/conformance/../whoami", "/v1/%77hoami", "/v1/WHOAMI", "/v1/library/folders/", "/v1/library/conformance/../folders", "/v1/library/%66olders"]) expect(paths.has(p), p).toBe(true);
    for (const param of ["api_key", "access_token"]) {
      const inQuery = seen.filter((r) => r.headers.authorization === undefined && new URL(r.path, "http://x").searchParams.get(param) === "ghk_demo_full");
      expect(new Set(inQuery.map((r) => matchOperation(r.method, pathOnly(r))?.operation.operationId)), param).toEqual(ids("api_key"));
    }
  });

  it("AUTH-7: fails a server that checks a key's expiry on every route but the library's, on each library route and nowhere else", { timeout: 60_000 }, async () => {
    const report = await against(routeDouble("AUTH-7", /expiry/));
    expect(report.errors, explain(report)).toEqual([]);
    expect(failing(report), explain(report)).toEqual(["AUTH-7"]);
    const found = messages(report, "AUTH-7");
    expect(found.every((m) => /^\w+ \((GET|POST|PATCH|DELETE) \/v1\/library\/[^)]*\) with the expired key: expected 401 api_key_expired, got [2-4]\d\d/.test(m)), found.join("\n")).toBe(true);
    expect(new Set(found.map((m) => m.split(" with ")[0]))).toEqual(new Set(LIBRARY.map(operationLabel)));
  });

  it('AUTH-8: fails a server whose 401 for an unusable token lacks error="invalid_token" on the library routes', { timeout: 60_000 }, async () => {
    const report = await against(routeDouble("AUTH-8", /invalid_token/));
    expect(failing(report), explain(report)).toEqual(["AUTH-8"]);
    const rows = report.rows.find((r) => r.id === "AUTH-8")!.failures;
    expect(rows.map((f) => f.message).every((m) => /^a 401 for an unusable token without error="invalid_token": "Bearer resource_metadata=/.test(m))).toBe(true);
    expect(new Set(rows.map((f) => f.operation))).toEqual(new Set(LIBRARY.map(operationLabel)));
  });

  it("AUTH-7: fails a server that serves a path with a trailing slash without a credential, spelled so on every route", { timeout: 60_000 }, async () => {
    const report = await against(routeDouble("AUTH-7", /trailing slash/));
    // The catalog's answer at /v1/models/ (no route) carries the catalog's Cache-Control: W-13 too.
    expect(failing(report), explain(report)).toEqual(["AUTH-7", "W-13"]);
    const found = messages(report, "AUTH-7");
    expect(found.length).toBeGreaterThan(10);
    expect(found.every((m) => /^\w+ \([A-Z]+ \/v1\/[^)]*\) spelled with a trailing slash \(\/v1\/\S*\/\) without a credential answered [2-4]\d\d[ a-z_]*: served around the credential checks/.test(m)), found.join("\n")).toBe(true);
    expect(found.some((m) => m.startsWith("readWhoami (GET /v1/whoami) spelled with a trailing slash (/v1/whoami/) without a credential answered 200"))).toBe(true);
  });

  it("AUTH-4: fails a server that takes ?api_key= on every route but GET /v1/whoami (where the suite tried it before)", { timeout: 60_000 }, async () => {
    const report = await against(routeDouble("AUTH-4", /api_key/));
    expect(failing(report), explain(report)).toEqual(["AUTH-4"]);
    const found = messages(report, "AUTH-4");
    expect(found.length).toBeGreaterThan(10);
    expect(found.every((m) => /^\w+ \([A-Z]+ \/v1\/[^)]*\) with the API key in the query \(api_key\) and no Authorization header: expected 401 unauthorized, got [2-4]\d\d/.test(m)), found.join("\n")).toBe(true);
    expect(found.some((m) => m.startsWith("readWhoami"))).toBe(false);
  });
});

describe("spellings of a path", () => {
  it("AUTH-7: changes the last literal segment of the route, or what surrounds it, and keeps the query", () => {
    expect(spellingsOf("/v1/generations/{id}", "/v1/generations/gen_1?x=1").map((s) => [s.name, s.path, Boolean(s.verbatim)])).toEqual([
      ["a trailing slash", "/v1/generations/gen_1/?x=1", false],
      ["a doubled slash", "/v1//generations/gen_1?x=1", false],
      ["a dot segment", "/v1/conformance/../generations/gen_1?x=1", true],
      ["a percent-encoded letter", "/v1/%67enerations/gen_1?x=1", false],
      ["upper case", "/v1/GENERATIONS/gen_1?x=1", false],
    ]);
    expect(spellingsOf("/v1/library/assets/{id}/content", "/v1/library/assets/a/content")[3]!.path).toBe("/v1/library/assets/a/%63ontent");
    expect(v1Operations().length).toBeGreaterThan(0);
    for (const op of v1Operations()) expect(spellingsOf(op.path, op.path.replace(/\{[^}]+\}/g, "x")), op.path).toHaveLength(5);
  });

  it("AUTH-7: a curl line sends a dot segment as it is (--path-as-is), as the suite sent it", () => {
    const curl = curlLine({ method: "GET", url: "http://127.0.0.1:4010/v1/conformance/../whoami", headers: {} }, new Masker([]));
    expect(curl).toBe("curl -sS -i --path-as-is -X GET http://127.0.0.1:4010/v1/conformance/../whoami");
    expect(curlLine({ method: "GET", url: "http://127.0.0.1:4010/v1/whoami", headers: {} }, new Masker([]))).not.toContain("--path-as-is");
  });
});
