// `npm run conformance`: out of the box against the simulator, against a server given by
// address and key, its reports for CI, and its exit status. What it tests is the command
// itself (its flags, streams, exit status and report files), so each test spawns it: the
// first through tsx as `npm run conformance` runs it, the rest bundled (a start through tsx
// costs about a second of CPU before it sends anything). 11 to 16 s on a quiet machine; up
// to about 40 s in a fresh clone's first run (38 s in the CI rehearsal of 2026-11-29, three
// test workers sharing the two cores): about 30 starts of the command, each a process that
// must be judged from outside.
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { seedRules } from "../../src/contract/index.ts";
import { runConformance } from "../../src/conformance/index.ts";
import { DEFAULT_GENERATED, helpOf, OPTION_DEFAULTS, OPTIONS, readRequest, resolve, secretsOf, usageOf, Usage, withBareValues } from "../../src/conformance/run/options.ts";
import { DOUBLES } from "./support/doubles.ts";
import { startProxy } from "./support/proxy.ts";
import { controlOf, startSim } from "./support/run.ts";
import { cli, root } from "./support/cli.ts";
import { OPEN_WINDOWS, simulatorScopedKeys } from "../../src/conformance/run/simulator.ts";
import { detectSimulatorControl } from "../../src/conformance/target/control.ts";

