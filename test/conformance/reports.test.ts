// What a report tells a backend engineer beyond the verdicts: how much of the seed the
// run covered (and a floor for CI), which statuses of which operation it saw, and for
// each failure the operation, a curl line that sends the request again (secrets masked)
// and a HAR file of the failing exchanges.
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { exitCode, renderHar, renderJson, renderJunit, renderTable, runConformance, type Report } from "../../src/conformance/index.ts";
import { statusCoverage } from "../../src/conformance/run/coverage.ts";
import { curlLine } from "../../src/conformance/target/record.ts";
import { Masker } from "../../src/conformance/target/secrets.ts";
import { operationById, seedRules } from "../../src/contract/index.ts";
import { DOUBLES } from "./support/doubles.ts";
import { startProxy } from "./support/proxy.ts";
import { startSim, withSim } from "./support/run.ts";
import { greyPng } from "../../src/conformance/kit/png.ts";

/** Runs a shell line (a report's curl) and gives its output. */
function shell(line: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => execFile("bash", ["-c", line], { env: { ...process.env, ...env }, maxBuffer: 1 << 24 }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout))));
}

/** The PAGE-3 double (limit clamped) run for PAGE-3 only. */
async function clampedRun(): Promise<Report> {
  const sim = await startSim();
  const proxy = await startProxy(sim.url, DOUBLES.find((d) => d.rule === "PAGE-3")!.make(sim));
  try {
    return await runConformance({ baseUrl: proxy.url, apiKey: "ghk_demo_full", otherApiKey: "ghk_demo_other", only: ["PAGE-3"] });
  } finally {
    await proxy.close();
    await sim.close();
  }
}

describe("coverage of the seed rules", () => {
  it("PAGE-3: says how many rules were exercised and fails a run under --min-coverage", async () => {
    await withSim({}, async (sim) => {
      const base = { baseUrl: sim.url, apiKey: "ghk_demo_full", only: ["PAGE-3"] };
      const under = await runConformance({ ...base, minCoverage: 90 });
      const total = seedRules().length;
      const exercised = under.rows.filter((r) => r.verdict !== "n/a").length;
      expect(under.summary.fail).toBe(0);
      expect(under.coverage.rules).toMatchObject({ exercised, total, floor: 90, met: false });
      expect(under.coverage.rules.percent).toBeCloseTo((exercised / total) * 100, 5);
      expect(exitCode(under)).toBe(1);
      const table = renderTable(under);
      expect(table).toContain(`Coverage under its floor: coverage ${((exercised / total) * 100).toFixed(1)}% (${exercised} of ${total} rules exercised) is under --min-coverage 90%`);
      expect(table).toMatch(new RegExp(`^FAILED: ${under.summary.pass} pass, 0 fail, 0 n/a of 1 rule selected \\(--only PAGE-3\\); ${exercised} of ${total} rules exercised, ${Math.round((exercised / total) * 100)}% \\(floor 90%\\)`, "m"));
      const junit = renderJunit(under);
      expect(junit).toMatch(/<testcase classname="conformance.coverage" name="at least 90% of the rules exercised" time="0">\s*<failure message="coverage [\d.]+% \(\d+ of \d+ rules exercised\) is under --min-coverage 90%"/);
      expect(junit).toContain(`<property name="rules_exercised" value="${exercised}"/>`);

      const over = await runConformance({ ...base, minCoverage: 0.5 });
      expect(over.coverage.rules.met).toBe(true);
      expect(exitCode(over)).toBe(0);
      expect(renderTable(over)).toMatch(/^PASSED: .* rules exercised, \d+% \(floor 0\.5%\)/m);
      expect(renderJunit(over)).not.toContain("<failure");
    });
  });

  it("refuses a floor outside 0..100", async () => {
    await expect(runConformance({ baseUrl: "http://127.0.0.1:9", apiKey: "k", minCoverage: 101 })).rejects.toThrow(/^minCoverage \(--min-coverage\) takes a percentage of the rules \(0 to 100\), got 101$/);
  });
});

describe("the table", () => {
  it("shows a rule's whole title, broken between words under the id, never cut", async () => {
    const long = seedRules().filter((r) => r.rule.replace(/\s+/g, " ").length > 120);
    expect(long.length).toBeGreaterThan(0);
    const rule = long[0]!;
    await withSim({}, async (sim) => {
      const report = await runConformance({ baseUrl: sim.url, apiKey: "ghk_demo_full", only: [rule.id] });
      const lines = renderTable(report, { all: true, width: 100 }).split("\n");
      const at = lines.findIndex((line) => line.includes(` ${rule.id} `));
      expect(at).toBeGreaterThan(0);
      const continued = lines.slice(at + 1).filter((line, i, all) => all.slice(0, i + 1).every((l) => /^ {18}\S/.test(l)));
      expect(continued.length).toBeGreaterThan(0);
      const title = [lines[at]!.slice(18), ...continued.map((line) => line.trim())].join(" ");
      expect(title).toBe(rule.rule.replace(/\s+/g, " ").trim());
      expect([lines[at]!, ...continued].every((line) => line.length <= 100)).toBe(true);
      expect(lines.join("\n")).not.toContain("…");
    });
  });
});

