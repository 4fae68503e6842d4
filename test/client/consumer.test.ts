// The package as another project gets it: build, `npm pack`, install the tarball into a
// fresh project in a temporary folder (dependencies from the npm registry), compile a
// strict TypeScript consumer against it (browser libraries only, no Node types, the
// package's own declarations checked too), then run it on Node against the simulator:
// submit, follow, page and read back with an API key; sign in with the OAuth entry point
// (metadata document and registration, PKCE, auto-consent, exchange, rotation, revoke),
// upload both ways and submit the references with the token. Every exchange of the
// consumer is recorded beneath it (consumer/run.js.txt) and every answer checked against
// the contract: API and OAuth answers by `checkAnswer`, stream frames as `EventFrame`,
// storage PUTs for exactly the ticket's headers.
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createParser } from "eventsource-parser";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { at } from "../../scripts/lib/paths.ts";
import { checkAnswer, matchOperation, schemaValidator } from "../../src/contract/index.ts";
import { startSimulator, type RunningSimulator } from "../../src/simulator/index.ts";
import { npmIn } from "../support/npm.ts";
import { packedPackages } from "../support/packed.ts";

let project: string;
/** What npm warned installing the packed package in the fresh project (findings only). */
let installWarnings: string[] = [];
/** What tsc printed compiling the consumer (empty when it compiled cleanly). */
let compiled = "";
const sims: RunningSimulator[] = [];
const run = (cmd: string, args: string[], cwd: string) => execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" } });

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), "hub-consumer-"));
  const tarball = (await packedPackages()).api;
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "hub-consumer", private: true, type: "module", dependencies: { "@generation-hub/api": `file:${tarball}` } }, null, 2));
  installWarnings = npmIn(project, ["install", "--prefer-offline", "--no-package-lock"]).warnings;
  writeFileSync(
    join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        lib: ["ES2022", "DOM", "DOM.Iterable", "DOM.AsyncIterable"],
        types: [],
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: false,
        resolveJsonModule: true,
        outDir: "build",
      },
      files: ["consumer.ts"],
    }),
  );
  copyFileSync(at("test/client/consumer/consumer.ts.txt"), join(project, "consumer.ts"));
  copyFileSync(at("test/client/consumer/run.js.txt"), join(project, "run.js"));
  try {
    compiled = run(process.execPath, [at("node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], project);
  } catch (error) {
    compiled = String((error as { stdout?: string }).stdout || error);
  }
}, 420_000);

afterAll(async () => {
  await Promise.all(sims.map((s) => s.close()));
  if (project) rmSync(project, { recursive: true, force: true });
});

describe("consumer project", () => {
  it(`installs without a warning on this Node (${process.version}): no EBADENGINE of a dependency (engines: ^20.19.0 || ^22.12.0 || >=24)`, () => {
    expect(installWarnings).toEqual([]);
  });

  it("the tarball holds the entry points of the exports map", () => {
    const manifest = JSON.parse(readFileSync(join(project, "node_modules/@generation-hub/api/package.json"), "utf8")) as { exports: Record<string, unknown> };
    expect(Object.keys(manifest.exports)).toEqual([".", "./client", "./oauth", "./types", "./openapi.json", "./openapi.yaml", "./schemas/*", "./package.json"]);
    const installed = join(project, "node_modules/@generation-hub/api");
    for (const file of ["dist/src/client/index.js", "dist/src/client/index.d.ts", "dist/src/client/oauth/index.js", "dist/generated/types.d.ts", "generated/openapi.json", "schemas/generations/GenerationRecord.json", "CHANGELOG.md"]) {
      expect(() => readFileSync(join(installed, file)), file).not.toThrow();
    }
  });

  it("every relative link of the Markdown the package ships (README, CHANGELOG, the guides) reaches a file in the package", () => {
    const installed = join(project, "node_modules/@generation-hub/api");
    const markdown: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (name === "node_modules") continue;
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith(".md")) markdown.push(path);
      }
    };
    walk(installed);
    expect(markdown.map((f) => relative(installed, f))).toEqual(expect.arrayContaining(["README.md", "CHANGELOG.md", "docs/simulator.md", "docs/conformance.md", "docs/guides/getting-started.md", "docs/guides/generators.md", "releases/README.md"]));
    const broken: string[] = [];
    for (const file of markdown) {
      for (const [, target] of readFileSync(file, "utf8").matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!) || target!.startsWith("#")) continue;
        const path = join(dirname(file), decodeURIComponent(target!.split("#")[0]!));
        if (!existsSync(path)) broken.push(`${relative(installed, file)} -> ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("SUB-0 ERR-1: a strict TypeScript consumer compiles against the installed package", () => {
    expect(compiled).toBe("");
  });

  it("from CommonJS: require() gives the client on this Node; TypeScript takes the import with module nodenext and refuses it with node16 (TS1479), as the README says", () => {
    const cjs = join(project, "cjs");
    mkdirSync(cjs);
    writeFileSync(join(cjs, "package.json"), JSON.stringify({ name: "hub-cjs-consumer", private: true, type: "commonjs" }));
    writeFileSync(join(cjs, "index.ts"), 'import { createHubClient } from "@generation-hub/api";\nimport type { GenerationRecord } from "@generation-hub/api/types";\nexport const status = (g: GenerationRecord) => g.status;\nconsole.log(typeof createHubClient);\n');
    const diagnostics = (module: "node16" | "nodenext") => {
      const options = { module: ts.ModuleKind[module === "node16" ? "Node16" : "NodeNext"], moduleResolution: ts.ModuleResolutionKind[module === "node16" ? "Node16" : "NodeNext"], target: ts.ScriptTarget.ES2022, strict: true, types: [], outDir: join(cjs, "build") };
      const program = ts.createProgram({ rootNames: [join(cjs, "index.ts")], options });
      const found = ts.getPreEmitDiagnostics(program).map((d) => `TS${d.code}`);
      if (found.length === 0) program.emit();
      return found;
    };
    expect(diagnostics("node16")).toContain("TS1479");
    expect(diagnostics("nodenext")).toEqual([]);
    expect(readFileSync(join(cjs, "build/index.js"), "utf8")).toContain('require("@generation-hub/api")');
    // Node's require of ES modules (20.19+, 22.12+): no flag, and no warning past 22.12.
    const r = spawnSync(process.execPath, ["build/index.js"], { cwd: cjs, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("function");
    if (!process.version.startsWith("v22.12.")) expect(r.stderr).toBe("");
  });

  it("SUB-1 ST-5 PAGE-1 BATCH-1 EVT-11: the consumer submits, follows, pages and reads back against the simulator", async () => {
    const sim = await simulator({ clockSpeed: 100 });
    const { report, exchanges } = await consume(sim, "main");
    expect(report).toMatchObject({ submitted: 202, final: "DONE", caughtUp: 1, refusal: "payment_required", schemaTitle: "GenerationRecord", interfaceVersion: "1.0.0" });
    expect(report.followed).toEqual(["QUEUED", "PENDING", "RUNNING", "DONE"]);
    expect(report.paged).toBeGreaterThanOrEqual(1);
    expect(violations(sim, exchanges)).toEqual([]);
    expect(exchanges.some((e) => e.stream && e.body.includes("generation.status_changed"))).toBe(true);
  }, 120_000);

  it("OAUTH-4 OAUTH-8 OAUTH-10 OAUTH-12 OAUTH-13 OAUTH-14 OAUTH-15 OAUTH-17 UPL-7 UPL-8: the consumer signs in with the OAuth entry point, uploads both ways and submits the references with the token", async () => {
    // The real clock: the parallel-refresh window (10 s) and the code lifetime hold as on the hub.
    const sim = await simulator({ oauth: { autoConsent: "acc_demo" } });
    const { report, exchanges } = await consume(sim, "oauth", at("src/simulator/assets/image.png"));
    const png = readFileSync(at("src/simulator/assets/image.png"));
    expect(report).toMatchObject({
      channel: "oauth",
      granted: "me:read uploads:write generations:write generations:read",
      submitted: 202,
      rotated: true,
      usedRefreshToken: "invalid_grant",
      refreshedAfterRefusal: true,
      revokedRefreshToken: "invalid_grant",
      registered: expect.stringMatching(/^cli_/),
    });
    expect(violations(sim, exchanges)).toEqual([]);

    const path = (e: Exchange) => new URL(e.url).pathname;
    const routes = exchanges.filter((e) => !path(e).startsWith("/_sim/")).map((e) => `${e.method} ${path(e).replace(/^\/storage\/.*/, "/storage/…").replace(/^\/v1\/generations\/gen_[^/]+$/, "/v1/generations/{id}")} ${e.status}`);
    expect(routes).toEqual([
      "GET /.well-known/oauth-authorization-server 200",
      "GET /.well-known/oauth-protected-resource/v1 200",
      "GET /oauth/authorize 303",
      "POST /oauth/token 200",
      "GET /v1/whoami 200",
      "POST /v1/uploads 200",
      "PUT /storage/… 200",
      "POST /v1/uploads 200",
      "PUT /v1/uploads/content 200",
      "POST /v1/generations 202",
      "GET /v1/generations/{id} 200",
      "POST /oauth/token 200",
      "POST /oauth/token 400",
      "POST /oauth/revoke 200",
      "GET /v1/me 401",
      "POST /oauth/token 200",
      "GET /v1/me 200",
      "POST /oauth/revoke 200",
      "POST /oauth/token 400",
      "POST /oauth/register 201",
      "GET /oauth/authorize 303",
      "POST /oauth/token 200",
      "GET /v1/me 200",
    ]);
    // The client's requests: the document's address as client_id, the bearer token on /v1 only.
    const authorize = new URL(exchanges.find((e) => path(e) === "/oauth/authorize")!.url);
    expect(authorize.searchParams.get("client_id")).toBe("https://consumer.example/oauth/client.json");
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(exchanges.filter((x) => path(x).startsWith("/v1/"))).not.toHaveLength(0);
    expect(exchanges.filter((x) => !path(x).startsWith("/v1/"))).not.toHaveLength(0);
    for (const e of exchanges.filter((x) => path(x).startsWith("/v1/"))) expect(e.requestHeaders.authorization, `${e.method} ${path(e)}`).toMatch(/^Bearer gho_/);
    for (const e of exchanges.filter((x) => !path(x).startsWith("/v1/"))) expect(e.requestHeaders.authorization, `${e.method} ${path(e)}`).toBeUndefined();

    // Both uploads return the ticket's reference, and the submit names both.
    const tickets = exchanges.filter((e) => e.method === "POST" && path(e) === "/v1/uploads").map((e) => JSON.parse(e.body) as { reference: string; url: string });
    expect(report.uploads).toEqual([
      { via: "direct", reference: tickets[0]!.reference },
      { via: "proxy", reference: tickets[1]!.reference, bytesStored: png.length },
    ]);
    const storage = exchanges.find((e) => path(e).startsWith("/storage/"))!;
    expect(storage.url).toBe(tickets[0]!.url);
    const submit = exchanges.find((e) => e.method === "POST" && path(e) === "/v1/generations")!;
    expect(JSON.parse(submit.requestBody!).image_urls).toEqual([tickets[0]!.reference, tickets[1]!.reference]);
    expect(report.readBack).toEqual(expect.any(String));
    // The uploaded files are in the account's library.
    const library = await fetch(`${sim.url}/v1/library/assets?limit=100`, { headers: { authorization: "Bearer ghk_demo_full" } });
    const listed = await library.text();
    expect(checkAnswer(matchOperation("GET", "/v1/library/assets")!.operation, { status: library.status, headers: library.headers, body: listed })).toEqual([]);
    const refs = (JSON.parse(listed) as { data: { reference: string }[] }).data.map((a) => a.reference);
    expect(refs).toEqual(expect.arrayContaining(tickets.map((t) => t.reference)));
  }, 120_000);
});

interface Exchange {
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  stream: boolean;
}

async function simulator(options: Parameters<typeof startSimulator>[0]): Promise<RunningSimulator> {
  const sim = await startSimulator({ port: 0, ...options });
  sims.push(sim);
  return sim;
}

/** Runs the compiled consumer in its own Node process; answers its report and the exchanges recorded beneath it. */
async function consume(sim: RunningSimulator, mode: "main" | "oauth", ...args: string[]): Promise<{ report: Record<string, unknown>; exchanges: Exchange[] }> {
  const transcript = join(project, `transcript-${mode}.json`);
  const out = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ["run.js", sim.url, mode, transcript, ...args], { cwd: project, timeout: 60_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout))),
  );
  return { report: JSON.parse(out.trim().split("\n").at(-1)!) as Record<string, unknown>, exchanges: JSON.parse(readFileSync(transcript, "utf8")) as Exchange[] };
}

/**
 * Every way the recorded answers depart from the contract: API and OAuth answers by
 * `checkAnswer`, each stream frame as an `EventFrame`; storage PUTs (outside the contract:
 * the seed's direct PUT) must carry exactly the ticket's headers and no credentials.
 * Control routes (`/_sim/`) are the test's stand-ins and are not judged.
 */
function violations(sim: RunningSimulator, exchanges: Exchange[]): string[] {
  const found: string[] = [];
  const origin = new URL(sim.url).origin;
  const frame = schemaValidator("EventFrame");
  const tickets = exchanges.filter((e) => e.method === "POST" && e.url.endsWith("/v1/uploads") && e.status === 200).map((e) => JSON.parse(e.body) as { url: string; headers: Record<string, string> });
  for (const e of exchanges) {
    const url = new URL(e.url);
    const where = `${e.method} ${url.pathname} ${e.status}`;
    if (url.origin !== origin) found.push(`${where}: a request outside the simulator (${url.origin})`);
    if (url.pathname.startsWith("/_sim/")) continue;
    if (url.pathname.startsWith("/storage/")) {
      const ticket = tickets.find((t) => t.url === e.url);
      const lower = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
      if (!ticket) found.push(`${where}: no ticket signed this address`);
      else if (JSON.stringify(Object.entries(lower(e.requestHeaders)).sort()) !== JSON.stringify(Object.entries(lower(ticket.headers)).sort())) found.push(`${where}: sent ${JSON.stringify(e.requestHeaders)}, the ticket signed ${JSON.stringify(ticket.headers)}`);
      if (e.status !== 200) found.push(`${where}: storage refused the PUT`);
      continue;
    }
    const matched = matchOperation(e.method, url.pathname);
    if (!matched) {
      found.push(`${where}: not an operation of the contract`);
      continue;
    }
    for (const v of checkAnswer(matched.operation, { status: e.status, headers: new Headers(e.headers), body: e.stream ? "" : e.body })) found.push(`${where}: ${v.where}: ${v.message}`);
    if (!e.stream) continue;
    const parser = createParser({
      onEvent: (event) => {
        let data: unknown;
        try {
          data = JSON.parse(event.data);
        } catch {
          return void found.push(`${where}: frame ${event.id}: data is not JSON`);
        }
        if (!frame({ event: event.event ?? "message", id: event.id, data })) found.push(`${where}: frame ${event.id}: ${JSON.stringify(frame.errors?.[0])}`);
      },
    });
    parser.feed(e.body);
  }
  return found;
}
