// No secret in any output: against a server that accepts everything (so that every
// credential the suite sends or obtains ends up in a failure), with every credential flag
// given, the table, --verbose, the JSON report, the JUnit file and the HAR file hold none
// of the keys, cookies, tokens, codes or client secrets the suite was given or obtained.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { curlLine } from "../../src/conformance/target/record.ts";
import { renderTable, type Report } from "../../src/conformance/index.ts";
import { Masker } from "../../src/conformance/target/secrets.ts";
import { DEMO_KEYS, simulatorClientDocument, simulatorScopedKeys, simulatorSession } from "../../src/conformance/run/simulator.ts";
import { cli } from "./support/cli.ts";
import { acceptsEverything } from "./support/hostile.ts";
import { startProxy } from "./support/proxy.ts";
import { controlOf, OPEN, simulatorAccessToken, simulatorAutoConsent, startSim } from "./support/run.ts";

/** Where `secret` (as is, or encoded in a URL) shows in `text`, with what surrounds it; none: []. */
function leaks(text: string, secret: string): string[] {
  const out: string[] = [];
  for (const form of new Set([secret, encodeURIComponent(secret)])) {
    for (let at = text.indexOf(form); at >= 0; at = text.indexOf(form, at + 1)) out.push(text.slice(Math.max(0, at - 80), at + form.length + 20));
  }
  return out;
}

describe("secrets in the suite's output", () => {
  it("a run with every credential flag against a server that accepts everything writes no secret anywhere", { timeout: 120_000 }, async () => {
    // Generations finish in a fraction of a second (the CLI waits for them in real time), and
    // the windows are open as the CI guide opens them (the default 300 a minute made this run
    // wait a minute for a window: what it checks is the outputs, not the windows).
    const sim = await startSim({ clockSpeed: 1, ...OPEN, timing: { queuedMs: 50, pendingMs: 50, runningMs: { video: 100, image: 100, upscale: 100, model_3d: 100 } } });
    const double = acceptsEverything();
    const proxy = await startProxy(sim.url, double.rewrite);
    const dir = mkdtempSync(join(tmpdir(), "conformance-masking-"));
    try {
      const session = await simulatorSession(controlOf(sim), sim.url);
      const oauthToken = await simulatorAccessToken(sim, "me:read models:read");
      const scoped = await simulatorScopedKeys(controlOf(sim));
      const document = await simulatorClientDocument(controlOf(sim));
      await simulatorAutoConsent(sim);
      const given = ["ghk_demo_full", "ghk_demo_other", ...Object.values(DEMO_KEYS), ...scoped, session.cookie, oauthToken];
      const flags = [
        "--base-url", proxy.url, "--api-key", "ghk_demo_full", "--other-api-key", "ghk_demo_other",
        ...Object.entries(DEMO_KEYS).flatMap(([role, key]) => ["--key", `${role}=${key}`]),
        ...scoped.flatMap((k) => ["--scoped-key", k]),
        "--session-cookie", session.cookie, "--origin", session.origin, "--oauth-token", oauthToken,
        "--oauth-auto-consent", "--oauth-client-document", document, "--allow-spend",
        "--generate=1", "--seed", "1", "--quick", "--timeout", "5000", "--verbose",
      ];
      // One run prints the JSON report; the table is rendered from it as the CLI renders it.
      const run = await cli([...flags, "--json", "--junit", join(dir, "report.xml"), "--har", join(dir, "failures.har")]);
      expect(run.code, run.stderr).toBe(1);
      const report = JSON.parse(run.stdout) as Report;
      const table = renderTable(report, { all: true, coverage: true });
      // The double made the suite fail everywhere, so secrets had every chance to show.
      expect(table).toMatch(/^ {2}FAIL {2}AUTH-4 /m);
      expect(table).toMatch(/^ {2}FAIL {2}OAUTH-3 /m);
      expect(report.exchanges.length).toBeGreaterThan(50);
      expect(run.stderr.split("\n").length).toBeGreaterThan(300); // --verbose: every request
      const obtained = [...double.issued];
      expect(obtained.length).toBeGreaterThan(10); // tokens, codes and client secrets the suite got
      const outputs = {
        table,
        "--verbose (stderr)": run.stderr,
        "--json (stdout)": run.stdout,
        JUnit: readFileSync(join(dir, "report.xml"), "utf8"),
        HAR: readFileSync(join(dir, "failures.har"), "utf8"),
      };
      const found: string[] = [];
      for (const secret of [...given, ...obtained, "conformance-secret"]) {
        for (const [name, text] of Object.entries(outputs)) for (const at of leaks(text, secret)) found.push(`${name}: ${at}`);
      }
      expect(found, found.join("\n")).toEqual([]);
      // The given ones are written as the variables that hold them.
      expect(table).toContain('"Authorization: Bearer ${HUB_API_KEY}"');
      expect(table).toMatch(/\?api_key=\$\{HUB_API_KEY\}/);
      // (A rule keeps its first 20 failures: the access_token spelling shows in every request's line.)
      expect(run.stderr).toMatch(/\?access_token=\$HUB_API_KEY\b/);
    } finally {
      await proxy.close();
      await sim.close();
    }
  });

  it("masks what the run was given as its variable and what it obtained by its first characters, wherever it is", () => {
    const masker = new Masker([{ value: "ghk_given+key/1", variable: "HUB_API_KEY" }]);
    // Learnt from an answer: the tokens of a token reply, a code in a Location.
    masker.learn({ url: "http://h/oauth/token", headers: {}, body: "grant_type=refresh_token&refresh_token=ghr_sent_refresh_0123" }, { headers: [["location", "http://127.0.0.1/cb?code=code_0123456789&state=s"]], json: { access_token: "gho_new_access_0123", refresh_token: "ghr_new_refresh_0123", token_type: "Bearer" } });
    masker.learn({ url: "http://h/v1/me", headers: { authorization: "Bearer gho_presented_0123", cookie: "gh_session=sess_0123456789" } });
    const text = "a message quoting gho_new_access_0123 and ghr_sent_refresh_0123, the code code_0123456789, sess_0123456789, gho_presented_0123, and ghk_given%2Bkey%2F1 in a URL";
    expect(masker.text(text)).toBe("a message quoting gho_… and ghr_…, the code code…, sess…, gho_…, and $HUB_API_KEY in a URL");
    // A body cut short still has its credential field cut.
    expect(masker.text('{"access_token":"gho_unknown_to_the_run_01')).toBe('{"access_token":"gho_…');
    expect(masker.deep({ rows: [{ failures: [{ message: "gho_new_access_0123" }] }], n: 3 })).toEqual({ rows: [{ failures: [{ message: "gho_…" }] }], n: 3 });
  });

  it("a curl line uses the variable in the query too: the access_token line runs like its api_key sibling", () => {
    const masker = new Masker([{ value: "ghk_demo_full", variable: "HUB_API_KEY" }]);
    for (const param of ["api_key", "access_token"]) {
      expect(curlLine({ method: "GET", url: `http://h/v1/whoami?${param}=ghk_demo_full`, headers: { "x-request-id": "r1" } }, masker)).toBe(`curl -sS -i -X GET "http://h/v1/whoami?${param}=\${HUB_API_KEY}" -H 'X-Request-Id: r1'`);
    }
  });
});
