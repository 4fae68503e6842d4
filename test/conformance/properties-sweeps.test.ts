// Another account's ids and credentials with fewer scopes, on every route, as properties
// of every run (they were steps of the generated walk: `--generate` adds inputs, not
// properties). Each finding carries the requests that led to it and the flags that run it
// again; the servers are those the walk found before, now found without generated inputs.
import { describe, expect, it } from "vitest";
import type { Report } from "../../src/conformance/index.ts";
import { DOUBLES } from "./support/doubles.ts";
import type { Rewrite } from "./support/proxy.ts";
import { narrow, routeDouble } from "./support/properties.ts";
import { explain, failing } from "./support/run.ts";

/** What differs between two runs: request ids, object ids. */
function comparable(text: string | undefined): string {
  return String(text).replace(/conformance-[\w-]+/g, "ID").replace(/\b(gen|fld|ast|upl)_\w+/g, "OBJ");
}

function failuresOf(report: Report, rule: string) {
  return report.rows.find((r) => r.id === rule)!.failures;
}

describe("another account's ids on every route that takes one", () => {
  it("W-8: another account's id that leaks on the title change, shown beside an id nobody has (the step before), without generated inputs", { timeout: 60_000 }, async () => {
    const d = routeDouble("W-8", /title change/);
    const report = await narrow(d.make, ["W-8", ...d.with!]);
    expect(failing(report), explain(report)).toEqual(["W-8"]);
    const f = failuresOf(report, "W-8")[0]!;
    expect(f.message).toMatch(/^another account: every route that takes an id: changeGenerationTitle \(PATCH \/v1\/generations\/\{id\}\) \(link ChangeGenerationTitle\): another account's object answered unlike a missing one \(403 insufficient_scope vs 404 not_found\) \(replay: --only W-8,GEN-9,REP-7,GEN-5,LIB-7\)$/);
    expect(f.curl).toMatch(/-H "Authorization: Bearer \$\{HUB_OTHER_API_KEY\}"/);
    expect(f.steps!.map((s) => comparable(s.step))).toEqual(["changeGenerationTitle (PATCH /v1/generations/{id}) (link ChangeGenerationTitle), an id nobody has, with the second account's key"]);
    expect(comparable(f.steps![0]!.request)).toBe("PATCH /v1/generations/ID -> 404");
  });
});

describe("fewer scopes on every route that needs one", () => {
  it("AUTH-6: a server that ignores library:write, found with the read-only key and the keys with fewer scopes, without generated inputs", { timeout: 60_000 }, async () => {
    const report = await narrow(routeDouble("AUTH-6", /library:write/).make, ["AUTH-6"]);
    expect(failing(report), explain(report)).toEqual(["AUTH-6"]);
    const messages = failuresOf(report, "AUTH-6").map((f) => f.message);
    expect(messages).toEqual(expect.arrayContaining([
      expect.stringMatching(/^fewer scopes: every route that needs a scope the credential lacks: createLibraryFolder \(POST \/v1\/library\/folders\) needs library:write; read-only holds [a-z: ]+: answered 400 invalid_request; expected 403 insufficient_scope \(replay: --only AUTH-6,W-11\)$/),
      expect.stringMatching(/deleteLibraryFolder \(DELETE \/v1\/library\/folders\/\{id\}\) needs library:write; scoped-1 holds models:read: answered 404 not_found/),
    ]));
    const f = failuresOf(report, "AUTH-6").find((x) => x.message.includes("scoped-1"))!;
    expect(f.curl).toMatch(/"Authorization: Bearer \$\{HUB_SCOPED_KEY_1\}"/);
    expect(f.steps!.map((s) => s.step)).toEqual(["readWhoami with scoped-1 (it holds models:read)"]);
  });

  it("AUTH-6 EP-4: a route the server lacks is reported as missing (EP-4), not as a scope it ignores", { timeout: 60_000 }, async () => {
    const d = DOUBLES.find((x) => x.rule === "EP-4" && x.title.includes("never mounted"))!;
    const report = await narrow(d.make, ["AUTH-6", "EP-4"]);
    // The HTML 404 also breaks the envelope's rules (EP-1, EP-2, W-5, W-13), as in the default run.
    expect(failing(report), explain(report)).toContain("EP-4");
    expect(failing(report), explain(report)).not.toContain("AUTH-6");
    const notes = report.rows.find((r) => r.id === "AUTH-6")!.notes ?? [];
    expect(notes.join("\n")).toMatch(/readBillingSubscription \(GET \/v1\/billing\/subscription\) needs [\w:]+; scoped-1 holds .*: not routed \(404\), see EP-4/);
  });

  it("AUTH-6: an OAuth token refused without WWW-Authenticate naming the scope it lacks", { timeout: 60_000 }, async () => {
    const noScope = (): Rewrite => ({
      answer(_req, a) {
        if (a.status !== 403 || !a.headers["www-authenticate"]) return a;
        return { ...a, headers: { ...a.headers, "www-authenticate": a.headers["www-authenticate"].replace(/,?\s*scope="[^"]*"/, "") } };
      },
    });
    const report = await narrow(noScope, ["AUTH-6", "OAUTH-6"]);
    const walked = failuresOf(report, "AUTH-6").filter((f) => f.message.startsWith("fewer scopes:"));
    expect(walked.length, explain(report)).toBeGreaterThan(0);
    expect(walked.every((f) => /^fewer scopes: every route that needs a scope the credential lacks: \w+ \([A-Z]+ \/v1\/[^)]+\) needs [a-z]+:(read|write); oauth grant \d+ holds models:read: WWW-Authenticate ".*" does not name the missing scope [a-z]+:(read|write) \(replay: --only AUTH-6,W-11\)$/.test(f.message)), walked.map((f) => f.message).join("\n")).toBe(true);
  });

  it("W-11: every key and token with fewer scopes is refused on every session-only route (with writes), on the simulator", { timeout: 60_000 }, async () => {
    const report = await narrow(undefined, ["W-11"]);
    expect(failing(report), explain(report)).toEqual([]);
    const row = report.rows.find((r) => r.id === "W-11")!;
    expect(row.verdict).toBe("pass");
    // The main key (the session-only check), the keys with fewer scopes and a token (the sweep), each on the four routes.
    expect(row.passes).toBeGreaterThanOrEqual(4 * 4);
  });
});