describe("npm run conformance", () => {
  it("PAGE-3: without arguments starts the simulator, prints JSON and writes JUnit", async () => {
    const dir = mkdtempSync(join(tmpdir(), "conformance-"));
    const junit = join(dir, "report.xml");
    // Through tsx, as `npm run conformance` runs it (the other runs run the same sources bundled).
    const run = await cli(["--only", "PAGE-3", "--json", "--junit", junit], {}, { tsx: true });
    expect(run.stderr).toMatch(/started the simulator at http:\/\/127\.0\.0\.1:\d+ with its demo keys and two keys with fewer scopes \(writes and spending allowed\), a site session and OAuth auto-consent/);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.rows).toHaveLength(seedRules().length);
    expect(report.rows.find((r: { id: string }) => r.id === "PAGE-3").verdict).toBe("pass");
    expect(report.rows.find((r: { id: string }) => r.id === "SUB-1").reason).toMatch(/not selected/);
    expect(report.mode).toMatchObject({ writes: true, spend: true, session: "given", oauthAutoConsent: true, scopedKeys: 2 });
    // Only the rule chosen is judged and listed (an observation of another rule is not recorded).
    expect(report.rows.filter((r: { verdict: string }) => r.verdict !== "n/a").map((r: { id: string }) => r.id)).toEqual(["PAGE-3"]);
    expect(report.summary).toEqual({ pass: 1, fail: 0, notApplicable: 0 });
    expect(report.only).toEqual(["PAGE-3"]);
    const xml = readFileSync(junit, "utf8");
    expect(xml.match(/<testcase /g)).toHaveLength(1);
    expect(xml).toMatch(/<testcase classname="conformance\.Endpoints" name="PAGE-3: /);
    expect(xml).not.toContain("<failure");
  });

  it("AUTH-6: takes keys with fewer scopes from HUB_SCOPED_KEY_1 and --scoped-key, and names them by their variables in the curl lines", async () => {
    const sim = await startSim({ clockSpeed: 1 });
    const proxy = await startProxy(sim.url, DOUBLES.find((d) => d.rule === "AUTH-6" && d.area === "stateful")!.make(sim));
    try {
      const [narrow, broad] = await simulatorScopedKeys(controlOf(sim));
      const run = await cli(["--only", "AUTH-6", "--quick", "--generate=5", "--seed", "1", "--operations", "deleteLibraryFolder", "--scoped-key", broad!], { HUB_BASE_URL: proxy.url, HUB_API_KEY: "ghk_demo_full", HUB_SCOPED_KEY_1: narrow! });
      expect(run.code, run.stderr).toBe(1);
      expect(run.stdout).toMatch(/extra keys: none, 2 key\(s\) with fewer scopes/);
      expect(run.stdout).toMatch(/deleteLibraryFolder \(DELETE \/v1\/library\/folders\/\{id\}\) needs library:write; scoped-1 holds models:read: answered 404 not_found; expected 403 insufficient_scope/);
      expect(run.stdout).toMatch(/^ {10}\$ curl -sS -i -X DELETE \S+ -H "Authorization: Bearer \$\{HUB_SCOPED_KEY_1\}"/m);
      expect(run.stdout).toMatch(/^ {12}1\. readWhoami with scoped-1 \(it holds models:read\): GET \/v1\/whoami -> 200/m);
      expect(run.stdout).not.toContain(narrow!);
    } finally {
      await proxy.close();
      await sim.close();
    }
  });

  it("PAGE-3: fails with status 1 and the request id against a server given by HUB_BASE_URL and HUB_API_KEY", async () => {
    const sim = await startSim({ clockSpeed: 1 });
    const proxy = await startProxy(sim.url, DOUBLES.find((d) => d.rule === "PAGE-3")!.make(sim));
    try {
      const har = join(mkdtempSync(join(tmpdir(), "conformance-")), "failures.har");
      const run = await cli(["--only", "PAGE-3", "--quick", "--har", har], { HUB_BASE_URL: proxy.url, HUB_API_KEY: "ghk_demo_full" });
      expect(run.code, run.stderr).toBe(1);
      expect(run.stdout).toMatch(/^ {10}\$ curl -sS -i -X GET '\S+\/v1\/generations\?limit=101' -H "Authorization: Bearer \$\{HUB_API_KEY\}"/m);
      expect(run.stderr).toMatch(/HAR file of \d+ failing exchange\(s\) written to /);
      const log = JSON.parse(readFileSync(har, "utf8")).log;
      expect(log.entries.some((e: { request: { url: string } }) => e.request.url.endsWith("/v1/generations?limit=101"))).toBe(true);
      expect(readFileSync(har, "utf8")).not.toContain("ghk_demo_full");
      expect(run.stdout).toMatch(/^  FAIL  PAGE-3 /m);
      // The table lists the rule chosen, and no other.
      expect([...run.stdout.matchAll(/^ {2}(?:PASS|FAIL|n\/a ) {2}(\S+)/gm)].map((m) => m[1])).toEqual(["PAGE-3"]);
      expect(run.stdout).not.toMatch(/not selected/);
      expect(run.stdout).toMatch(/^FAILED: 0 pass, 1 fail, 0 n\/a of 1 rule selected \(--only PAGE-3\); /m);
      expect(run.stdout).toMatch(/limit=101 answered 200 .*request id conformance-/);
      expect(run.stdout).toMatch(/^FAILED: /m);
      expect(run.stdout).toMatch(/writes not allowed, spending not allowed, second account not given/);
    } finally {
      await proxy.close();
      await sim.close();
    }
  });

  it("ST-2 EVT-12: against the standalone simulator (--base-url) finds its control interface, moves its clock (the 7 days of event history) and runs the sequences that cancel a generation through it", async () => {
    const sim = await startSim({ clockSpeed: 1 });
    try {
      const before = sim.hub.clock.now();
      // PRICE-1's check prices the body the cancelled submit sends.
      const run = await cli(["--only", "ST-2,PRICE-1,EVT-12", "--quick", "--allow-spend", "--json"], { HUB_BASE_URL: sim.url, HUB_API_KEY: "ghk_demo_full" });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain("exposes the simulator's control interface (/_sim/): the suite moves its clock instead of waiting (it owns that simulator while it runs");
      const rows = (JSON.parse(run.stdout) as { rows: { id: string; verdict: string; reason?: string }[] }).rows;
      for (const id of ["ST-2", "EVT-12"]) {
        const row = rows.find((r) => r.id === id);
        expect(row?.verdict, `${id}: ${row?.reason}`).toBe("pass");
        expect(row?.reason, id).toBeUndefined();
      }
      // Moved through its control interface, not waited for.
      expect(sim.hub.clock.now() - before).toBeGreaterThan(7 * 86_400_000);
    } finally {
      await sim.close();
    }
  });

  it("finds no control interface on a server without /_sim/ (one read, nothing else)", async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":{"code":"not_found"}}');
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    try {
      const { port } = server.address() as AddressInfo;
      expect(await detectSimulatorControl(`http://127.0.0.1:${port}`, "key")).toBeUndefined();
      expect(seen).toEqual(["GET /_sim/scenarios"]);
      expect(await detectSimulatorControl("http://127.0.0.1:1", "key")).toBeUndefined();
    } finally {
      server.close();
    }
  });

  it("PAGE-3: --min-coverage fails a run that exercised fewer rules, with the reason", async () => {
    const run = await cli(["--only", "PAGE-3", "--quick", "--min-coverage", "90"]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^Coverage under its floor: coverage [\d.]+% \(\d+ of \d+ rules exercised\) is under --min-coverage 90%$/m);
    expect(run.stdout).toMatch(/^FAILED: 1 pass, 0 fail, 0 n\/a of 1 rule selected \(--only PAGE-3\); 1 of \d+ rules exercised, \d+% \(floor 90%\)/m);
  });

  it("CAT-4 CAT-5: --generate=N --seed --operations sends generated requests to its own simulator and says what it sent", async () => {
    const run = await cli(["--generate=5", "--seed", "9", "--operations", "listModels,searchKnowledge", "--only", "CAT", "--quick"]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Generated inputs \(seed 9, up to 5 per operation; the same seed sends the same requests\): 10 cases \(\d+ valid, \d+ with one fault\) to 2 operations, \d+ requests in all \(shrinking and cleanup included\), 0 finding\(s\)$/m);
    expect(run.stdout).toMatch(/^ {2}listModels +5 cases \(5 valid, 0 invalid\)$/m);
    expect(run.stdout).toMatch(/^ {2}searchKnowledge +5 cases \(3 valid, 2 invalid\)$/m);
  });

  it("describes each option once: the usage text, the environment, the secrets, the defaults and the guide's table come from OPTIONS", () => {
    expect(OPTIONS.length).toBeGreaterThan(30);
    const usage = usageOf("generation-hub conformance");
    const guide = readFileSync(join(root, "docs/conformance.md"), "utf8");
    const table = guide.slice(guide.indexOf("## Options"), guide.indexOf("## Reading the report"));
    for (const o of OPTIONS) {
      expect(usage, o.flag).toMatch(new RegExp(`^  --${o.flag}\\b`, "m"));
      if (o.flag !== "help") expect(table, o.flag).toContain(`\`--${o.flag}`);
      const variable = /^[A-Z_0-9]+/.exec(o.env ?? "")?.[0];
      if (variable) expect(usage, o.flag).toContain(o.env);
      if (variable && !o.env!.includes("<")) expect(guide, o.flag).toContain(variable);
      // A secret says which variables hold what it gave a run: the masking reads them from here.
      expect(Boolean(o.secret), o.flag).toBe(o.secrets !== undefined);
      // A default (or the value a bare flag stands for) is the row's: its help and the guide's row say it.
      const stated = o.default !== undefined ? String(o.default) : o.bare;
      if (stated === undefined) continue;
      expect(helpOf(o), o.flag).toContain(`default ${o.defaultText ?? stated}`);
      expect(table.split("\n").find((line) => line.includes(`\`--${o.flag}`)), o.flag).toContain(`default ${stated}`);
    }
    // The library fills in the same defaults.
    expect(Object.keys(OPTION_DEFAULTS).length).toBeGreaterThan(0);
    expect(resolve({ baseUrl: "http://h", apiKey: "k" })).toMatchObject(OPTION_DEFAULTS);
    expect([...table.matchAll(/`--([a-z-]+)/g)]).not.toHaveLength(0);
    for (const [, flag] of table.matchAll(/`--([a-z-]+)/g)) expect(OPTIONS.some((o) => o.flag === flag), `--${flag} in the guide`).toBe(true);
  });

  it("opens the simulator's windows for generated inputs as the guides tell CI to open the mock's: one constant, OPEN_WINDOWS", () => {
    for (const file of ["docs/conformance.md", "packages/devtools/README.md", "README.md"]) {
      const text = readFileSync(join(root, file), "utf8").replace(/\s*\\?\n\s*/g, " ");
      const said = [...text.matchAll(/--key-quota (\d+) --account-quota (\d+) --submit-quota (\d+)/g)];
      expect(said, file).not.toHaveLength(0);
      for (const m of said) expect(m.slice(1).map(Number), file).toEqual([OPEN_WINDOWS.keyQuota, OPEN_WINDOWS.accountQuota, OPEN_WINDOWS.submitQuota]);
    }
  });

  it("reads a flag before its variable, adds repeated values to the environment's, and takes the secrets from the options marked secret", () => {
    const r = readRequest(
      { "api-key": "flag-key", key: ["free=flag-free"], "scoped-key": ["flag-scoped"], "allow-writes": true, only: "PAGE, EVT-9" },
      { HUB_API_KEY: "env-key", HUB_OTHER_API_KEY: "env-other", HUB_KEY_READ_ONLY: "env-readonly", HUB_SCOPED_KEY_1: "env-scoped", HUB_ALLOW_SPEND: "1", HUB_SESSION_COOKIE: "sid=env" },
    );
    expect(r.options).toMatchObject({ apiKey: "flag-key", otherApiKey: "env-other", keys: { "read-only": "env-readonly", free: "flag-free" }, scopedKeys: ["env-scoped", "flag-scoped"], allowWrites: true, allowSpend: true, only: ["PAGE", "EVT-9"] });
    expect(r.options.session).toEqual({ cookie: "sid=env" });
    const secrets = secretsOf({ baseUrl: "http://h", apiKey: "", ...r.options, oauthToken: "gho_given" });
    expect(secrets).toEqual([
      { value: "flag-key", variable: "HUB_API_KEY" },
      { value: "env-other", variable: "HUB_OTHER_API_KEY" },
      { value: "env-readonly", variable: "HUB_KEY_READ_ONLY" },
      { value: "flag-free", variable: "HUB_KEY_FREE" },
      { value: "env-scoped", variable: "HUB_SCOPED_KEY_1" },
      { value: "flag-scoped", variable: "HUB_SCOPED_KEY_2" },
      { value: "sid=env", variable: "HUB_SESSION_COOKIE" },
      { value: "gho_given", variable: "HUB_OAUTH_TOKEN" },
    ]);
    expect(() => readRequest({ key: ["ghk_a_key_given_without_its_role"] }, {})).toThrow(/--key takes ROLE=KEY with ROLE one of .*; got no ROLE=$/);
  });

  it("refuses an --only or --operations name that selects nothing, naming it and the closest known ones, with status 2", async () => {
    const typo = await cli(["--only", "PAGE-3,NOPE-1,evt-9"]);
    expect(typo.code).toBe(2);
    expect(typo.stdout).toBe("");
    expect(typo.stderr.split("\n")[0]).toBe("conformance: --only names no rule id or prefix: NOPE-1 (closest: PAGE-1, UPL-1, SUP-1); evt-9 (closest: EVT-9)");
    expect(() => readRequest({ only: "PAGE,SUB-,EVT-9,OAUTH" }, {})).not.toThrow();
    expect(() => readRequest({ only: "XYZZY" }, {})).toThrow(/^--only names no rule id or prefix: XYZZY \(nothing close\)$/);
    expect(() => readRequest({ generate: "", operations: "listModel" }, {})).toThrow(/^--operations names no operation of the contract: listModel \(closest: listModels\)$/);
    await expect(runConformance({ baseUrl: "http://127.0.0.1:9", apiKey: "k", only: ["PAGE-33"] })).rejects.toThrow(/^only \(--only\) names no rule id or prefix: PAGE-33 \(closest: PAGE-3\)$/);
  });

  it("refuses bad generated-input and coverage flags with one clear line", () => {
    const cases = [
      [{ "min-coverage": "150" }, /^--min-coverage takes a percentage of the rules \(0 to 100\), got "150"$/],
      [{ generate: "abc" }, /^--generate takes a number of requests per operation \(a positive integer\), got "abc"$/],
      [{ seed: "3" }, /^--seed and --operations choose generated requests: give --generate too$/],
      [{ generate: "", seed: "x" }, /^--seed takes an integer, got "x"$/],
      [{ generate: "", operations: "listModels,noSuchOperation" }, /^--operations names no operation of the contract: noSuchOperation/],
      [{ reserve: "-1" }, /^--reserve takes a number of requests \(0 or more\), got "-1"$/],
    ] as const;
    for (const [values, message] of cases) expect(() => readRequest(values, {})).toThrow(message);
    for (const [values] of cases) expect(() => readRequest(values, {})).toThrow(Usage);
    expect(readRequest({ generate: "", seed: "7", operations: "listModels" }, {}).options.generate).toEqual({ perOperation: DEFAULT_GENERATED, seed: 7, operations: ["listModels"] });
    expect(withBareValues(["--generate", "--seed", "7"])).toEqual(["--generate=", "--seed", "7"]);
    // The library holds its options to the same rows, in the same words.
    expect(() => resolve({ baseUrl: "http://h", apiKey: "k", minCoverage: 150 })).toThrow(/^minCoverage \(--min-coverage\) takes a percentage of the rules \(0 to 100\), got 150$/);
    expect(() => resolve({ baseUrl: "http://h", apiKey: "k", generate: { perOperation: 0 } })).toThrow(/^generate\.perOperation \(--generate\) takes a number of requests per operation \(a positive integer\), got 0$/);
    expect(() => resolve({ baseUrl: "http://h", apiKey: "k", reserve: -1 })).toThrow(RangeError);
  });

  it("answers a bad flag value with status 2 and one line", async () => {
    const bad = await cli(["--base-url", "http://127.0.0.1:9", "--api-key", "k", "--generate=abc"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.split("\n")[0]).toBe('conformance: --generate takes a number of requests per operation (a positive integer), got "abc"');
  });

  it("answers --help and refuses bad usage with status 2", async () => {
    const help = await cli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--base-url URL/);
    expect(help.stdout).toMatch(/--session-cookie VALUE[\s\S]*--oauth-token TOKEN[\s\S]*--oauth-auto-consent[\s\S]*--oauth-client-document URL/);
    const noBase = await cli(["--api-key", "k"]);
    expect(noBase.code).toBe(2);
    expect(noBase.stderr).toMatch(/--api-key without --base-url/);
    const badRole = await cli(["--base-url", "http://127.0.0.1:9", "--api-key", "k", "--key", "nobody=x"]);
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toMatch(/--key takes ROLE=KEY/);
    const originOnly = await cli(["--base-url", "http://127.0.0.1:9", "--api-key", "k", "--origin", "http://localhost"]);
    expect(originOnly.code).toBe(2);
    expect(originOnly.stderr).toMatch(/--origin is the Origin allowed for a site session: give --session-cookie too/);
  });
});
