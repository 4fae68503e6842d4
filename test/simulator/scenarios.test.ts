// Scenarios: named, versioned JSON files of the simulator's starting state. Each shipped
// one loads by name and behaves as its description says (through the HTTP API); an
// invalid file is refused naming the field at fault, by every way in (option, control
// route, CLI); an export loads back to the same state; reset goes back to the starting scenario.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { generationStatuses, schema } from "../../src/contract/index.ts";
import { Hub, ScenarioError, shippedNames } from "../../src/simulator/index.ts";
import { scenarioSchema, shippedScenarios } from "../../src/simulator/scenarios/index.ts";
import { readScenario } from "../../src/simulator/state/scenario/read.ts";
import { markdownBlocks } from "../docs/code-samples.ts";
import { runCli, startCli } from "./support/cli.ts";
import { FULL, startSim, type Sim } from "./support/harness.ts";
import { fixture, upload } from "./support/uploads.ts";

const FAILURE_REASONS = schema("FailureReason").enum as string[];
const image = { type: "image", model: "image-model-b", prompt: "A red kite" };

/** A valid scenario to break one field of at a time. */
function base(): any {
  return {
    scenario_version: 1,
    name: "test-base",
    description: "Three accounts, one key.",
    accounts: [{ id: "acc_a" }, { id: "acc_b" }, { id: "acc_c" }],
    keys: [{ secret: "ghk_test_main", id: "key_main", account_id: "acc_a" }],
  };
}