describe("statuses by operation", () => {
  it("counts each answer under the status key the contract declares, and lists the undeclared ones", () => {
    const seen = new Map([
      ["readWhoami", new Map([[200, 2], [404, 1]])],
      ["createLibraryFolder", new Map([[201, 3], [409, 1]])],
    ]);
    const s = statusCoverage(seen);
    const whoami = s.operations.find((o) => o.operationId === "readWhoami")!;
    expect(whoami).toMatchObject({ method: "GET", path: "/v1/whoami", undeclared: { "404": 1 } });
    expect(whoami.declared["200"]).toBe(2);
    expect(whoami.declared["401"]).toBe(0);
    const folder = s.operations.find((o) => o.operationId === "createLibraryFolder")!;
    expect(folder.declared["2XX"]).toBe(3);
    expect(folder.declared["409"]).toBe(1);
    expect(s.observed).toBe(3);
    const declared = s.operations.reduce((n, o) => n + Object.keys(o.declared).length, 0);
    expect(s.declared).toBe(declared);
    expect(Object.keys(folder.declared).sort()).toEqual(Object.keys(operationById("createLibraryFolder").op.responses as object).sort());
  });

  it("PAGE-3: a run's table counts every answer it checked against the contract", async () => {
    await withSim({}, async (sim) => {
      const report = await runConformance({ baseUrl: sim.url, apiKey: "ghk_demo_full", only: ["PAGE-3"] });
      const counted = report.coverage.statuses.operations.reduce((n, o) => n + Object.values(o.declared).reduce((a, b) => a + b, 0) + Object.values(o.undeclared).reduce((a, b) => a + b, 0), 0);
      expect(counted).toBe(report.requests.total);
      const list = report.coverage.statuses.operations.find((o) => o.operationId === "listGenerations")!;
      expect(list.declared["400"]).toBeGreaterThanOrEqual(2); // limit=0 and limit=101
      expect(renderTable(report, { coverage: true })).toMatch(/^ {2}listGenerations +GET \/v1\/generations +200:\d+ 400:\d+ 401:- /m);
      expect(renderTable(report)).toMatch(/^Statuses: \d+ of \d+ declared \(operation, status\) pairs seen \(--coverage for the table\)$/m);
    });
  });
});

