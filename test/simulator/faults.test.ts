// Faults injected on purpose, through the HTTP server: each kind as a client meets it on
// the wire (an envelope answer with its headers, a late answer, a connection closed
// without an answer, a body shorter than its Content-Length, an event stream cut or gone
// silent), where faults act and where not, counts and seeded rates, and every way a fault
// comes in (options, control routes, scenario, command line) refusing an invalid one.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FaultError, Hub, type FaultSpec, type ScenarioFile } from "../../src/simulator/index.ts";
import { startCli, runCli } from "./support/cli.ts";
import { drawPattern, readBody, VIDEO } from "./support/faults.ts";
import { FULL, startSim, type Sim } from "./support/harness.ts";

let sim: Sim;
beforeAll(async () => {
  sim = await startSim({ heartbeatSeconds: 1 });
});
afterEach(async () => {
  await sim.control("POST", "reset");
});
afterAll(() => sim.close());

const auth = { authorization: `Bearer ${FULL}` };
const addFault = async (fault: Record<string, unknown>) => {
  const r = await sim.control("POST", "faults", fault);
  expect(r.status, r.text).toBe(201);
  return r.json.data[0];
};
const generations = async () => (await sim.get("/v1/generations")).json.data as { id: string }[];
/** A raw request: its promise rejects when the connection closes without an answer. */
const raw = (path: string, init: RequestInit = {}) => fetch(sim.url + path, { ...init, headers: { ...auth, ...(init.headers as Record<string, string>) } });

/** The demo account and its main key, with one fault in force from the start. */
function flakyScenario(name: string, fault: FaultSpec): ScenarioFile {
  return {
    scenario_version: 1,
    name,
    description: `The demo account with the fault ${fault.id}.`,
    accounts: [{ id: "acc_demo" }],
    keys: [{ secret: FULL, id: "key_full", account_id: "acc_demo" }],
    faults: [fault],
  };
}