/** Every page of a list, newest first. */
async function everything(sim: Sim, path: string, key = FULL): Promise<any[]> {
  const all: any[] = [];
  let cursor: string | null = null;
  do {
    const r = await sim.get(`${path}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { key });
    expect(r.status).toBe(200);
    all.push(...r.json.data);
    cursor = r.json.next_cursor;
  } while (cursor);
  return all;
}

let sim: Sim;
beforeAll(async () => {
  sim = await startSim();
});
afterAll(() => sim.close());

const load = (name: string) => sim.control("POST", "scenario", { name });

describe("shipped scenarios", () => {
  it("the schema is a JSON Schema 2020-12; every shipped file passes it and is listed under its own name", async () => {
    const meta = new Ajv2020({ strictSchema: false });
    expect(meta.validateSchema(scenarioSchema), JSON.stringify(meta.errors)).toBe(true);
    expect(shippedNames).not.toHaveLength(0);
    for (const name of shippedNames) expect(readScenario(shippedScenarios[name]).name).toBe(name);
    const r = await sim.control("GET", "scenarios");
    expect(r.json.data.map((s: any) => s.name)).toEqual(shippedNames);
    for (const s of r.json.data) expect(s.description.length).toBeGreaterThan(20);
    expect(r.json.loaded).toBe("demo");
  });

  it("the example of docs/simulator.md is a valid scenario and loads", () => {
    const [example] = markdownBlocks("docs/simulator.md", "json").filter((b) => b.source.includes('"scenario_version"'));
    const hub = new Hub({ scenario: JSON.parse(example!.source), clockSpeed: 0 });
    expect(hub.scenario.name).toBe("checkout-bug");
    expect(hub.generations.inProgress("acc_demo").size).toBe(1);
    hub.shutdown();
  });

  it("without a scenario the hub starts from the demo scenario: its keys, accounts and records", async () => {
    const demo = await startSim({ demoData: true });
    try {
      const state = (await demo.control("GET", "state")).json;
      expect(state.scenario).toBe("demo");
      expect(state.keys.map((k: any) => k.secret)).toContain("ghk_demo_capped");
      expect((await demo.get("/v1/generations")).json.data).toHaveLength(4);
      expect((await demo.get("/v1/library/folders")).json.data.map((f: any) => f.name)).toEqual(["Characters", "Backgrounds"]);
      expect((await demo.get("/v1/support/messages")).json.data[0]).toMatchObject({ from: "support", unread: true });
    } finally {
      await demo.close();
    }
  });

  it("empty-account: a paid account with no generations, an empty library and no support messages; a submit is accepted", async () => {
    const r = await load("empty-account");
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ name: "empty-account", keys: expect.arrayContaining([expect.objectContaining({ secret: FULL })]) });
    expect((await sim.get("/v1/generations")).json.data).toEqual([]);
    expect((await sim.get("/v1/library/assets")).json.data).toEqual([]);
    expect((await sim.get("/v1/library/folders")).json.data).toEqual([]);
    expect((await sim.get("/v1/support/messages")).json.data).toEqual([]);
    expect((await sim.get("/v1/me")).json.plan.id).toBe("pro");
    expect((await sim.submit(image)).status).toBe(202);
  });

  it("busy-account: hundreds of generations in every status, FAILED with each reason; those in progress keep moving on the clock", async () => {
    const busy = await startSim({ scenario: "busy-account" });
    try {
      const all = await everything(busy, "/v1/generations");
      expect(all.length).toBeGreaterThanOrEqual(300);
      expect(new Set(all.map((g) => g.status))).toEqual(new Set(generationStatuses.map((s) => s.status)));
      expect(new Set(all.filter((g) => g.status === "FAILED").map((g) => g.error.reason))).toEqual(new Set(FAILURE_REASONS));
      const moving = all.filter((g) => g.status !== "DONE" && g.status !== "FAILED");
      const stream = await busy.open();
      await busy.advance(30);
      await stream.until((s) => s.frames.filter((f) => f.event === "generation.status_changed").length >= moving.length);
      const after = (await busy.post("/v1/generations/status", { ids: moving.map((g) => g.id) })).json.data;
      const byId = new Map(after.map((g: any) => [g.id, g]));
      // The plain ones are done; [sim:fail=timeout] failed; [sim:slow] still runs.
      expect(byId.get(moving.find((g) => g.prompt === "Sunflowers in a blue vase")!.id)).toMatchObject({ status: "DONE" });
      expect(byId.get(moving.find((g) => g.prompt.includes("[sim:fail=timeout]"))!.id)).toMatchObject({ status: "FAILED", error: { reason: "timeout" } });
      expect(byId.get(moving.find((g) => g.prompt.includes("[sim:slow]"))!.id)).toMatchObject({ status: "RUNNING" });
      stream.drop();
      // The ledger was made to add up to the balance, with a debit per charged generation.
      const rows = await everything(busy, "/v1/billing/transactions");
      expect(rows.reduce((sum, r) => sum + r.amount_cc, 0)).toBe((await busy.get("/v1/me")).json.credits.main_cc);
      expect(rows.filter((r) => r.reason === "generation").length).toBe(all.length);
    } finally {
      await busy.close();
    }
  });

  it("free-account: no paid plan and no subscription; a submit answers 402 payment_required, reads work", async () => {
    await load("free-account");
    expect((await sim.submit(image)).json.error.code).toBe("payment_required");
    expect((await sim.get("/v1/models")).status).toBe(200);
    expect((await sim.get("/v1/billing/subscription")).json).toBeNull();
  });

  it("out-of-credits: balance 0 and no free quotas; a submit answers 402 insufficient_credits; the ledger shows where the credits went", async () => {
    await load("out-of-credits");
    expect((await sim.submit(image)).json.error.code).toBe("insufficient_credits");
    expect((await sim.get("/v1/me")).json.credits.main_cc).toBe(0);
    const rows = await everything(sim, "/v1/billing/transactions");
    expect(rows.filter((r) => r.reason === "generation").length).toBe(5);
    expect(rows.reduce((sum, r) => sum + r.amount_cc, 0)).toBe(0);
  });

  it("LIM-4: rate-limited: the account's window is spent now, so the next request answers 429 with Retry-After; it works once the window ends", async () => {
    await load("rate-limited");
    for (const key of [FULL, "ghk_demo_second"]) {
      const r = await sim.get("/v1/me", { key });
      expect(r.status).toBe(429);
      expect(r.headers.get("retry-after")).toBe("60");
      expect(r.headers.get("ratelimit-policy")).toBe('"account";q=900;w=60');
      expect(r.json.error).toMatchObject({ code: "rate_limited", retry_after_seconds: 60 });
    }
    await sim.advance(60);
    expect((await sim.get("/v1/me")).status).toBe(200);
    // Loading it again spends it again (a reset goes back to the starting scenario, the demo).
    await load("rate-limited");
    expect((await sim.get("/v1/me")).status).toBe(429);
  });

  it("EVT-7: expiring-key: a stream opened with the key gets terminated (api_key_expired) when it expires on the clock", async () => {
    await load("expiring-key");
    const key = "ghk_demo_expiring";
    expect((await sim.get("/v1/me", { key })).status).toBe(200);
    const stream = await sim.open({ key });
    await sim.advance(119);
    expect(stream.ended).toBe(false);
    await sim.advance(1);
    await stream.until((s) => s.ended);
    expect(stream.frames.at(-1)).toMatchObject({ event: "terminated", data: { error: { code: "api_key_expired" } } });
    expect((await sim.get("/v1/me", { key })).json.error.code).toBe("api_key_expired");
    expect((await sim.get("/v1/me")).status).toBe(200);
  });
});

describe("loading", () => {
  beforeEach(() => load("demo"));

  it("new Hub({ scenario }) takes a shipped name or a parsed file; options given to the hub win over the scenario's rate limits", async () => {
    const byName = new Hub({ scenario: "out-of-credits", clockSpeed: 0 });
    expect(byName.scenario.name).toBe("out-of-credits");
    expect(byName.state.accounts.get("acc_demo")!.balance_cc).toBe(0);
    const byFile = new Hub({ scenario: base(), clockSpeed: 0 });
    expect([...byFile.state.keys.keys()]).toEqual(["ghk_test_main"]);
    // Defaults come from the schema: a paid plan, the demo account's balance and free quotas.
    expect(byFile.state.accounts.get("acc_a")).toMatchObject({ plan: { id: "pro", paid: true }, balance_cc: 500_000, api_access: true, subscription: { status: "active" } });
    const relaxed = await startSim({ scenario: "rate-limited", rateLimits: { accountQuota: 2_000 } });
    try {
      expect((await relaxed.get("/v1/me")).status).toBe(200);
    } finally {
      await relaxed.close();
    }
    for (const hub of [byName, byFile]) hub.shutdown();
  });

  it("POST /_sim/scenario loads a whole scenario sent as the body, in force until a reset, which goes back to the starting scenario (the demo)", async () => {
    const s = base();
    s.keys[0].secret = FULL;
    s.generations = [{ account_id: "acc_a", model: "image-model-a", prompt: "Planned by hand", status: "RUNNING", created_seconds_ago: 5, planned: [{ status: "FAILED", after_seconds: 4, reason: "no_content" }] }];
    const r = await sim.control("POST", "scenario", s);
    expect(r.status).toBe(200);
    expect(r.json.name).toBe("test-base");
    const [gen] = (await sim.get("/v1/generations")).json.data;
    expect(gen.status).toBe("RUNNING");
    await sim.advance(4);
    expect((await sim.get(`/v1/generations/${gen.id}`)).json).toMatchObject({ status: "FAILED", error: { reason: "no_content" } });
    await sim.submit(image);
    expect((await sim.get("/v1/generations")).json.data).toHaveLength(2);
    expect((await sim.get("/v1/me", { key: "ghk_demo_other" })).json.error.code).toBe("invalid_api_key");
    expect((await sim.control("GET", "state")).json).toMatchObject({ scenario: "test-base", starting_scenario: "demo" });
    await sim.control("POST", "reset");
    expect((await sim.control("GET", "state")).json).toMatchObject({ scenario: "demo", starting_scenario: "demo" });
    expect((await sim.get("/v1/generations")).json.data.map((g: any) => g.prompt)).not.toContain("Planned by hand");
    expect((await sim.get("/v1/me", { key: "ghk_demo_other" })).status).toBe(200);
  });
});

describe("reset goes back to the start", () => {
  it("startSimulator({ scenario }) (--scenario): a scenario loaded since lasts until POST /_sim/reset, which goes back to the starting scenario and the starting clock speed", async () => {
    const started = await startSim({ scenario: "free-account" });
    try {
      expect((await started.submit(image)).json.error.code).toBe("payment_required");
      expect((await started.control("POST", "scenario", { name: "out-of-credits" })).status).toBe(200);
      expect((await started.control("POST", "clock", { speed: 5 })).status).toBe(200);
      expect((await started.submit(image)).json.error.code).toBe("insufficient_credits");
      const before = (await started.control("GET", "clock")).json.now_ms;
      await started.control("POST", "reset");
      expect((await started.control("GET", "state")).json).toMatchObject({ scenario: "free-account", starting_scenario: "free-account", clock: { speed: 0 } });
      expect((await started.submit(image)).json.error.code).toBe("payment_required");
      // The clock's time goes on from where it was.
      expect((await started.control("GET", "clock")).json.now_ms).toBeGreaterThanOrEqual(before);
      // The same through the hub startSimulator answers.
      started.hub.loadScenario("out-of-credits");
      started.hub.reset();
      expect(started.hub.scenario.name).toBe("free-account");
    } finally {
      await started.close();
    }
  });
});

describe("invalid scenarios name the field at fault", () => {
  beforeEach(() => load("demo"));

  const broken: [string, (s: Record<string, any>) => void, string, string][] = [
    ["a balance that is not an integer", (s) => (s.accounts[2].balance_cc = 1.5), "accounts.2.balance_cc", "wrong_type"],
    ["a missing version", (s) => delete s.scenario_version, "scenario_version", "required"],
    ["another version", (s) => (s.scenario_version = 2), "scenario_version", "not_allowed"],
    ["a field the format does not have", (s) => (s.accounts[0].credits = 5), "accounts.0.credits", "unknown_field"],
    ["a scope outside the contract", (s) => (s.keys[0].scopes = ["me:read", "everything"]), "keys.0.scopes", "not_allowed"],
    ["a key of an account the scenario lacks", (s) => (s.keys[0].account_id = "acc_z"), "keys.0.account_id", "not_allowed"],
    ["a key secret of the wrong form", (s) => (s.keys[0].secret = "sk_live_1"), "keys.0.secret", "bad_format"],
    ["two accounts with one id", (s) => (s.accounts[1].id = "acc_a"), "accounts.1.id", "duplicate"],
    ["a FAILED generation without its reason", (s) => (s.generations = [{ account_id: "acc_a", model: "image-model-a", prompt: "p", status: "FAILED", created_seconds_ago: 1 }]), "generations.0.error_reason", "required"],
    ["a model the catalog lacks", (s) => (s.generations = [{ account_id: "acc_a", model: "nope", prompt: "p", status: "DONE", created_seconds_ago: 1 }]), "generations.0.model", "not_allowed"],
    ["a status outside the contract", (s) => (s.generations = [{ account_id: "acc_a", model: "image-model-a", prompt: "p", status: "FINISHED", created_seconds_ago: 1 }]), "generations.0.status", "not_allowed"],
    ["more results than the model renders", (s) => (s.generations = [{ account_id: "acc_a", model: "image-model-b", prompt: "p", status: "DONE", created_seconds_ago: 1, output_count: 1e12 }]), "generations.0.output_count", "out_of_range"],
    ["a time a century away", (s) => (s.keys[0].expires_in_seconds = 1e300), "keys.0.expires_in_seconds", "out_of_range"],
    ["a ledger that does not add up", (s) => (s.ledger = [{ account_id: "acc_a", amount_cc: 10, created_seconds_ago: 1 }]), "accounts.0.balance_cc", "invalid"],
    ["an asset in a folder that does not exist", (s) => (s.library = { assets: [{ account_id: "acc_a", folder: "Nowhere", created_seconds_ago: 1 }] }), "library.assets.0.folder", "not_allowed"],
    ["a key window without its key", (s) => (s.rate_limits = { spent: [{ window: "key", used: 3 }] }), "rate_limits.spent.0.key_id", "required"],
  ];

  it("the option: new Hub({ scenario }) throws ScenarioError whose message names the field", () => {
    const s = base();
    s.accounts[2].balance_cc = 1.5;
    expect(() => new Hub({ scenario: s })).toThrow(new ScenarioError([{ field: "accounts.2.balance_cc", reason: "wrong_type", message: "accounts.2.balance_cc must be integer" }]));
    expect(() => new Hub({ scenario: "no-such" })).toThrow(/^name names no shipped scenario: "no-such" \(shipped: demo, /);
    expect(() => new Hub({ scenario: [] as never })).toThrow("a scenario is a JSON object");
  });

  for (const [what, breakIt, field, reason] of broken) {
    it(`the control route: ${what} answers 400 invalid_request with details[].field ${field}; nothing changes`, async () => {
      const s = base();
      breakIt(s);
      const r = await sim.control("POST", "scenario", s);
      expect(r.status).toBe(400);
      expect(r.json.error.code).toBe("invalid_request");
      expect(r.json.error.details).toContainEqual(expect.objectContaining({ field, reason, message: expect.stringContaining(field) }));
      expect((await sim.control("GET", "state")).json.scenario).toBe("demo");
    });
  }

  it("the control route: an unknown name answers 400 naming `name`; an export under a name that is not one answers 400", async () => {
    const r = await sim.control("POST", "scenario", { name: "no-such" });
    expect(r.status).toBe(400);
    expect(r.json.error.details).toEqual([expect.objectContaining({ field: "name", reason: "not_allowed" })]);
    const bad = await sim.control("GET", "scenario?name=Not%20A%20Name");
    expect(bad.status).toBe(400);
    expect(bad.json.error.details).toEqual([expect.objectContaining({ field: "name", reason: "bad_format" })]);
  });

  it("the CLI: an invalid file, a file that is not JSON and an unknown name are one line each and exit code 2", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scenario-"));
    const bad = join(dir, "bad.json");
    const s = base();
    s.accounts[2].balance_cc = 1.5;
    writeFileSync(bad, JSON.stringify(s));
    const invalid = await runCli(["--scenario", bad]);
    expect(invalid.code).toBe(2);
    expect(invalid.out).toBe(`--scenario ${bad} (SIM_SCENARIO): not a valid scenario: accounts.2.balance_cc must be integer\n`);
    const notJson = join(dir, "broken.json");
    writeFileSync(notJson, "{ accounts: ");
    const garbled = await runCli([], { SIM_SCENARIO: notJson });
    expect(garbled.code).toBe(2);
    expect(garbled.out).toMatch(new RegExp(`^--scenario ${notJson} \\(SIM_SCENARIO\\): the file is not JSON \\([^\\n]+\\)\\n$`));
    const unknown = await runCli(["--scenario", "no-such"]);
    expect(unknown.code).toBe(2);
    expect(unknown.out).toBe(`--scenario no-such (SIM_SCENARIO): no shipped scenario has this name (shipped: ${shippedNames.join(", ")}; a file's path ends in .json)\n`);
  });
});

