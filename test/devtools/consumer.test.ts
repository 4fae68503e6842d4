// The dev tools as another project gets them: `npm pack` both packages (the client
// package and @generation-hub/devtools), install the tarballs into a fresh project in a
// temporary folder (dependencies from the npm registry), and use them there as a frontend
// or backend team would: the `generation-hub mock` bin, the `generation-hub conformance`
// bin against it, the library entry points, the Mock Service Worker handlers in the
// project's own vitest run and in a page of the project in Chromium. Nothing here runs from
// this repository's sources or through tsx.
//
// Why it takes 45 to 100 s on the shared 2-core machine (65 s with the machine quiet, 102 s
// in the first run of a fresh clone, three test workers sharing the cores): installing the
// packed packages with msw and vitest from the registry's cache, the packed bins started as processes, a
// vitest run of the project's own, and Chromium for the MSW page and the shipped docs'
// try-it panel. Each is what a user's project runs; none can run in this process.
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { build } from "esbuild";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { at } from "../../scripts/lib/paths.ts";
import { markdownBlocks } from "../docs/code-samples.ts";
import { eventsFromAnotherPanel, missingScope, noCredentialMeansNone, submitThroughSearch, watchErrors, wrongBodyFlagged } from "../docs/console-flows.ts";
import { serveSite } from "../docs/support.ts";
import { chromiumFor } from "../support/chromium.ts";
import { npmIn } from "../support/npm.ts";
import { packedPackages } from "../support/packed.ts";
import { repositoryPointers } from "../support/user-facing.ts";

const browsers = chromiumFor("the dev tools' MSW handlers in a consumer's page", "test/devtools/consumer.test.ts");
/** The versions this repository tests with, installed in the consumer project from the registry. */
const rootManifest = JSON.parse(readFileSync(at("package.json"), "utf8")) as { devDependencies: Record<string, string> };

let project: string;
/** What npm warned installing the packed packages in the fresh project (findings only). */
let installWarnings: string[] = [];
const children: ChildProcess[] = [];
const env = { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
const run = (cmd: string, args: string[], cwd: string) => execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env });
const installed = (name: string) => join(project, "node_modules", name);
/** The tarball `npm pack --json` made (its JSON follows whatever the package's prepack printed). */
const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { dependencies?: Record<string, string>; peerDependencies?: Record<string, string>; bin?: Record<string, string> };