describe("reproductions of failures", () => {
  const curl = (sent: Parameters<typeof curlLine>[0]) => curlLine(sent, masker);
  const masker = new Masker([
    { value: "ghk_demo_full", variable: "HUB_API_KEY" },
    { value: "ghk_demo_other", variable: "HUB_OTHER_API_KEY" },
    { value: "ghk_demo_readonly", variable: "HUB_KEY_READ_ONLY" },
    { value: "sid=s3cr3t-session", variable: "HUB_SESSION_COOKIE" },
  ]);

  it("writes the caller's secrets as the variables the CLI reads and cuts any other credential", () => {
    const main = curl({ method: "GET", url: "http://h/v1/whoami?api_key=ghk_demo_full", headers: { authorization: "Bearer ghk_demo_full", "x-request-id": "r1" } });
    expect(main).toBe(`curl -sS -i -X GET "http://h/v1/whoami?api_key=\${HUB_API_KEY}" -H "Authorization: Bearer \${HUB_API_KEY}" -H 'X-Request-Id: r1'`);
    expect(curl({ method: "GET", url: "http://h/v1/me", headers: { authorization: "Bearer ghk_demo_readonly" } })).toContain(`"Authorization: Bearer \${HUB_KEY_READ_ONLY}"`);
    expect(curl({ method: "POST", url: "http://h/v1/subscription/cancel", headers: { cookie: "sid=s3cr3t-session", origin: "http://h" } })).toContain(`"Cookie: \${HUB_SESSION_COOKIE}"`);
    const token = curl({ method: "GET", url: "http://h/v1/me", headers: { authorization: "Bearer gho_4f9a8b7c6d5e4f3a2b1c" } });
    expect(token).toContain("'Authorization: Bearer gho_…'");
    expect(token).not.toContain("4f9a8b7c");
    const form = curl({ method: "POST", url: "http://h/oauth/token", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "grant_type=refresh_token&refresh_token=ghr_abcdefghijkl&client_id=c1" });
    expect(form).toContain("grant_type=refresh_token&refresh_token=ghr_…&client_id=c1");
    expect(masker.text(JSON.stringify({ access_token: "gho_abcdefghijkl", token_type: "Bearer", error: { code: "invalid_request" } }))).toBe('{"access_token":"gho_…","token_type":"Bearer","error":{"code":"invalid_request"}}');
    expect(masker.header("Set-Cookie", "sid=abcdefgh; Path=/")).toBe("sid=abcd…");
  });

  it("PAGE-3: a failure names its operation and a curl line that sends the request again, with the key as $HUB_API_KEY", async () => {
    const sim = await startSim();
    const proxy = await startProxy(sim.url, DOUBLES.find((d) => d.rule === "PAGE-3")!.make(sim));
    try {
      const report = await runConformance({ baseUrl: proxy.url, apiKey: "ghk_demo_full", only: ["PAGE-3"] });
      const failure = report.rows.find((r) => r.id === "PAGE-3")!.failures.find((f) => /limit=101/.test(f.message))!;
      expect(failure.operation).toBe("listGenerations (GET /v1/generations)");
      expect(failure.curl).toMatch(/^curl -sS -i -X GET 'http:\/\/127\.0\.0\.1:\d+\/v1\/generations\?limit=101' -H "Authorization: Bearer \$\{HUB_API_KEY\}" -H 'X-Request-Id: conformance-[\w-]+'$/);
      expect(renderTable(report)).toContain(`[listGenerations (GET /v1/generations): GET /v1/generations?limit=101 -> 200, request id ${failure.requestId}]\n          $ ${failure.curl}`);
      expect(renderJunit(report)).toContain("$ curl -sS -i -X GET");
      expect(renderJson(report)).not.toContain("ghk_demo_full");
      // The line runs as is and meets the same fault.
      const replay = await shell(failure.curl!, { HUB_API_KEY: "ghk_demo_full" });
      expect(replay).toMatch(/^HTTP\/1\.1 200 /);
      expect(JSON.parse(replay.slice(replay.indexOf("\r\n\r\n") + 4)).data.length).toBeGreaterThan(0);
    } finally {
      await proxy.close();
      await sim.close();
    }
  });

  it("writes a body too long for a command line as a generated run of its repeated character", async () => {
    await withSim({}, async (sim) => {
      const body = JSON.stringify({ type: "video", model: "video-model-a", negative_prompt: "x".repeat(3 * 1024 * 1024) });
      const line = curl({ method: "POST", url: `${sim.url}/v1/pricing/estimate`, headers: { authorization: "Bearer ghk_demo_full", "content-type": "application/json" }, body });
      expect(line.length).toBeLessThan(1000);
      // The generated body is the body sent, byte for byte.
      expect(await shell(line.slice(0, line.indexOf(" | curl ")), {})).toBe(body);
      const out = await shell(line, { HUB_API_KEY: "ghk_demo_full" });
      expect(out).toMatch(/^HTTP\/1\.1 413 /m); // above the simulator's 1 MiB cap
      expect(out).toContain('"code":"request_too_large"');
    });
  });

  it("UPL-8: writes a binary body (an uploaded file) as a printf of its bytes, so that the line needs no file beside it", async () => {
    const bytes = new Uint8Array([...greyPng(8), 0x00, 0x25, 0x27, 0x5c, 0xff, ...new TextEncoder().encode("%s'\\")]);
    const line = curl({ method: "PUT", url: "http://127.0.0.1:9/v1/uploads/content?ticket=t", headers: { authorization: "Bearer ghk_demo_full", "content-type": "image/png" }, body: bytes });
    expect(line).toMatch(/^printf '\\211PNG\\015\\012.*' \| curl -sS -i -X PUT .* --data-binary @-$/);
    expect(line).not.toContain("not shown");
    const written = await new Promise<Buffer>((resolve, reject) => execFile("bash", ["-c", line.slice(0, line.indexOf(" | curl "))], { encoding: "buffer" }, (error, stdout) => (error ? reject(error) : resolve(stdout))));
    expect(new Uint8Array(written)).toEqual(bytes);
  });

  it("PAGE-3: --har's file is a HAR 1.2 log of the failing exchanges, valid against the HAR schema, secrets masked", async () => {
    const report = await clampedRun();
    const har = JSON.parse(renderHar(report));
    const schemas = createRequire(import.meta.url)("har-schema") as Record<string, object>;
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    ajv.addMetaSchema((await import("ajv/dist/refs/json-schema-draft-06.json", { with: { type: "json" } })).default);
    for (const [name, schema] of Object.entries(schemas)) if (name !== "har") ajv.addSchema(schema);
    const validate = ajv.compile(schemas.har!);
    expect(validate(har), JSON.stringify(validate.errors)).toBe(true);
    expect(har.log.version).toBe("1.2");
    const cited = report.rows.flatMap((r) => r.failures).filter((f) => f.exchange !== undefined);
    expect(har.log.entries).toHaveLength(new Set(cited.map((f) => f.exchange)).size);
    const entry = har.log.entries.find((e: any) => e.request.url.endsWith("?limit=101"));
    expect(entry.comment).toMatch(/^PAGE-3: limit=101 answered 200 /);
    expect(entry.request.headers).toContainEqual({ name: "authorization", value: "Bearer $HUB_API_KEY" });
    expect(entry.request.queryString).toEqual([{ name: "limit", value: "101" }]);
    expect(entry.response.status).toBe(200);
    expect(JSON.parse(entry.response.content.text).data.length).toBeGreaterThan(0);
    expect(JSON.stringify(har)).not.toContain("ghk_demo_full");
  });
});