describe("npm start -- --scenario", () => {
  it("starts from the scenario (by name, or SIM_SCENARIO) and prints its keys", async () => {
    const docsDir = mkdtempSync(join(tmpdir(), "sim-docs-"));
    writeFileSync(join(docsDir, "index.html"), "<h1>Reference</h1>"); // up to date: no build
    const cli = await startCli(["--port", "0", "--clock-speed", "0"], { SIM_SCENARIO: "expiring-key", SIM_DOCS_DIR: docsDir });
    try {
      expect(cli.out()).toContain("Scenario expiring-key: A paid account whose key expires");
      expect(cli.out()).toMatch(/ghk_demo_expiring\s+expires 120 seconds after the start/);
      expect((await (await fetch(`${cli.url}/_sim/state`)).json()).scenario).toBe("expiring-key");
    } finally {
      expect(await cli.stop()).toBe(0);
    }
  });
});

describe("export", () => {
  beforeEach(() => load("demo"));

  /** What a client sees of the state, through the API. */
  async function views(on: Sim) {
    const out: Record<string, unknown> = {};
    for (const path of ["/v1/generations", "/v1/library/assets", "/v1/library/folders", "/v1/billing/transactions", "/v1/billing/subscription", "/v1/support/messages", "/v1/me", "/v1/whoami"]) {
      out[path] = (await on.get(path)).json;
    }
    out.other = (await on.get("/v1/generations", { key: "ghk_demo_other" })).json;
    out.state = { ...(await on.control("GET", "state")).json, scenario: undefined };
    return out;
  }

  it("GET /_sim/scenario writes the state as a scenario file that loads back to the same state: records, ids, times, plans, windows", async () => {
    // A state that departs from the demo in every part a scenario holds.
    const running = (await sim.submit({ type: "video", model: "video-model-a", prompt: "A slow train [sim:fail=no_content]", duration: 5 })).json;
    await sim.submit(image);
    await sim.advance(2.5);
    const folder = (await sim.post("/v1/library/folders", { name: "Exports" })).json;
    const reference = await upload(sim, fixture("photo.jpg"), { contentType: "image/jpeg" });
    const asset = (await sim.get("/v1/library/assets")).json.data.find((a: any) => a.reference === reference);
    await sim.post("/v1/library/move", { folder_id: folder.id, item_ids: [asset.id] });
    await sim.post("/v1/support/messages", { text: "Hello", client_msg_id: "0b7a4f0e-55f3-4a6f-9a8e-3c1f2d4b5a69", images: [reference] });
    await sim.get("/v1/support/messages"); // read: the welcome is no longer unread
    await sim.control("POST", "accounts/acc_other/support", { text: "An answer" });
    await sim.control("PATCH", "accounts/acc_early", { balance_cc: 1234, suspended: true });
    await sim.control("PATCH", "keys/ghk_demo_second", { scopes: ["me:read", "models:read"] });
    await sim.control("POST", "keys/ghk_demo_revoked/expire");
    await sim.control("POST", "api", { enabled: true });
    await sim.get("/v1/models", { key: "ghk_demo_other" });

    const before = await views(sim);
    const exported = (await sim.control("GET", "scenario?name=captured&description=After%20the%20tests")).json;
    expect(exported).toMatchObject({ scenario_version: 1, name: "captured", description: "After the tests" });
    expect(exported.generations.find((g: any) => g.id === running.id).planned).toEqual([{ status: "FAILED", after_seconds: 8 - 0.5, reason: "no_content" }]);
    expect(exported.rate_limits.spent).toContainEqual({ window: "key", key_id: "key_other", used: 2, started_seconds_ago: 0 });
    // The upload's own bytes travel in the file; the demo's image is the simulator's.
    expect(exported.library.assets.find((a: any) => a.reference === reference)).toMatchObject({ folder: "Exports", content_type: "image/jpeg", data_base64: Buffer.from(fixture("photo.jpg")).toString("base64") });
    expect(exported.library.assets.find((a: any) => a.title === "Demo reference").data_base64).toBeUndefined();

    await sim.control("POST", "reset");
    const loaded = await sim.control("POST", "scenario", exported);
    expect(loaded.status).toBe(200);
    // Exported again before any request spends a window: the very same file.
    expect((await sim.control("GET", "scenario?name=captured&description=After%20the%20tests")).json).toEqual(exported);
    expect(await views(sim)).toEqual(before);
    // The generation in progress goes on as it would have.
    await sim.advance(7.5);
    expect((await sim.get(`/v1/generations/${running.id}`)).json).toMatchObject({ status: "FAILED", error: { reason: "no_content" }, refunded: true });
  });

  it("every shipped scenario exports to a file that loads back to the same state", () => {
    expect(shippedNames).not.toHaveLength(0);
    for (const name of shippedNames) {
      const hub = new Hub({ scenario: name, clockSpeed: 0, startTime: Date.UTC(2026, 0, 1) });
      const file = hub.exportScenario();
      const again = new Hub({ scenario: JSON.parse(JSON.stringify(file)), clockSpeed: 0, startTime: Date.UTC(2026, 0, 1) });
      expect(again.exportScenario(), name).toEqual(file);
      for (const h of [hub, again]) h.shutdown();
    }
  });
});
