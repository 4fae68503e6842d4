// The HTTP side: `npm start` (the CLI), CORS (closed by default, opened by a flag),
// the /docs folder, the control interface, and links built from the caller's address.
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SETTINGS } from "../../src/simulator/cli.ts";
import { demoKeys } from "../../src/simulator/index.ts";
import { runCli, startCli } from "./support/cli.ts";
import { startSim, type Sim } from "./support/harness.ts";

describe("npm start", () => {
  it("every option of the command line is a row of the simulator guide's table, with its environment variable", () => {
    const guide = readFileSync("docs/simulator.md", "utf8");
    expect(SETTINGS.length).toBeGreaterThan(25);
    const missing = SETTINGS.filter((s) => !guide.includes(`| \`--${s.flag}\` | \`${s.env}\` |`)).map((s) => `--${s.flag}`);
    expect(missing).toEqual([]);
  });

  it("starts with no set-up, prints its base address and the demo credentials, serves until stopped; flags and environment configure it", async () => {
    const docsDir = join(mkdtempSync(join(tmpdir(), "sim-docs-")), "site");
    // Through tsx, as `npm start` runs it (the other starts run the same sources bundled).
    const cli = await startCli(["--port", "0", "--clock-speed", "0"], { SIM_HOST: "127.0.0.1", SIM_KEY_QUOTA: "7", SIM_DOCS_DIR: docsDir }, { tsx: true });
    const { url } = cli;
    try {
      expect(demoKeys()).not.toHaveLength(0);
      for (const k of demoKeys()) expect(cli.out()).toContain(k.secret);
      const r = await fetch(`${url}/v1/me`, { headers: { authorization: "Bearer ghk_demo_full" } });
      expect(r.status).toBe(200);
      expect(r.headers.get("ratelimit-policy")).toBe('"default";q=7;w=60');
      expect((await (await fetch(`${url}/_sim/clock`)).json()).speed).toBe(0);
      // The docs are not committed: a fresh start builds them and prints where they are.
      expect(cli.out()).toContain(`Docs:       ${url}/docs/`);
      await expect.poll(async () => (await fetch(`${url}/docs/reference.html`)).status, { timeout: 60_000, interval: 500 }).toBe(200);
      expect(await (await fetch(`${url}/docs/`)).text()).toContain("Getting started");
    } finally {
      expect(await cli.stop()).toBe(0);
    }
  });

  it("refuses a bad value in one line naming the flag and its variable", async () => {
    const { code, out } = await runCli(["--port", "abc"]);
    expect(code).toBe(2);
    expect(out.trim()).toBe('--port (SIM_PORT) must be a non-negative number, got "abc"');
  });

  it("an unknown option is one line with the closest known one; a stray word and a missing value are one line each", async () => {
    const typo = await runCli(["--prot", "4020"]);
    expect(typo.code).toBe(2);
    expect(typo.out.trim()).toBe("unknown option --prot; did you mean --port? (npm start -- --help lists every option)");
    const stray = await runCli(["busy-account"]);
    expect(stray.code).toBe(2);
    expect(stray.out.trim()).toBe('unexpected argument "busy-account": every option is a flag, --name value (npm start -- --help lists every option)');
    const missing = await runCli(["--scenario"]);
    expect(missing.code).toBe(2);
    expect(missing.out.trim()).toBe("--scenario needs a value (npm start -- --help lists every option)");
  });

  it("the banner names the origins --cors opens to, and links the simulator guide where the simulator serves it", async () => {
    const cli = await startCli(["--port", "0", "--cors", "http://localhost:5173,http://127.0.0.1:5173"]);
    try {
      expect(cli.out()).toContain("CORS: open to http://localhost:5173, http://127.0.0.1:5173 (/v1, storage, OAuth)");
      expect(cli.out()).toContain(`Details: ${cli.url}/docs/guides/simulator.html.`);
    } finally {
      expect(await cli.stop()).toBe(0);
    }
  });
});

