// The proof of sandboxes (issue 26, item 4): a Playwright suite on 4 workers against one
// `generation-hub mock`, run as a team runs it, from the packed packages installed in a
// fresh project (dependencies from the npm registry, @playwright/test and Vite among them,
// warning-free), with Debian's Chromium. The project's playwright.config.ts and its example
// test are the simulator guide's, as written (ports and the browser's path filled in): its
// two `typescript` blocks, which Playwright's runner runs, where the guide's `ts` blocks are
// programs that test/docs/run-samples.test.ts runs against the simulator.
//
// The suite: four tests meet at barriers (files), so each step of one happens while the
// others are at the same step: each submits, moves its clock, adds a one-shot fault,
// resets and reads its journal, and sees only its own. A real page behind Vite's proxy,
// configured as the guide's vite.config.ts says, with the demo key built in: a submit, an
// upload, the event stream, and an OAuth sign-in (a popup with the site's sign-in and
// consent pages), each in the test's sandbox. A worker-scoped hub, and a failing test
// whose journal is attached. Run again without sandboxes (`hubSandboxes: false`: the
// default hub, as a suite without this feature shares it), the four tests fail, each on
// its first look at what it made: the barriers make the collision certain, not a race.
//
// Why it takes what it takes (40 to 70 s on the shared 2-core machine, of which each run of
// the suite 8 to 15 s, up to 45 s at a load of 11): installing the packed packages (packed
// once per run for every file that installs them, test/support/packed.ts) with
// @playwright/test and Vite, then two runs
// of the suite, each with four Playwright workers (four Node processes) and Chromium in the
// workers that open a page, on two cores. It is the consumer test of this feature: a
// suite of another project on four workers cannot run in process.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { at } from "../../scripts/lib/paths.ts";
import { markdownBlocks } from "../docs/code-samples.ts";
import { CHROMIUM_ARGS } from "../../scripts/lib/chromium.ts";
import { chromiumFor } from "../support/chromium.ts";
import { npmIn } from "../support/npm.ts";
import { packedPackages } from "../support/packed.ts";

const executablePath = chromiumFor("the Playwright fixtures' 4-worker suite in a fresh project", "test/devtools/playwright.test.ts").path;
const rootManifest = JSON.parse(readFileSync(at("package.json"), "utf8")) as { devDependencies: Record<string, string> };
// The test's own Node first on PATH, for npm, the bins' `#!/usr/bin/env node` and Playwright's web servers.
const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false", NO_COLOR: "1" };
/** One of the guide's Playwright blocks (fenced `typescript`), found by a text only it holds. */
const guideBlock = (holds: string) => {
  const block = markdownBlocks("docs/simulator.md", "typescript").find((b) => b.source.includes(holds));
  if (!block) throw new Error(`docs/simulator.md has no ts block with ${holds}`);
  return block.source;
};