/** Starts the installed bin; resolves its base address once it printed it. */
function startMock(args: string[]): Promise<{ url: string; output: () => string }> {
  const child = spawn(join(project, "node_modules/.bin/generation-hub"), ["mock", ...args], { cwd: project, stdio: ["ignore", "pipe", "pipe"], env });
  children.push(child);
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the mock did not start:\n${out}`)), 30_000);
    const check = () => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!, output: () => out });
      }
    };
    child.stdout!.on("data", check);
    child.once("exit", (code) => reject(new Error(`the mock exited (${code}):\n${out}`)));
  });
}

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), "hub-devtools-consumer-"));
  const { api, devtools } = await packedPackages();
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({
      name: "hub-devtools-consumer",
      private: true,
      type: "module",
      dependencies: { "@generation-hub/api": `file:${api}` },
      devDependencies: {
        "@generation-hub/devtools": `file:${devtools}`,
        msw: rootManifest.devDependencies.msw,
        vitest: rootManifest.devDependencies.vitest,
        "@playwright/test": rootManifest.devDependencies["@playwright/test"],
      },
    }, null, 2),
  );
  installWarnings = npmIn(project, ["install", "--prefer-offline", "--no-package-lock"], env).warnings;
}, 600_000);

afterAll(() => {
  for (const child of children) child.kill("SIGTERM");
  if (project) rmSync(project, { recursive: true, force: true });
});

describe("the dev tools installed in another project", () => {
  it(`installs without a warning on this Node (${process.version}): no EBADENGINE of a dependency (engines: ^20.19.0 || ^22.12.0 || >=24)`, () => {
    expect(installWarnings).toEqual([]);
  });

  it("the client package stays lean: its dependencies are the client's four, none of the tools'", () => {
    expect(Object.keys(manifest(installed("@generation-hub/api")).dependencies ?? {}).sort()).toEqual(["eventsource-parser", "oauth4webapi", "openapi-fetch", "structured-headers"]);
  });

  it("the dev-tools package runs compiled JavaScript and depends on exactly the packages its code imports", () => {
    const root = installed("@generation-hub/devtools");
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else files.push(path);
      }
    };
    walk(join(root, "dist"));
    expect(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts")).map((f) => relative(root, f))).toEqual([]);
    const imported = new Set<string>();
    for (const file of [...files.filter((f) => f.endsWith(".js")), join(root, "bin/generation-hub.js")]) {
      for (const { fileName } of ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles) {
        if (fileName.startsWith(".") || fileName.startsWith("node:") || builtinModules.includes(fileName)) continue;
        imported.add(fileName.startsWith("@") ? fileName.split("/").slice(0, 2).join("/") : fileName.split("/")[0]!);
      }
    }
    const m = manifest(root);
    expect([...imported].sort()).toEqual(Object.keys({ ...m.dependencies, ...m.peerDependencies }).sort());
    expect(m.bin).toEqual({ "generation-hub": "./bin/generation-hub.js" });
  });

  it("`generation-hub mock` answers /v1/me to a demo key and serves the reference docs shipped in the package", async () => {
    const mock = await startMock(["--port", "0"]);
    const me = await fetch(`${mock.url}/v1/me`, { headers: { authorization: "Bearer ghk_demo_full" } });
    expect(me.status).toBe(200);
    expect((await me.json()).plan.id).toBeTypeOf("string");
    expect(mock.output()).toContain("ghk_demo_full");
    const docs = await fetch(`${mock.url}/docs/`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await (await fetch(`${mock.url}/docs/reference.html`)).text()).toContain("Generation Hub");
    // Nothing of the package was built on this machine: the docs are the ones it shipped.
    expect(mock.output()).not.toContain("Docs built");
    expect(docs.headers.get("x-content-type-options")).toBe("nosniff");
    expect(docs.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    // The banner links the simulator guide where this mock serves it, and says nothing of the repository.
    expect(mock.output()).toContain(`Details: ${mock.url}/docs/guides/simulator.html.`);
    expect((await fetch(`${mock.url}/docs/guides/simulator.html`)).status).toBe(200);
    expect(repositoryPointers(mock.output())).toEqual([]);
    // The request inspector: printed, served with its script from the package, and its journal holds the request above.
    expect(mock.output()).toContain(`Inspector:  ${mock.url}/_sim/ui/`);
    const page = await fetch(`${mock.url}/_sim/ui/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const script = await fetch(`${mock.url}/_sim/ui/app.js`);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await script.text()).toContain("/_sim/ui/events");
    const rows = (await (await fetch(`${mock.url}/_sim/requests?route=readAccount`)).json()).data;
    expect(rows[0]).toMatchObject({ path: "/v1/me", status: 200, credential: { id: "key_full" } });
  });

  it("what the commands print speaks from the user's project: the usage of each command and its one-line refusals point at no path, document, script or root of the repository", () => {
    const bin = join(project, "node_modules/.bin/generation-hub");
    const printed = [[], ["--help"], ["mock", "--help"], ["conformance", "--help"], ["mok"], ["mock", "--prot", "1"], ["mock", "--faults", "kind=nope"], ["mock", "--scenario", "nope"]].map((args) => {
      const r = spawnSync(bin, args, { cwd: project, encoding: "utf8", env });
      return `generation-hub ${args.join(" ")}:\n${r.stdout}${r.stderr}`;
    });
    expect(printed.every((text) => text.split("\n").length > 2)).toBe(true);
    expect(printed.flatMap((text) => repositoryPointers(text))).toEqual([]);
  });

  it("`generation-hub mock` is not a page's to take over: a rebound Host is refused naming the flag, /_sim/ takes JSON, --help lists the flags", async () => {
    const mock = await startMock(["--port", "0", "--allowed-hosts", "sim.test"]);
    const port = new URL(mock.url).port;
    const { request } = await import("node:http");
    const hostOf = (host: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port, path: "/_sim/state", headers: { host } }, (res) => {
          let body = "";
          res.on("data", (d) => (body += d));
          res.on("end", () => resolve({ status: res.statusCode!, body }));
        });
        req.on("error", reject);
        req.end();
      });
    const rebound = await hostOf(`evil.example:${port}`);
    expect(rebound.status).toBe(403);
    expect(rebound.body).toContain("--allowed-hosts");
    expect((await hostOf(`sim.test:${port}`)).status).toBe(200);
    expect((await fetch(`${mock.url}/_sim/reset`, { method: "POST" })).status).toBe(400);
    expect((await fetch(`${mock.url}/_sim/reset`, { method: "POST", headers: { "content-type": "application/json" } })).status).toBe(200);
    expect((await fetch(`${mock.url}/_sim/reset`, { method: "POST", headers: { "content-type": "application/json", origin: "https://evil.example" } })).status).toBe(403);
    const help = run(join(project, "node_modules/.bin/generation-hub"), ["mock", "--help"], project);
    expect(help).toContain("--allowed-hosts");
    expect(help).toContain("--expose-control");
  });

  it("`generation-hub` says in one line what is wrong, with the closest command or option; without a command it prints the usage and fails; --help names each command as the user types it", () => {
    const bin = join(project, "node_modules/.bin/generation-hub");
    const exec = (...args: string[]) => spawnSync(bin, args, { cwd: project, encoding: "utf8", env });
    const bare = exec();
    expect(bare.status).toBe(2);
    expect(bare.stderr).toContain("Usage: generation-hub <command> [options]");
    const help = exec("--help");
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("mock");
    expect(exec("mock", "--help").stdout).toContain("Usage: generation-hub mock [options]");
    const oneLine = (r: ReturnType<typeof exec>) => [r.status, r.stderr.trim().split("\n").length, r.stderr.trim()];
    expect(oneLine(exec("mok"))).toEqual([2, 1, 'generation-hub: unknown command "mok"; did you mean mock? (the commands: mock, conformance; generation-hub --help)']);
    expect(oneLine(exec("frobnicate"))).toEqual([2, 1, 'generation-hub: unknown command "frobnicate" (the commands: mock, conformance; generation-hub --help)']);
    expect(oneLine(exec("mock", "--prot", "4020"))).toEqual([2, 1, "unknown option --prot; did you mean --port? (generation-hub mock --help lists every option)"]);
    expect(oneLine(exec("mock", "--port", "abc"))).toEqual([2, 1, '--port (SIM_PORT) must be a non-negative number, got "abc"']);
  });

  it("`generation-hub conformance` passes against the `generation-hub mock` of the same package", async () => {
    const mock = await startMock(["--port", "0"]);
    const r = spawnSync(join(project, "node_modules/.bin/generation-hub"), ["conformance", "--base-url", mock.url, "--api-key", "ghk_demo_full", "--other-api-key", "ghk_demo_other"], { cwd: project, encoding: "utf8", env });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/PASSED/);
    expect(r.stdout).toMatch(/\d+ of \d+ rules exercised/);
  });

  it("`generation-hub conformance --listen ... -- npx playwright test` judges a Playwright suite's traffic through the proxy (no request of its own), and exits with the suite", async () => {
    const mock = await startMock(["--port", "0"]);
    mkdirSync(join(project, "passive"), { recursive: true });
    writeFileSync(join(project, "passive/playwright.config.mjs"), `export default { testDir: ".", reporter: "line" };\n`);
    // The suite reads HUB_BASE_URL (the proxy, set by the wrapper) and its own key variable.
    writeFileSync(
      join(project, "passive/api.spec.mjs"),
      `import { test, expect } from "@playwright/test";
const headers = { authorization: "Bearer " + process.env.APP_KEY };
test("the account and the catalog", async ({ request }) => {
  const me = await request.get(process.env.HUB_BASE_URL + "/v1/me", { headers });
  expect(me.status()).toBe(200);
  expect((await request.get(process.env.HUB_BASE_URL + "/v1/models", { headers })).status()).toBe(200);
  expect((await request.get(process.env.HUB_BASE_URL + "/v1/generations?limit=1000", { headers })).status()).toBe(400);
  expect(process.env.FAIL_ON_PURPOSE).toBeUndefined();
});
`,
    );
    const bin = join(project, "node_modules/.bin/generation-hub");
    const wrapped = (extra: Record<string, string> = {}) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(bin, ["conformance", "--listen", "0", "--base-url", mock.url, "--json", "--", "npx", "playwright", "test", "-c", "passive/playwright.config.mjs"], { cwd: project, env: { ...env, APP_KEY: "ghk_demo_full", ...extra } });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d) => (stdout += d));
        child.stderr.on("data", (d) => (stderr += d));
        child.on("close", (status) => resolve({ status, stdout, stderr }));
      });
    const passed = await wrapped();
    expect(passed.status, passed.stderr).toBe(0);
    const report = JSON.parse(passed.stdout);
    expect(report.passive).toMatchObject({ source: "proxy", upstream: mock.url, judged: { judged: 3 }, command: { exitCode: 0 } });
    expect(report.summary.fail).toBe(0);
    expect(report.summary.pass).toBeGreaterThan(0);
    expect(passed.stdout + passed.stderr).not.toContain("ghk_demo_full");
    const failed = await wrapped({ FAIL_ON_PURPOSE: "1" });
    expect(failed.status, failed.stderr).toBe(1);
    expect(JSON.parse(failed.stdout).passive.command.exitCode).toBe(1);
  }, 120_000);

  it("`generation-hub conformance` says in one line what it needs: Prism for --prism, a valid flag", () => {
    const prism = spawnSync(join(project, "node_modules/.bin/generation-hub"), ["conformance", "--base-url", "http://127.0.0.1:9", "--api-key", "k", "--prism"], { cwd: project, encoding: "utf8", env });
    expect(prism.status).toBe(2);
    expect(prism.stderr.trim()).toBe("conformance: the run could not complete: Prism is not installed: --prism needs it beside the suite (npm install --save-dev @stoplight/prism-cli@5.14.2)");
    const nowhere = spawnSync(join(project, "node_modules/.bin/generation-hub"), ["conformance", "--base-url", "http://127.0.0.1:9", "--api-key", "ghk_a_secret_key"], { cwd: project, encoding: "utf8", env });
    expect([nowhere.status, nowhere.stdout, nowhere.stderr]).toEqual([2, "", "conformance: http://127.0.0.1:9 cannot be reached: the connection was refused: nothing listens there (ECONNREFUSED)\n"]);
    const flag = spawnSync(join(project, "node_modules/.bin/generation-hub"), ["conformance", "--frobnicate"], { cwd: project, encoding: "utf8", env });
    expect(flag.status).toBe(2);
    expect(flag.stderr).toContain("Usage: generation-hub conformance [options]");
  });

  it("ST-1 EVT-6: the MSW handlers in the project's own vitest run, with the typed client: submit, advance the clock, DONE on the stream, in milliseconds (and the dev-tools README's example as written)", () => {
    mkdirSync(join(project, "test"), { recursive: true });
    writeFileSync(join(project, "test/hub.test.ts"), `import { setupServer } from "msw/node";
import { afterAll, beforeAll, beforeEach, expect, test } from "vitest";
import { createHubClient } from "@generation-hub/api";
import { createHubHandlers } from "@generation-hub/devtools/msw";

const { handlers, control } = createHubHandlers({ baseUrl: "https://hub.example" });
const server = setupServer(...handlers);
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterAll(() => server.close());
beforeEach(() => control.reset());

test("submit, then DONE", async () => {
  const hub = createHubClient({ baseUrl: "https://hub.example", apiKey: "ghk_demo_full" });
  const seen: string[] = [];
  let opened!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  const stream = hub.events({ onOpen: () => opened() });
  const following = (async () => {
    for await (const e of stream) if (e.event === "generation.status_changed") { seen.push(e.data.status); if (e.data.status === "DONE") break; }
  })();
  await open;
  const { data, status } = await hub.submit({ type: "video", model: "video-model-a", prompt: "a lighthouse at dusk" });
  expect(status).toBe(202);
  await control.advance(60);
  await following;
  expect(seen).toEqual(["QUEUED", "PENDING", "RUNNING", "DONE"]);
  expect((await hub.GET("/v1/generations/{id}", { params: { path: { id: data.id } } })).data.status).toBe("DONE");
});

test("a refusal is the envelope, the same as the server's", async () => {
  const hub = createHubClient({ baseUrl: "https://hub.example", apiKey: "ghk_demo_revoked" });
  await expect(hub.GET("/v1/me")).rejects.toMatchObject({ status: 401, code: "api_key_revoked" });
});
`);
    // The dev-tools README's example, as a user copies it into a test file.
    const example = markdownBlocks("packages/devtools/README.md", "ts").find((b) => b.source.includes("createHubHandlers"))!;
    writeFileSync(join(project, "test/readme.test.ts"), `import { afterAll, beforeAll, beforeEach, expect, test } from "vitest";\n${example.source}`);
    const r = spawnSync(join(project, "node_modules/.bin/vitest"), ["run", "test/hub.test.ts", "test/readme.test.ts"], { cwd: project, encoding: "utf8", env: { ...env, CI: "true", NO_COLOR: "1" } });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Tests\s+3 passed/);
  });

  it("the documented beforeEach(() => control.reset()) isolates the tests of a vitest + MSW suite: what one test loads or changes (a scenario, the plan, the clock's speed, a fault) is gone in the next", () => {
    mkdirSync(join(project, "test"), { recursive: true });
    writeFileSync(join(project, "test/isolation.test.ts"), `import { setupServer } from "msw/node";
import { afterAll, beforeAll, beforeEach, expect, test } from "vitest";
import { createHubClient, HubApiError } from "@generation-hub/api";
import { createHubHandlers } from "@generation-hub/devtools/msw";

const { handlers, control } = createHubHandlers({ baseUrl: "https://hub.example" });
const server = setupServer(...handlers);
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterAll(() => server.close());
beforeEach(() => control.reset());

const hub = createHubClient({ baseUrl: "https://hub.example", apiKey: "ghk_demo_full" });
const image = { type: "image", model: "image-model-a", prompt: "a fox" } as const;
const outcome = (call: Promise<unknown>) => call.then(() => "accepted", (e: unknown) => (e instanceof HubApiError ? e.code : String(e)));

test("out of credits: a submit is refused", async () => {
  await control.loadScenario("out-of-credits");
  expect(await outcome(hub.submit(image))).toBe("insufficient_credits");
});

test("the next test starts from the demo again: a submit is accepted", async () => {
  expect(await outcome(hub.submit(image))).toBe("accepted");
  expect((await control.state()).scenario).toBe("demo");
});

test("one test moves to a free plan, runs the clock and puts a fault in force", async () => {
  await control.setPlan("acc_demo", "free");
  await control.setClockSpeed(50);
  await control.addFault({ kind: "service_unavailable", route: "readAccount" });
  expect(await outcome(hub.submit(image))).toBe("payment_required");
});

test("the next finds the paid plan, the frozen clock and no fault", async () => {
  const { data } = await hub.submit(image);
  await new Promise((resolve) => setTimeout(resolve, 200)); // 10 simulated seconds at the speed of the test before
  expect((await hub.GET("/v1/generations/{id}", { params: { path: { id: data.id } } })).data.status).toBe("QUEUED");
  expect((await hub.GET("/v1/me")).response.status).toBe(200);
});

test("a test loads a busy account", async () => {
  await control.loadScenario("busy-account");
  expect((await hub.GET("/v1/generations", { params: { query: { limit: 100 } } })).data.data.length).toBe(100);
});

test("and the next sees the demo's few generations", async () => {
  expect((await hub.GET("/v1/generations", { params: { query: { limit: 100 } } })).data.data.length).toBeLessThan(100);
});
`);
    const r = spawnSync(join(project, "node_modules/.bin/vitest"), ["run", "test/isolation.test.ts"], { cwd: project, encoding: "utf8", env: { ...env, CI: "true", NO_COLOR: "1" } });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Tests\s+6 passed/);
  });

  it.runIf(browsers.path)("EVT-6: the MSW handlers in a page of the project, through MSW's service worker in Chromium: the event stream stays open and delivers every status", async () => {
    const site = join(project, "public");
    execFileSync(join(project, "node_modules/.bin/msw"), ["init", site, "--no-save"], { cwd: project, stdio: "ignore", env });
    writeFileSync(join(project, "page.ts"), `import { setupWorker } from "msw/browser";
import { createHubClient } from "@generation-hub/api";
import { createHubHandlers } from "@generation-hub/devtools/msw";

async function run() {
  const { handlers, control } = createHubHandlers({ baseUrl: "https://hub.example" });
  await setupWorker(...handlers).start({ quiet: true, onUnhandledRequest: "error" });
  const hub = createHubClient({ baseUrl: "https://hub.example", apiKey: "ghk_demo_full" });
  const seen: string[] = [];
  let opened!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  const stream = hub.events({ onOpen: () => opened() });
  const following = (async () => {
    for await (const e of stream) if (e.event === "generation.status_changed") { seen.push(e.data.status); if (e.data.status === "DONE") break; }
  })();
  await open;
  const { status } = await hub.submit({ type: "video", model: "video-model-a", prompt: "in the page" });
  await control.advance(60);
  await following;
  return { status, seen };
}
(window as unknown as { report: Promise<unknown> }).report = run().catch((e) => ({ error: String(e) }));
`);
    await build({ entryPoints: [join(project, "page.ts")], bundle: true, platform: "browser", format: "esm", outfile: join(site, "page.js"), absWorkingDir: project, logLevel: "silent" });
    writeFileSync(join(site, "index.html"), `<!doctype html><html><head><meta charset="utf-8"><title>app</title><script type="module" src="/page.js"></script></head><body></body></html>\n`);
    const served = await serveSite(site, "/");
    const browser = await browsers.launch();
    try {
      const page = await browser.newPage();
      await page.goto(served.url);
      const report = await page.evaluate(() => (window as unknown as { report: Promise<unknown> }).report);
      expect(report).toEqual({ status: 202, seen: ["QUEUED", "PENDING", "RUNNING", "DONE"] });
    } finally {
      await browser.close();
      await served.close();
    }
  });

  it.runIf(browsers.path)("the reference docs shipped in the package send from their try-it panel to `generation-hub mock`: a submit reached through the search (202, its journal row, the same record again), a wrong body flagged with the server's reasons and its verdict, a missing scope's rung, no credential beside a session, another panel's event; nothing outside the machine", async () => {
    const mock = await startMock(["--port", "0", "--clock-speed", "0"]);
    const target = { base: mock.url };
    const browser = await browsers.launch();
    const errors: string[] = [];
    const outside: string[] = [];
    try {
      const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, reducedMotion: "reduce" });
      context.on("page", (page) => watchErrors(page, errors));
      context.on("request", (r) => void (!r.url().startsWith(mock.url) && !/^(data|blob):/.test(r.url()) && outside.push(r.url())));
      const page = await context.newPage();
      await submitThroughSearch(page, target);
      await wrongBodyFlagged(page, target);
      await missingScope(page, target);
      await noCredentialMeansNone(context, page, target);
      await eventsFromAnotherPanel(context, page, target);
      expect(outside).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);

  it("the scenario format ships where a scenario file's $schema names it, and as an export", () => {
    const onDisk = JSON.parse(readFileSync(installed("@generation-hub/devtools/scenario.schema.json"), "utf8")) as { $schema: string; $defs: Record<string, unknown> };
    expect(onDisk.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(Object.keys(onDisk.$defs)).toContain("Fault");
    writeFileSync(join(project, "schema.mjs"), `import schema from "@generation-hub/devtools/scenario.schema.json" with { type: "json" };\nconsole.log(Object.keys(schema.$defs).includes("Fault"));\n`);
    expect(run(process.execPath, ["schema.mjs"], project).trim()).toBe("true");
  });

  it("startSimulator() from the package's library entry point serves the same simulator, and reads its request journal", async () => {
    writeFileSync(join(project, "start.mjs"), `import { startSimulator } from "@generation-hub/devtools";
const sim = await startSimulator({ port: 0, clockSpeed: 0 });
const r = await fetch(sim.url + "/v1/whoami", { headers: { authorization: "Bearer ghk_demo_full" } });
const [row] = await sim.requests({ route: "readWhoami" });
console.log(r.status, (await r.json()).channel, row.credential.id);
await sim.close();
`);
    expect(run(process.execPath, ["start.mjs"], project).trim()).toBe("200 api_key key_full");
  });
});