describe("npm start: what it says when it cannot start", () => {
  it("a port in use: one line naming the port and --port, no stack trace", async () => {
    const busy = await startSim();
    try {
      const port = new URL(busy.url).port;
      const { code, out } = await runCli(["--port", port]);
      expect(code).toBe(1);
      expect(out.trim()).toBe(`Port ${port} on 127.0.0.1 is already in use: stop what listens there, or start the simulator on another port with --port <n> (or SIM_PORT; --port 0 picks a free one).`);
    } finally {
      await busy.close();
    }
  });

  it("a host that is not this machine's, and a port out of range: one line each, no stack trace", async () => {
    const host = await runCli(["--host", "192.0.2.1", "--port", "0"]);
    expect(host.code).toBe(1);
    expect(host.out.trim()).toMatch(/^The address 192\.0\.2\.1 is not an address of this machine: pick another with --host/);
    const port = await runCli(["--port", "70000"]);
    expect(port.code).toBe(2);
    expect(port.out).toContain("--port (SIM_PORT) is a whole number from 0 to 65535");
    for (const { out } of [host, port]) expect(out).not.toMatch(/\n\s+at /);
  });
});

describe("CORS", () => {
  let closed: Sim;
  let open: Sim;
  beforeAll(async () => {
    closed = await startSim();
    open = await startSim({ cors: ["http://localhost:5173"] });
  });
  afterAll(async () => {
    await closed.close();
    await open.close();
  });
  const preflight = (sim: Sim, origin: string) =>
    fetch(`${sim.url}/v1/generations`, { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type, idempotency-key" } });

  it("AUTH-4: closed for the Authorization header by default", async () => {
    const pre = await preflight(closed, "http://localhost:5173");
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
    const get = await closed.get("/v1/me", { headers: { origin: "http://localhost:5173" } });
    expect(get.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("the --cors flag opens it for the listed origins only, exposing the API's headers", async () => {
    const pre = await preflight(open, "http://localhost:5173");
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    expect(pre.headers.get("access-control-allow-headers")).toMatch(/Authorization/);
    expect(pre.headers.get("access-control-allow-headers")).toMatch(/Idempotency-Key/);
    const get = await open.get("/v1/me", { headers: { origin: "http://localhost:5173" } });
    expect(get.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    expect(get.headers.get("access-control-expose-headers")).toMatch(/RateLimit-Policy/);
    expect((await preflight(open, "http://evil.example")).headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("docs, links and the control interface", () => {
  let sim: Sim;
  let docs: string;
  beforeAll(async () => {
    docs = mkdtempSync(join(tmpdir(), "sim-docs-"));
    writeFileSync(join(docs, "index.html"), "<h1>Reference</h1>");
    mkdirSync(join(docs, "guides"));
    writeFileSync(join(docs, "guides", "start.html"), "<p>guide</p>");
    sim = await startSim({ docsDir: docs, demoData: true });
  });
  afterAll(() => sim.close());

  it("serves the docs folder at /docs, and nothing outside it", async () => {
    const index = await fetch(`${sim.url}/docs/`);
    expect(index.status).toBe(200);
    expect(index.headers.get("content-type")).toMatch(/text\/html/);
    expect(await index.text()).toContain("Reference");
    expect(await (await fetch(`${sim.url}/docs/guides/start.html`)).text()).toContain("guide");
    const redirect = await fetch(`${sim.url}/docs`, { redirect: "manual" });
    expect(redirect.status).toBe(301);
    for (const path of ["/docs/missing.html", "/docs/..%2f..%2fpackage.json", "/docs/%2e%2e/%2e%2e/package.json"]) {
      const r = await sim.get(path, { key: null });
      expect(r.status, path).toBe(404);
      expect(r.json.error.code).toBe("not_found");
    }
  });

  it("while the docs are being built, /docs answers a page that says so (503, reloading), not the API's 404", async () => {
    const empty = join(mkdtempSync(join(tmpdir(), "sim-docs-")), "site");
    const fresh = await startSim({ docsDir: empty });
    try {
      let finish!: () => void;
      fresh.running.docsBuilding(new Promise<void>((resolve) => (finish = resolve)));
      for (const path of ["/docs/", "/docs/reference.html"]) {
        const r = await fetch(`${fresh.url}${path}`);
        expect(r.status, path).toBe(503);
        expect(r.headers.get("content-type")).toMatch(/^text\/html/);
        expect(r.headers.get("retry-after")).toBe("1");
        expect(await r.text()).toMatch(/Building the reference docs[\s\S]*http-equiv="refresh"|http-equiv="refresh"[\s\S]*Building the reference docs/);
      }
      // The API is not held up meanwhile.
      expect((await fresh.get("/v1/me")).status).toBe(200);
      mkdirSync(empty);
      writeFileSync(join(empty, "index.html"), "<h1>Reference</h1>");
      finish();
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(await (await fetch(`${fresh.url}/docs/`)).text()).toContain("Reference");
      // Built, a missing file is the API's 404 again.
      expect((await fresh.get("/docs/missing.html", { key: null })).status).toBe(404);
    } finally {
      await fresh.close();
    }
  });

  it("GEN-5: links in records start with the address the caller used (Host), never an X-Forwarded-Host; --public-url names a proxy's address", async () => {
    const port = new URL(sim.url).port;
    const done = (r: Awaited<ReturnType<Sim["get"]>>) => r.json.data.find((g: { status: string }) => g.status === "DONE").output_urls[0] as string;
    const byName = await fetch(`http://localhost:${port}/v1/generations`, { headers: { authorization: "Bearer ghk_demo_full" } });
    expect(done({ json: await byName.json() } as never)).toMatch(new RegExp(`^http://localhost:${port}/v1/generations/gen_\\w+/outputs/\\w+/0$`));
    // Any caller could send X-Forwarded-Host: it would decide the session cookie's own origin and the OAuth issuer.
    const forwarded = await sim.get("/v1/generations", { headers: { "x-forwarded-host": "localhost:5173", "x-forwarded-proto": "https" } });
    expect(done(forwarded).startsWith(`${sim.url}/v1/`)).toBe(true);
    const proxied = await startSim({ demoData: true, publicUrl: "http://localhost:5173" });
    try {
      expect(done(await proxied.get("/v1/generations")).startsWith("http://localhost:5173/v1/generations/")).toBe(true);
    } finally {
      await proxied.close();
    }
  });

  it("the control interface lists state and refuses bad input in the envelope", async () => {
    const state = await sim.control("GET", "state");
    expect(state.json.keys.map((k: { secret: string }) => k.secret)).toContain("ghk_demo_full");
    expect(state.json.clock.speed).toBe(0);
    expect((await sim.control("POST", "clock", { speed: 5 })).json.speed).toBe(5);
    await sim.control("POST", "clock", { speed: 0 });
    for (const [method, path, body] of [
      ["POST", "clock/advance", { seconds: -1 }],
      ["POST", "clock", { speed: "fast" }],
      ["PATCH", "accounts/acc_demo", { balance_cc: "lots" }],
      ["POST", "keys", { scopes: ["root"] }],
      ["POST", "generations/gen_x/outcome", { outcome: "done" }],
      ["GET", "nowhere", undefined],
    ] as const) {
      const r = await sim.control(method, path, body);
      expect(r.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(r.json.error.code).toMatch(/^(invalid_request|not_found)$/);
    }
  });

  it("W-9: cancelling needs an active paid plan (payment_required), like starting", async () => {
    const id = (await sim.submit({ type: "video", model: "video-model-a" })).json.id;
    await sim.control("PATCH", "accounts/acc_demo", { plan: "free" });
    expect((await sim.control("POST", `generations/${id}/cancel`)).json.error.code).toBe("payment_required");
    await sim.control("PATCH", "accounts/acc_demo", { plan: "pro" });
    await sim.advance(2.5);
    expect((await sim.control("POST", `generations/${id}/cancel`)).json.error.code).toBe("generation_in_flight");
  });

  it("ST-2: a generation held for review can be neither cancelled nor deleted (generation_frozen)", async () => {
    const id = (await sim.submit({ type: "video", model: "video-model-a", prompt: "[sim:hold]" })).json.id;
    await sim.advance(6);
    expect((await sim.control("POST", `generations/${id}/cancel`)).json.error.code).toBe("generation_frozen");
    expect((await sim.control("DELETE", `generations/${id}`)).json.error.code).toBe("generation_frozen");
  });
});