let project: string;
let mock: ChildProcess | undefined;
let mockUrl: string;
let installWarnings: string[] = [];

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** The installed `generation-hub mock` on `port`; resolves once it listens. */
function startMock(port: number): Promise<string> {
  const child = spawn(join(project, "node_modules/.bin/generation-hub"), ["mock", "--port", String(port), "--clock-speed", "0"], { cwd: project, stdio: ["ignore", "pipe", "pipe"], env });
  mock = child;
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the mock did not start:\n${out}`)), 30_000);
    child.stdout!.on("data", () => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once("exit", (code) => reject(new Error(`the mock exited (${code}):\n${out}`)));
  });
}

interface Report {
  suites: ReportSuite[];
  stats: { expected: number; unexpected: number; flaky: number; skipped: number; duration: number };
}
interface ReportSuite {
  title: string;
  specs: { title: string; tests: { status: string; results: { status: string; errors: { message?: string }[]; attachments: { name: string; body?: string }[] }[] }[] }[];
  suites?: ReportSuite[];
}

/** Every test of a report: its title, its outcome (expected, unexpected, ...), its last result. */
function testsOf(report: Report) {
  const out: { title: string; outcome: string; result: ReportSuite["specs"][number]["tests"][number]["results"][number] }[] = [];
  const walk = (suite: ReportSuite) => {
    for (const spec of suite.specs) for (const t of spec.tests) out.push({ title: spec.title, outcome: t.status, result: t.results.at(-1)! });
    for (const s of suite.suites ?? []) walk(s);
  };
  for (const s of report.suites) walk(s);
  return out;
}

/** Runs the suite; answers Playwright's exit status, its JSON report and its wall time. */
function playwright(name: string, extraEnv: Record<string, string>): { status: number | null; report: Report; seconds: number; output: string } {
  const barriers = join(project, `barriers-${name}`);
  mkdirSync(barriers, { recursive: true });
  const reportFile = join(project, `report-${name}.json`);
  const started = Date.now();
  const r = spawnSync(join(project, "node_modules/.bin/playwright"), ["test", "--reporter=json"], {
    cwd: project,
    encoding: "utf8",
    env: { ...env, HUB_BASE_URL: mockUrl, BARRIER_DIR: barriers, PLAYWRIGHT_JSON_OUTPUT_FILE: reportFile, CI: "", ...extraEnv },
    timeout: 240_000,
  });
  const output = `${r.stdout}\n${r.stderr}`;
  let report: Report;
  try {
    report = JSON.parse(readFileSync(reportFile, "utf8")) as Report;
  } catch {
    throw new Error(`playwright (${name}) wrote no report (${r.status ?? r.signal}):\n${output.slice(-4000)}`);
  }
  return { status: r.status, report, seconds: (Date.now() - started) / 1000, output };
}

const APP_MAIN = `import { createHubClient } from "@generation-hub/api";
import { authorizationUrl, discover, exchangeCode, register } from "@generation-hub/api/oauth";

// The app has the demo key built in, and talks to its own origin: the dev server proxies the API.
const hub = createHubClient({ baseUrl: location.origin, apiKey: "ghk_demo_full" });
const w = window as unknown as Record<string, unknown>;

w.app = {
  async submit(prompt: string) {
    return (await hub.submit({ type: "image", model: "image-model-a", prompt })).data.id;
  },
  /** Opens the event stream; \`watching\` settles with the statuses seen, once one is DONE. */
  watch() {
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const events = hub.events({ onOpen: () => opened() });
    w.watching = (async () => {
      const seen: string[] = [];
      for await (const e of events) {
        if (e.event !== "generation.status_changed") continue;
        seen.push(e.data.status);
        if (e.data.status === "DONE") break;
      }
      events.close();
      return seen;
    })();
    return open;
  },
  async upload() {
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 8;
    const png = await new Promise<Blob>((resolve) => canvas.toBlob((b) => resolve(b!), "image/png"));
    return (await hub.upload(png, { contentType: "image/png" })).reference;
  },
  /** The OAuth sign-in in a popup: registration, authorization (sign-in, consent), the code exchanged, whoami with the token. */
  async signIn() {
    const server = await discover(location.origin, { allowHttp: true });
    const redirectUri = location.origin + "/callback.html";
    const client = await register(server, { client_name: "The app under test", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" });
    const request = await authorizationUrl(server, client, { redirectUri, scope: ["me:read"] });
    const back = new Promise<string>((resolve) => addEventListener("message", (e) => e.origin === location.origin && resolve(String(e.data))));
    window.open(request.url.toString(), "sign-in");
    const tokens = await exchangeCode(server, client, request, await back);
    return (await fetch("/v1/whoami", { headers: { authorization: "Bearer " + tokens.access_token } })).json();
  },
};
document.getElementById("status")!.textContent = "ready";
`;

const ISOLATION_SPEC = `import { readdirSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { createHubClient } from "@generation-hub/api";
import { expect, test } from "@generation-hub/devtools/playwright";

// Four tests, one per worker, meet at barriers (files in BARRIER_DIR): every test has done a
// step before any does the next. A hub they shared would show each the others' work, for
// certain, not by a lucky race.
const GROUP = 4;
async function barrier(step: string, me: number) {
  const dir = process.env.BARRIER_DIR!;
  writeFileSync(join(dir, step + "." + me), "");
  const until = Date.now() + 60_000;
  for (;;) {
    const here = readdirSync(dir).filter((f) => f.startsWith(step + ".")).length;
    if (here === GROUP) return;
    if (Date.now() > until) throw new Error("barrier " + step + ": " + here + " of " + GROUP + " tests arrived (the suite needs " + GROUP + " workers)");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

test.describe.configure({ mode: "parallel" });

for (let n = 0; n < GROUP; n++) {
  test("test " + n + " of four at once sees only its own hub", async ({ hub }) => {
    test.setTimeout(120_000);
    const client = createHubClient({ baseUrl: hub.baseURL, apiKey: hub.apiKey });
    const list = async () => (await client.GET("/v1/generations", { params: { query: { limit: 100 } } })).data!.data;
    const before = new Set((await list()).map((g) => g.id));
    const mine = "made by test " + n;
    await barrier("ready", n);

    // 1. It submits.
    const { data } = await client.submit({ type: "image", model: "image-model-a", prompt: mine });
    await barrier("submitted", n);
    const made = (await list()).filter((g) => !before.has(g.id)).map((g) => (g as { prompt?: string }).prompt);
    expect(made, "the generations made since the test began").toEqual([mine]);

    // 2. It moves its clock.
    const start = (await hub.control.clock()).now_ms;
    await barrier("clock read", n);
    await hub.control.advance(60 * (n + 1));
    await barrier("clock moved", n);
    expect((await hub.control.clock()).now_ms - start, "how far its clock moved").toBe(60_000 * (n + 1));
    expect((await hub.control.generation(data.id)).status).toBe("DONE");

    // 3. A one-shot fault: its own next read meets it, then no more.
    const fault = await hub.control.addFault({ kind: "service_unavailable", route: "readAccount", count: 1 });
    await barrier("faulted", n);
    const me = () => fetch(hub.baseURL + "/v1/me", { headers: { authorization: "Bearer " + hub.apiKey } });
    const first = await me();
    expect(first.status).toBe(503);
    expect((await first.json()).error.message).toContain(fault.id);
    expect((await me()).status).toBe(200);

    // 4. It resets: what it made is gone, what the others made is not its concern.
    await hub.control.reset();
    await barrier("reset", n);
    expect((await client.GET("/v1/generations/{id}", { params: { path: { id: data.id } } }).catch((e: { status: number }) => e)).status).toBe(404);

    // 5. Its journal holds its own requests since the reset, and no other's.
    expect((await hub.control.requests()).map((r) => r.route)).toEqual(["readGeneration", "POST /_sim/reset"]);
  });
}
`;

const PAGE_SPEC = `import { createHubClient } from "@generation-hub/api";
import { expect, test } from "@generation-hub/devtools/playwright";

test("the app behind Vite's proxy, with the demo key: a submit, its event stream and an upload, in the test's sandbox", async ({ page, hub }) => {
  await page.goto("/");
  await expect(page.locator("#status")).toHaveText("ready");
  await page.evaluate(() => (window as any).app.watch());
  const id = await page.evaluate(() => (window as any).app.submit("a page in a sandbox"));
  await hub.control.advance(60);
  expect(await page.evaluate(() => (window as any).watching)).toEqual(["QUEUED", "PENDING", "RUNNING", "DONE"]);
  const reference = await page.evaluate(() => (window as any).app.upload());
  // In the test's hub, by the demo key (key_full) through the proxy:
  expect((await hub.control.requests({ route: "submitGeneration" })).map((r) => r.credential?.id)).toEqual(["key_full"]);
  expect((await hub.control.generation(id)).status).toBe("DONE");
  const client = createHubClient({ baseUrl: hub.baseURL, apiKey: hub.apiKey });
  expect((await client.GET("/v1/library/assets")).data!.data.map((a) => a.reference)).toContain(reference);
  // ... and not in the simulator's default hub.
  if (hub.id !== null) expect((await fetch(process.env.HUB_BASE_URL + "/v1/generations/" + id, { headers: { authorization: "Bearer ghk_demo_full" } })).status).toBe(404);
});

test("an OAuth sign-in from the page: the sign-in and consent pages, the code and the token are the test's sandbox's", async ({ page, hub }) => {
  await page.goto("/");
  await expect(page.locator("#status")).toHaveText("ready");
  const popup = page.waitForEvent("popup");
  const signedIn = page.evaluate(() => (window as any).app.signIn());
  const signInPage = await popup;
  await signInPage.getByRole("button", { name: "Sign in" }).click();
  await signInPage.getByRole("button", { name: "Allow" }).click();
  expect(await signedIn).toMatchObject({ channel: "oauth", user_id: "acc_demo" });
  const grants = await hub.control.request<{ data: { account_id: string }[] }>("GET", "oauth/grants");
  expect(grants.data.map((g) => g.account_id)).toEqual(["acc_demo"]);
});
`;

const WORKER_SPEC = `import { expect, test } from "@generation-hub/devtools/playwright";

test.use({ hubScope: "worker" });
test.describe.configure({ mode: "serial" });

let first: string | null | undefined;

test("a worker's hub: one test changes it", async ({ hub, workerHub }) => {
  expect(hub).toBe(workerHub);
  first = hub.id;
  await hub.control.setBalance("acc_demo", 5);
});

test("the worker's next test finds the same hub, reset", async ({ hub }) => {
  expect(hub.id).toBe(first);
  expect((await hub.control.account("acc_demo")).balance_cc).toBe(500000);
});
`;

const JOURNAL_SPEC = `import { expect, test } from "@generation-hub/devtools/playwright";

test("a test that fails gets its hub's journal attached", async ({ hub }) => {
  test.fail();
  await fetch(hub.baseURL + "/v1/me", { headers: { authorization: "Bearer " + hub.keys.revoked } });
  expect("the test's own failure").toBe("a pass");
});
`;

afterAll(() => {
  mock?.kill("SIGTERM");
  if (project) rmSync(project, { recursive: true, force: true });
});

describe.runIf(executablePath)("a Playwright suite on 4 workers against one generation-hub mock, from the packed packages in a fresh project", () => {
  let withSandboxes: ReturnType<typeof playwright>;

  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), "hub-playwright-consumer-"));
    const { api, devtools } = await packedPackages();
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({
        name: "hub-playwright-consumer",
        private: true,
        type: "module",
        dependencies: { "@generation-hub/api": `file:${api}` },
        devDependencies: {
          "@generation-hub/devtools": `file:${devtools}`,
          "@playwright/test": rootManifest.devDependencies["@playwright/test"],
          vite: rootManifest.devDependencies.vite,
        },
      }, null, 2),
    );
    installWarnings = npmIn(project, ["install", "--prefer-offline", "--no-package-lock"], env).warnings;
  }, 600_000);


  beforeAll(async () => {
    const [mockPort, appPort] = [await freePort(), await freePort()];
    mockUrl = await startMock(mockPort);
    // The guide's playwright.config.ts, its ports this run's, Debian's Chromium, and
    // hubSandboxes read from the environment (the run without sandboxes sets it false).
    const config = guideBlock("@playwright/test")
      .replaceAll("4010", String(mockPort))
      .replaceAll("5173", String(appPort))
      .replace("use: {", `use: { hubSandboxes: process.env.HUB_SANDBOXES !== "0", launchOptions: { executablePath: ${JSON.stringify(executablePath)}, args: ${JSON.stringify(CHROMIUM_ARGS)} },`);
    writeFileSync(join(project, "playwright.config.ts"), config);
    // The guide's vite.config.ts: the dev server proxies the API to the simulator.
    writeFileSync(join(project, "vite.config.ts"), markdownBlocks("docs/simulator.md", "ts").find((b) => b.source.includes('from "vite"'))!.source.replaceAll("http://127.0.0.1:4010", mockUrl));
    writeFileSync(join(project, "index.html"), `<!doctype html><html><head><meta charset="utf-8"><title>app</title><script type="module" src="/main.ts"></script></head><body><p id="status">loading</p></body></html>\n`);
    writeFileSync(join(project, "main.ts"), APP_MAIN);
    writeFileSync(join(project, "callback.html"), `<!doctype html><html><head><meta charset="utf-8"><title>signed in</title></head><body><script type="module">opener.postMessage(location.href, location.origin); close();</script></body></html>\n`);
    mkdirSync(join(project, "tests"), { recursive: true });
    writeFileSync(join(project, "tests/generation.spec.ts"), guideBlock("@generation-hub/devtools/playwright"));
    writeFileSync(join(project, "tests/isolation.spec.ts"), ISOLATION_SPEC);
    writeFileSync(join(project, "tests/page.spec.ts"), PAGE_SPEC);
    writeFileSync(join(project, "tests/worker.spec.ts"), WORKER_SPEC);
    writeFileSync(join(project, "tests/journal.spec.ts"), JOURNAL_SPEC);
    withSandboxes = playwright("sandboxes", {});
    console.log(`the suite with sandboxes took ${withSandboxes.seconds.toFixed(1)} s`);
  }, 300_000);

  it(`installs without a warning on this Node (${process.version}), @playwright/test and Vite beside the dev tools`, () => {
    expect(installWarnings).toEqual([]);
  });

  it("passes with sandboxes: every test, the four at once each in its own hub, the page's submit, upload, stream and OAuth sign-in in its test's", () => {
    const tests = testsOf(withSandboxes.report);
    expect(tests.length).toBe(10);
    expect(tests.filter((t) => t.outcome !== "expected").map((t) => `${t.title}: ${t.result.errors.map((e) => e.message).join(" ")}`), withSandboxes.output.slice(-3000)).toEqual([]);
    expect(withSandboxes.status).toBe(0);
    expect(withSandboxes.report.stats).toMatchObject({ unexpected: 0, flaky: 0, skipped: 0 });
  });

  it("the failing test's attachment is its own sandbox's journal, and every sandbox was deleted after its test (or its worker)", async () => {
    const failing = testsOf(withSandboxes.report).find((t) => t.title.startsWith("a test that fails"))!;
    const attached = failing.result.attachments.find((a) => a.name === "hub journal");
    expect(attached?.body).toBeDefined();
    const rows = JSON.parse(Buffer.from(attached!.body!, "base64").toString("utf8")) as { path: string; status: number; error_code: string; credential: { id: string } }[];
    expect(rows.map((r) => [r.path, r.status, r.error_code, r.credential.id])).toEqual([["/v1/me", 401, "api_key_revoked", "sbx_revoked"]]);
    expect((await (await fetch(`${mockUrl}/_sim/sandboxes`)).json()).data).toEqual([]);
  });

  it("fails without sandboxes, deterministically: the four tests at once each see the others' generations, and each gets the shared hub's journal", { timeout: 300_000 }, () => {
    const without = playwright("shared", { HUB_SANDBOXES: "0" });
    console.log(`the suite without sandboxes took ${without.seconds.toFixed(1)} s`);
    expect(without.status).toBe(1);
    const four = testsOf(without.report).filter((t) => t.title.includes("of four at once"));
    expect(four).toHaveLength(4);
    for (const t of four) {
      expect(t.outcome).toBe("unexpected");
      const message = t.result.errors.map((e) => e.message ?? "").join("\n");
      expect(message).toContain("the generations made since the test began");
      // Not a test that waited in vain (a barrier's or Playwright's timeout): the assertion itself.
      expect(message).not.toMatch(/Test timeout|tests arrived/);
      expect(t.result.attachments.map((a) => a.name)).toContain("hub journal");
    }
  });
});