describe("error answers in the envelope", () => {
  it("service_unavailable and internal_error take the handler's place, with X-Request-Id, Cache-Control and the RateLimit pair of a request that reached the limiter; then the route answers again", async () => {
    await addFault({ kind: "service_unavailable", route: "readAccount", count: 1 });
    await addFault({ kind: "internal_error", route: "/v1/me", count: 1 });
    const first = await sim.get("/v1/me", { headers: { "x-request-id": "req_fault_1" } });
    expect(first.status).toBe(503);
    expect(first.json.error).toMatchObject({ code: "service_unavailable", request_id: "req_fault_1" });
    expect(first.headers.get("x-request-id")).toBe("req_fault_1");
    expect(first.headers.get("cache-control")).toBe("private, no-store");
    expect(first.headers.get("ratelimit")).toMatch(/^"default";r=\d+;t=\d+$/);
    const second = await sim.get("/v1/me");
    expect(second.status).toBe(500);
    expect(second.json.error.code).toBe("internal_error");
    expect((await sim.get("/v1/me")).status).toBe(200);
    const listed = (await sim.control("GET", "faults")).json.data;
    expect(listed.map((f: { fired: number; remaining: number }) => [f.fired, f.remaining])).toEqual([[1, 0], [1, 0]]);
  });

  it("a fault before the handler does nothing: a submit answered 503 creates no generation", async () => {
    await addFault({ kind: "service_unavailable", route: "submitGeneration", count: 1 });
    expect((await sim.submit(VIDEO)).status).toBe(503);
    expect(await generations()).toEqual([]);
    expect((await sim.submit(VIDEO)).status).toBe(202);
  });

  it("routes outside the limiter (a path prefix such as /storage/, OAuth metadata) answer without a RateLimit pair", async () => {
    await addFault({ kind: "service_unavailable", route: "/storage/" });
    await addFault({ kind: "internal_error", route: "readAuthorizationServerMetadata" });
    const storage = await fetch(`${sim.url}/storage/upl_x?signature=y`, { method: "PUT", body: "x" });
    expect(storage.status).toBe(503);
    expect(storage.headers.get("ratelimit")).toBeNull();
    expect((await storage.json()).error.code).toBe("service_unavailable");
    const metadata = await sim.get("/.well-known/oauth-authorization-server", { key: null });
    expect(metadata.status).toBe(500);
    expect(metadata.headers.get("ratelimit")).toBeNull();
    expect((await sim.get("/v1/me")).status).toBe(200);
  });

  it("LIM-4: rate_limited answers as the request limiter does: Retry-After and retry_after_seconds of the fault, details request_rate with scope, limit and current, the window exhausted in the RateLimit pair; nothing is done", async () => {
    await addFault({ kind: "rate_limited", route: "submitGeneration", retry_after_seconds: 7, count: 1 });
    const r = await sim.submit(VIDEO);
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBe("7");
    expect(r.headers.get("ratelimit")).toBe('"default";r=0;t=7');
    expect(r.headers.get("ratelimit-policy")).toBe('"default";q=300;w=60');
    expect(r.json.error).toMatchObject({ code: "rate_limited", retry_after_seconds: 7, details: [{ reason: "request_rate", scope: "default", limit: 300, current: 300 }] });
    expect(await generations()).toEqual([]);
  });

  it("a rate_limited fault on every route passes over operations that declare no 429 (the OAuth token route) and acts on the next that does", async () => {
    await addFault({ kind: "rate_limited", retry_after_seconds: 1, count: 1 });
    const token = await sim.call("POST", "/oauth/token", { key: null, raw: "grant_type=nothing", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(token.status).toBe(400);
    const me = await sim.get("/v1/me");
    expect(me.status).toBe(429);
    expect(me.headers.get("retry-after")).toBe("1");
  });

  it("the control interface is never faulted, so a fault on every route can always be cleared", async () => {
    await addFault({ kind: "service_unavailable" });
    expect((await sim.get("/v1/me")).status).toBe(503);
    expect((await sim.control("GET", "state")).status).toBe(200);
    expect((await sim.control("DELETE", "faults")).json).toEqual({ cleared: 1, data: [] });
    expect((await sim.get("/v1/me")).status).toBe(200);
  });
});

describe("latency", () => {
  it("the answer leaves latency_ms later", async () => {
    await addFault({ kind: "latency", route: "readAccount", latency_ms: 400, count: 1 });
    const started = Date.now();
    expect((await sim.get("/v1/me")).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
  });
});

describe("dropped connections", () => {
  it("drop: the connection closes without an answer, and the request is not handled", async () => {
    await addFault({ kind: "drop", route: "submitGeneration", count: 1 });
    await expect(raw("/v1/generations", { method: "POST", headers: { "content-type": "application/json", "idempotency-key": "drop-1" }, body: JSON.stringify(VIDEO) })).rejects.toThrow(TypeError);
    expect(await generations()).toEqual([]);
  });

  it("SUB-2: drop after_processing: the generation exists though the caller never saw the 202; the same Idempotency-Key then answers it, charged once", async () => {
    await addFault({ kind: "drop", route: "submitGeneration", after_processing: true, count: 1 });
    const before = (await sim.control("GET", "accounts/acc_demo")).json.balance_cc;
    await expect(raw("/v1/generations", { method: "POST", headers: { "content-type": "application/json", "idempotency-key": "drop-2" }, body: JSON.stringify(VIDEO) })).rejects.toThrow(TypeError);
    const made = await generations();
    expect(made).toHaveLength(1);
    const replay = await sim.submit(VIDEO, { idempotencyKey: "drop-2" });
    expect(replay.status).toBe(202);
    expect(replay.json.id).toBe(made[0]!.id);
    expect(await generations()).toHaveLength(1);
    const charged = (await sim.control("GET", `generations/${made[0]!.id}`)).json.charged_cc;
    expect(charged).toBeGreaterThan(0);
    expect((await sim.control("GET", "accounts/acc_demo")).json.balance_cc).toBe(before - charged);
  });
});

describe("truncated bodies", () => {
  it("truncate: Content-Length promises the whole body, sent_bytes follow, then the connection closes", async () => {
    await addFault({ kind: "truncate", route: "readAccount", sent_bytes: 10, count: 1 });
    const res = await raw("/v1/me");
    expect(res.status).toBe(200);
    expect(Number(res.headers.get("content-length"))).toBeGreaterThan(10);
    const read = await readBody(res, 5000);
    expect(read).toMatchObject({ outcome: "failed", bytes: 10 });
    const whole = await raw("/v1/me");
    expect((await readBody(whole, 5000)).bytes).toBe(Number(whole.headers.get("content-length")));
  });

  it("without sent_bytes, half the body is sent", async () => {
    await addFault({ kind: "truncate", route: "/v1/models", count: 1 });
    const res = await raw("/v1/models");
    const read = await readBody(res, 5000);
    expect(read.outcome).toBe("failed");
    expect(read.bytes).toBe(Math.floor(Number(res.headers.get("content-length")) / 2));
  });
});

describe("event streams", () => {
  /** Opens a stream, submits a video and lets it finish: four frames are written. */
  async function streamAndFinish(): Promise<Response> {
    const res = await raw("/v1/events");
    expect(res.status).toBe(200);
    await sim.submit(VIDEO);
    await sim.advance(60);
    return res;
  }

  it("EVT-9: stream_cut: the connection closes without a proper end after after_frames frames", async () => {
    await addFault({ kind: "stream_cut", route: "streamGenerationEvents", after_frames: 2, count: 1 });
    const read = await readBody(await streamAndFinish(), 5000);
    expect(read).toMatchObject({ frames: 2, outcome: "failed" });
    const next = await readBody(await streamAndFinish(), 1000, (r) => r.frames >= 4);
    expect(next).toMatchObject({ frames: 4, outcome: "open" });
  });

  it("EVT-8: stream_silent: after after_frames frames no frame and no heartbeat, the connection open; a stream without the fault keeps its heartbeats", async () => {
    await addFault({ kind: "stream_silent", route: "streamGenerationEvents", after_frames: 1, count: 1 });
    const silent = await raw("/v1/events");
    const healthy = await raw("/v1/events");
    await sim.submit(VIDEO);
    await sim.advance(60);
    const [quiet, alive] = await Promise.all([readBody(silent, 2600), readBody(healthy, 2600)]);
    expect(quiet).toMatchObject({ frames: 1, outcome: "open" });
    expect(quiet.text.slice(quiet.text.indexOf("event:"))).not.toContain("\n\n:");
    expect(alive.frames).toBe(4);
    expect(alive.comments).toBeGreaterThanOrEqual(1);
  });
});

describe("counts, rates and seeds", () => {
  it("a rate draws from a seeded generator: the same seed gives the same faults again after a reset, another seed others", async () => {
    const seeded = await startSim({ faults: [{ kind: "service_unavailable", route: "readAccount", rate: 0.5, seed: 7 }] });
    try {
      const me = async () => (await seeded.get("/v1/me")).status;
      const first = await drawPattern(me, 503);
      expect(first).toMatch(/x/);
      expect(first).toMatch(/\./);
      await seeded.control("POST", "reset");
      expect(await drawPattern(me, 503)).toBe(first);
      await seeded.control("DELETE", "faults");
      await seeded.control("POST", "faults", { kind: "service_unavailable", route: "readAccount", rate: 0.5, seed: 8 });
      expect(await drawPattern(me, 503)).not.toBe(first);
    } finally {
      await seeded.close();
    }
  });

  it("a reset puts back the options' and the starting scenario's faults with their counts anew, and takes the control interface's out", async () => {
    const starting = flakyScenario("flaky-models", { id: "flaky_models", kind: "service_unavailable", route: "listModels", count: 1 });
    const withFaults = await startSim({ scenario: starting, faults: [{ id: "slow_me", kind: "service_unavailable", route: "readAccount", count: 1 }] });
    try {
      await withFaults.control("POST", "faults", { kind: "internal_error", route: "listModels" });
      expect((await withFaults.get("/v1/me")).status).toBe(503);
      expect((await withFaults.get("/v1/me")).status).toBe(200);
      expect((await withFaults.get("/v1/models")).status).toBe(503);
      await withFaults.control("POST", "reset");
      const listed = (await withFaults.control("GET", "faults")).json.data;
      expect(listed).toEqual([
        expect.objectContaining({ id: "slow_me", origin: "options", remaining: 1, fired: 0 }),
        expect.objectContaining({ id: "flaky_models", origin: "scenario", remaining: 1, fired: 0 }),
      ]);
      expect((await withFaults.get("/v1/me")).status).toBe(503);
    } finally {
      await withFaults.close();
    }
  });

  it("a scenario's faults are in force once it is loaded; the export carries them with what remains of their counts (not the options')", async () => {
    const scenario = flakyScenario("flaky", { id: "flaky_me", kind: "service_unavailable", route: "readAccount", count: 2 });
    expect((await sim.control("POST", "scenario", scenario)).status).toBe(200);
    try {
      expect((await sim.get("/v1/me")).status).toBe(503);
      const exported = (await sim.control("GET", "scenario")).json;
      expect(exported.faults).toEqual([{ id: "flaky_me", kind: "service_unavailable", route: "readAccount", count: 1, rate: 1, seed: 0 }]);
      expect((await sim.control("GET", "faults/flaky_me")).json).toMatchObject({ origin: "scenario", remaining: 1, fired: 1 });
      // Loading it again starts its faults anew; a reset goes back to the starting scenario, without them.
      expect((await sim.control("POST", "scenario", scenario)).status).toBe(200);
      expect((await sim.control("GET", "faults/flaky_me")).json).toMatchObject({ remaining: 2, fired: 0 });
      await sim.control("POST", "reset");
      expect((await sim.control("GET", "faults/flaky_me")).status).toBe(404);
    } finally {
      await sim.control("POST", "scenario", { name: "demo" });
    }
  });

  it("DELETE /_sim/faults/{id} takes one fault out; an unknown id answers 404", async () => {
    const a = await addFault({ kind: "service_unavailable", route: "readAccount" });
    const b = await addFault({ id: "models_down", kind: "service_unavailable", route: "listModels" });
    expect([a.id, b.id]).toEqual(["flt_1", "models_down"]);
    expect((await sim.control("DELETE", `faults/${a.id}`)).json.id).toBe(a.id);
    expect((await sim.get("/v1/me")).status).toBe(200);
    expect((await sim.get("/v1/models")).status).toBe(503);
    expect((await sim.control("DELETE", `faults/${a.id}`)).status).toBe(404);
  });
});

describe("invalid faults, every way in", () => {
  it("POST /_sim/faults answers 400 invalid_request naming each field, of one fault or of a list (all or none)", async () => {
    const one = await sim.control("POST", "faults", { kind: "latency", rate: 2 });
    expect(one.status).toBe(400);
    expect(one.json.error.details).toEqual([
      { field: "rate", reason: "out_of_range", message: "rate must be <= 1" },
      { field: "latency_ms", reason: "required", message: "latency_ms is required" },
    ]);
    const unknown = await sim.control("POST", "faults", { kind: "explode" });
    expect(unknown.json.error.details).toEqual([{ field: "kind", reason: "not_allowed", message: "kind must be one of latency, internal_error, service_unavailable, rate_limited, drop, truncate, stream_cut, stream_silent" }]);
    const list = await sim.control("POST", "faults", {
      faults: [
        { kind: "drop" },
        { kind: "rate_limited", route: "exchangeToken", retry_after_seconds: 1 },
        { kind: "stream_cut", route: "readAccount" },
        { kind: "truncate", route: "streamGenerationEvents" },
        { kind: "drop", route: "/_sim/" },
        { kind: "drop", route: "noSuchOperation" },
        { kind: "drop", after_frames: 2 },
      ],
    });
    expect(list.status).toBe(400);
    expect(list.json.error.details.map((d: { field: string; reason: string }) => `${d.field} ${d.reason}`)).toEqual([
      "faults.1.route not_allowed",
      "faults.2.route not_allowed",
      "faults.3.route not_allowed",
      "faults.4.route not_allowed",
      "faults.5.route not_allowed",
      "faults.6.after_frames unknown_field",
    ]);
    expect((await sim.control("GET", "faults")).json.data).toEqual([]);
    await addFault({ id: "mine", kind: "drop", route: "readAccount" });
    const clash = await sim.control("POST", "faults", { id: "mine", kind: "drop" });
    expect(clash.json.error.details).toEqual([expect.objectContaining({ field: "id", reason: "duplicate" })]);
  });

  it("new Hub({ faults }) throws FaultError naming the field", () => {
    let error: unknown;
    try {
      new Hub({ faults: [{ kind: "service_unavailable" }, { kind: "latency" } as never] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FaultError);
    expect((error as FaultError).message).toBe("faults.1.latency_ms is required");
    expect((error as FaultError).details).toEqual([expect.objectContaining({ field: "faults.1.latency_ms", reason: "required" })]);
  });

  it("a scenario with an invalid fault is refused naming faults.<index>.<field>, and changes nothing", async () => {
    const r = await sim.control("POST", "scenario", {
      scenario_version: 1,
      name: "bad-faults",
      description: "Faults that cannot be.",
      accounts: [{ id: "acc_demo" }],
      faults: [{ kind: "stream_silent", route: "readAccount" }, { kind: "teleport" }],
    });
    expect(r.status).toBe(400);
    expect(r.json.error.details.map((d: { field: string; reason: string }) => `${d.field} ${d.reason}`)).toEqual(["faults.1.kind not_allowed"]);
    const routed = await sim.control("POST", "scenario", { scenario_version: 1, name: "bad-faults", description: "x", accounts: [{ id: "acc_demo" }], faults: [{ kind: "stream_silent", route: "readAccount" }] });
    expect(routed.json.error.details).toEqual([expect.objectContaining({ field: "faults.0.route", reason: "not_allowed" })]);
    expect((await sim.control("GET", "state")).json.scenario).toBe("demo");
  });

  it("the command line: an invalid --faults or SIM_FAULTS is one line and exit code 2", async () => {
    const words = await runCli(["--faults", "kind=latency route=readAccount"]);
    expect(words).toEqual({ code: 2, out: "--faults (SIM_FAULTS): not a valid fault: latency_ms is required\n" });
    const list = await runCli([], { SIM_FAULTS: '[{"kind":"drop"},{"kind":"drop","route":"nope"}]' });
    expect(list).toEqual({ code: 2, out: '--faults (SIM_FAULTS): not a valid fault: faults.1.route names no operation of the contract: "nope" (a path prefix starts with /)\n' });
    const garbled = await runCli(["--faults", "kind latency"]);
    expect(garbled.code).toBe(2);
    expect(garbled.out).toMatch(/^--faults \(SIM_FAULTS\): "kind" is not key=value[^\n]*\n$/);
  });

  it("npm start -- --faults puts them in force from the start and prints them", async () => {
    const docsDir = mkdtempSync(join(tmpdir(), "sim-docs-"));
    writeFileSync(join(docsDir, "index.html"), "<h1>Reference</h1>"); // up to date: no build
    const cli = await startCli(["--port", "0", "--clock-speed", "0", "--faults", "kind=service_unavailable route=readAccount count=1; kind=latency latency_ms=5 rate=0.5 seed=3"], { SIM_DOCS_DIR: docsDir });
    try {
      expect(cli.out()).toContain("Faults:     flt_1 service_unavailable (readAccount, 1 times); flt_2 latency (every route, rate 0.5)");
      expect((await fetch(`${cli.url}/v1/me`, { headers: auth })).status).toBe(503);
      expect((await fetch(`${cli.url}/v1/me`, { headers: auth })).status).toBe(200);
    } finally {
      expect(await cli.stop()).toBe(0);
    }
  });
});
