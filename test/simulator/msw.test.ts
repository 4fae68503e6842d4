// The hub simulator as Mock Service Worker handlers in Node (msw/node): the typed client
// of this package, unchanged, against the same hub as behind `npm start`, with no server.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { attemptsOf, createHubClient, HubApiError, HubStreamTerminatedError, type HubClient, type HubEvent } from "../../src/client/index.ts";
import { checkAnswer, operations } from "../../src/contract/index.ts";
import { RESULT_FILES } from "../../src/simulator/http/assets.ts";
import { ControlError, createHubHandlers, DEFAULT_BASE_URL, embeddedAssets, refusalResponse, shippedNames } from "../../src/simulator/msw/index.ts";
import type { Sim } from "./support/harness.ts";
import { authorize, consent, pkce, REDIRECT, registered, signIn, token } from "./support/site.ts";

const BASE = DEFAULT_BASE_URL;
const KEY = "ghk_demo_full";
const { handlers, hub, control } = createHubHandlers({ bodyLimit: 4096 });
const server = setupServer(...handlers);
// Made before the server listens: the client looks fetch up per call, so it still reaches MSW.
const client = createHubClient({ baseUrl: BASE, apiKey: KEY, backoffBase: 1, backoffMax: 5 });
/** The site helpers only read `url`; fetch reaches the handlers. */
const site = { url: BASE } as unknown as Sim;

beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(async () => {
  server.resetHandlers();
  await control.reset();
});
afterAll(() => {
  server.close();
  hub.shutdown();
});

const IMAGE = { type: "image", model: "image-model-a", prompt: "a fox" } as const;
/** Never free (an image may be, from the account's free quota). */
const VIDEO = { type: "video", model: "video-model-a", prompt: "a lighthouse", duration: 5 } as const;

/** Iterates a stream in the background; `opened` settles once its connection is open. */
function collect(c: HubClient, options: Parameters<HubClient["events"]>[0] = {}) {
  const got: HubEvent[] = [];
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const stream = c.events({ ...options, onOpen: () => open() });
  const done = (async () => {
    for await (const e of stream) got.push(e);
  })();
  done.catch(() => undefined);
  return { stream, got, opened, done };
}

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 2));
  }
}

const statuses = (events: HubEvent[], id: string) => events.flatMap((e) => (e.event === "generation.status_changed" && e.data.id === id ? [e.data.status] : []));

describe("Mock Service Worker handlers in Node", () => {
  it("ST-1 EVT-11: submit, advance the frozen clock, DONE through the typed client; the stream reports every change; the result file downloads", async () => {
    const events = collect(client);
    await events.opened;
    const submitted = await client.submit(IMAGE);
    expect(submitted.status).toBe(202);
    expect(submitted.response.headers.get("location")).toBe(`/v1/generations/${submitted.data.id}`);
    expect(submitted.data.status).toBe("QUEUED");
    await control.advance(60);
    const done = await client.waitForGeneration(submitted.data.id);
    expect(done.status).toBe("DONE");
    await until(() => statuses(events.got, done.id).includes("DONE"));
    expect(statuses(events.got, done.id)).toEqual(["QUEUED", "PENDING", "RUNNING", "DONE"]);
    events.stream.close();

    const file = await fetch(done.output_urls![0]!, { headers: { authorization: `Bearer ${KEY}` } });
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(embeddedAssets()("image")!.bytes);
  });

  it("the clock is frozen by default: real time passing moves nothing until advanced", async () => {
    const before = await control.clock();
    expect(before.speed).toBe(0);
    const { data } = await client.submit(IMAGE);
    await new Promise((r) => setTimeout(r, 30));
    expect((await control.clock()).now_ms).toBe(before.now_ms);
    expect((await client.GET("/v1/generations/{id}", { params: { path: { id: data.id } } })).data.status).toBe("QUEUED");
    await control.advance(1);
    expect((await control.clock()).now_ms).toBe(before.now_ms + 1000);
  });

  it("EVT-9: a stream resumed with Last-Event-ID continues right after it, losing and repeating nothing", async () => {
    const first = collect(client);
    await first.opened;
    const { data } = await client.submit(IMAGE);
    await control.advance(1); // QUEUED -> PENDING
    await until(() => first.got.length === 2);
    first.stream.close();
    await first.done;
    const cursor = first.stream.lastEventId;
    expect(cursor).toBe(first.got[1]!.id);
    await control.advance(60); // RUNNING, DONE while no stream is open

    const resumed = collect(client, { lastEventId: cursor });
    await until(() => resumed.got.length === 2);
    resumed.stream.close();
    expect(statuses([...first.got, ...resumed.got], data.id)).toEqual(["QUEUED", "PENDING", "RUNNING", "DONE"]);
    expect(new Set([...first.got, ...resumed.got].map((e) => e.id)).size).toBe(4);
  });

  it("EVT-6: an unknown Last-Event-ID gets a reset frame first, and the stream goes on live", async () => {
    const stream = collect(client, { lastEventId: "not-a-cursor-of-this-hub" });
    await until(() => stream.got.length === 1);
    expect(stream.got[0]).toMatchObject({ event: "reset", data: { reason: "cursor_unknown", catch_up: "/v1/generations/status" } });
    const { data } = await client.submit(IMAGE);
    await until(() => stream.got.length === 2);
    expect(stream.got[1]).toMatchObject({ event: "generation.status_changed", data: { id: data.id, status: "QUEUED" } });
    stream.stream.close();
  });

  it("a stream the client closes or aborts is stopped in the hub (it no longer counts against the key)", async () => {
    const closed = collect(client);
    await closed.opened;
    const aborter = new AbortController();
    const aborted = collect(client, { signal: aborter.signal });
    await aborted.opened;
    expect((await control.state()).open_streams).toBe(2);
    closed.stream.close();
    await until(() => hub.events.openStreams.size === 1);
    aborter.abort();
    await until(() => hub.events.openStreams.size === 0);
    // (A reader that only cancels the body is not seen in Node: msw/node keeps an unread copy
    // of every answer for its life-cycle events, so the cancel never reaches the hub. The
    // browser test covers cancel: MSW's worker makes no copy of an event stream.)
  });

  it("EVT-7: revoking the key through control ends its open stream with `terminated`", async () => {
    const key = await control.createKey({ purpose: "to revoke" });
    const own = createHubClient({ baseUrl: BASE, apiKey: key.secret });
    const stream = collect(own);
    await stream.opened;
    await control.revokeKey(key.id);
    const error = await stream.done.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HubStreamTerminatedError);
    expect((error as HubStreamTerminatedError).code).toBe("api_key_revoked");
  });

  it("the typed client retries a 503 service_unavailable (the hub's envelope, forced once in front of the handlers) with the same Idempotency-Key: one generation", async () => {
    const keys: (string | null)[] = [];
    server.events.on("request:start", ({ request }) => {
      if (request.method === "POST" && new URL(request.url).pathname === "/v1/generations") keys.push(request.headers.get("idempotency-key"));
    });
    server.use(http.post(`${BASE}/v1/generations`, ({ request }) => refusalResponse(hub, request, "service_unavailable"), { once: true }));
    const before = hub.state.generations.size;
    const submitted = await client.submit(IMAGE);
    server.events.removeAllListeners();
    expect(submitted.status).toBe(202);
    expect(attemptsOf(submitted.response)).toBe(2);
    expect(keys).toEqual([submitted.idempotencyKey, submitted.idempotencyKey]);
    expect(hub.state.generations.size).toBe(before + 1);
  });

  it("the API switched off through control answers 503 api_disabled, which the client does not retry; switched on, it answers again", async () => {
    let sent = 0;
    server.events.on("request:start", () => void sent++);
    await control.setApiEnabled(false);
    const error = await client.GET("/v1/models").catch((e: unknown) => e);
    server.events.removeAllListeners();
    expect(error).toBeInstanceOf(HubApiError);
    expect((error as HubApiError).status).toBe(503);
    expect((error as HubApiError).code).toBe("api_disabled");
    expect(sent).toBe(1);
    await control.setApiEnabled(true);
    expect((await client.GET("/v1/models")).status).toBe(200);
  });

  it("a body above the limit answers 413 request_too_large in the envelope; an upload's PUT may carry more, up to its ceiling", async () => {
    const big = await fetch(`${BASE}/v1/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", "idempotency-key": "k-413", "x-request-id": "req-413" },
      body: JSON.stringify({ ...IMAGE, prompt: "x".repeat(5000) }),
    });
    expect(big.status).toBe(413);
    const body = (await big.json()) as { error: { code: string; request_id: string } };
    expect(body.error).toMatchObject({ code: "request_too_large", request_id: "req-413" });
    expect(big.headers.get("x-request-id")).toBe("req-413");

    // The simulator's 6 KB PNG is above the 4 KB body limit of this hub: the storage PUT still takes it.
    const png = embeddedAssets()("image")!.bytes;
    expect(png.byteLength).toBeGreaterThan(4096);
    const uploaded = await client.upload(png, { contentType: "image/png" });
    expect(uploaded.reference).toBe(uploaded.ticket.reference);
    const proxied = await client.upload(png, { contentType: "image/png", via: "proxy" });
    expect(proxied.bytesStored).toBe(png.byteLength);
    // As from a browser, which never shows Content-Length to script: the hub sees the body's length.
    const ticket = await client.POST("/v1/uploads", { body: { kind: "image", content_type: "image/png", content_length: png.byteLength } });
    const put = await fetch(ticket.data.url, { method: "PUT", headers: { "content-type": "image/png", "if-none-match": "*" }, body: png as BodyInit });
    expect(put.status, await put.text()).toBe(200);
  });

  it("ENV-5: a refused request answers in the API's envelope, through the client's HubApiError", async () => {
    const error = await client.submit({ ...IMAGE, n_variants: 99 } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HubApiError);
    const refused = error as HubApiError;
    expect(refused.status).toBe(400);
    expect(refused.code).toBe("invalid_request");
    expect(refused.details?.[0]).toMatchObject({ field: "n_variants" });
    expect(refused.request_id).toMatch(/./);
    // Authorization given twice (fetch joins the values) never authenticates, as on the server.
    const twice = new Headers([["authorization", `Bearer ${KEY}`], ["authorization", "Bearer ghk_demo_other"]]);
    const repeated = await fetch(`${BASE}/v1/me`, { headers: twice });
    expect(repeated.status).toBe(400);
    expect(((await repeated.json()) as { error: unknown }).error).toMatchObject({ code: "invalid_request", details: [{ field: "Authorization", reason: "duplicate" }] });
    // Paths outside the contract, and paths that do not decode, are the hub's 404 too.
    for (const path of ["/v1/nothing-here", "/v1/generations/%E0%A4%A"]) {
      const res = await fetch(`${BASE}${path}`, { headers: { authorization: `Bearer ${KEY}` } });
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("not_found");
    }
  });

  it("every operation of the contract and every mount outside /v1 is answered by the hub, as the contract allows", async () => {
    expect(operations().length).toBeGreaterThan(0);
    for (const op of operations()) {
      const path = op.path.replace(/\{[^}]+\}/g, "x");
      const method = op.method.toUpperCase();
      const res = await fetch(`${BASE}${path}`, {
        method,
        redirect: "manual",
        ...(method === "GET" || method === "DELETE" ? {} : { headers: { "content-type": "application/json" }, body: "{}" }),
      });
      const text = await res.text();
      expect(checkAnswer(op, { status: res.status, headers: res.headers, body: text }), `${method} ${path} -> ${res.status} ${text.slice(0, 200)}`).toEqual([]);
    }
    const storage = await fetch(`${BASE}/storage/no-such-object`, { method: "PUT", body: new Uint8Array(3) });
    expect(storage.status).toBeGreaterThanOrEqual(400);
    expect((await fetch(`${BASE}/site/sign-in`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ account_id: "acc_demo" }) })).status).toBe(200);
    expect((await fetch(`${BASE}/_sim/state`)).status).toBe(200);
  });

  it("the OAuth side works in process: registration, the consent page, the code exchange (WebCrypto, a deferred answer), and the token reaches /v1", async () => {
    const clientId = await registered(site);
    const cookie = await signIn(site);
    const { verifier, challenge } = pkce();
    const page = await authorize(site, { client_id: clientId, challenge, scope: "me:read generations:read" }, cookie);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const back = await consent(site, cookie, page.text, "allow");
    expect(back.status).toBe(303);
    const code = new URL(back.location!).searchParams.get("code")!;
    const tokens = await token(site, { grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: clientId });
    expect(tokens.status, tokens.text).toBe(200);
    const viaToken = createHubClient({ baseUrl: BASE, token: () => tokens.json.access_token as string });
    expect((await viaToken.GET("/v1/me")).status).toBe(200);
  });
});

describe("control", () => {
  it("each method acts through the hub's control routes, as the API then shows", async () => {
    await control.setPlan("acc_demo", "free");
    expect(((await client.submit(IMAGE).catch((e: unknown) => e)) as HubApiError).code).toBe("payment_required");
    await control.setPlan("acc_demo", "pro");
    await control.setBalance("acc_demo", 0);
    expect(((await client.submit(VIDEO).catch((e: unknown) => e)) as HubApiError).code).toBe("insufficient_credits");
    expect((await control.account("acc_demo")).balance_cc).toBe(0);
    await control.updateAccount("acc_demo", { balance_cc: 100_000 });

    const { data } = await client.submit({ ...IMAGE, prompt: "forced" });
    expect((await control.forceOutcome(data.id, "fail", "timeout")).planned.at(-1)).toMatchObject({ status: "FAILED", reason: "timeout" });
    await control.advance(60);
    expect((await client.GET("/v1/generations/{id}", { params: { path: { id: data.id } } })).data).toMatchObject({ status: "FAILED", error: { reason: "timeout" } });

    const queued = await client.submit({ ...IMAGE, prompt: "to cancel" });
    expect(await control.cancelGeneration(queued.data.id)).toMatchObject({ status: "FAILED", deleted: true });
    const gone = await client.submit({ ...IMAGE, prompt: "to delete" });
    await control.deleteGeneration(gone.data.id);
    expect(((await client.GET("/v1/generations/{id}", { params: { path: { id: gone.data.id } } }).catch((e: unknown) => e)) as HubApiError).status).toBe(404);

    const key = await control.createKey({ scopes: ["models:read"] });
    expect((await control.keys()).map((k) => k.id)).toContain(key.id);
    const keyed = createHubClient({ baseUrl: BASE, apiKey: key.secret });
    expect((await keyed.GET("/v1/models")).status).toBe(200);
    await control.updateKey(key.id, { scopes: ["me:read"] });
    expect(((await keyed.GET("/v1/models").catch((e: unknown) => e)) as HubApiError).code).toBe("insufficient_scope");
    await control.expireKey(key.secret);
    expect(((await keyed.GET("/v1/me").catch((e: unknown) => e)) as HubApiError).code).toBe("api_key_expired");

    expect((await control.setClockSpeed(2)).speed).toBe(2);
    const session = await control.startSession();
    expect(session.cookie).toMatch(/=/);
    expect((await control.endSession(session.session_id)).ended).toBe(true);
    expect(await control.request("GET", "/_sim/clock")).toMatchObject({ speed: 2 });

    // reset: back to the start, the clock's starting speed too (frozen, the handlers' default).
    await control.reset();
    expect((await control.account("acc_demo")).balance_cc).toBe(500_000);
    expect((await control.clock()).speed).toBe(0);
  });

  it("scenarios through the methods: the shipped list, loading one by name or as a file (in force until a reset, which goes back to the starting one), exporting the state, a file that is not valid refused", async () => {
    try {
      const shipped = await control.scenarios();
      expect(shipped.data.map((s) => s.name)).toEqual(shippedNames);
      expect(shipped).toMatchObject({ loaded: "demo", starting: "demo" });
      expect((await control.state())).toMatchObject({ scenario: "demo", starting_scenario: "demo" });

      const loaded = await control.loadScenario("free-account");
      expect(loaded.name).toBe("free-account");
      expect(loaded.keys.map((k) => k.secret)).toContain(KEY);
      expect((await control.state()).scenario).toBe("free-account");
      expect(((await client.submit(IMAGE).catch((e: unknown) => e)) as HubApiError).code).toBe("payment_required");
      expect((await control.scenarios())).toMatchObject({ loaded: "free-account", starting: "demo" });
      await control.reset();
      expect((await control.state()).scenario).toBe("demo");
      expect((await client.submit(IMAGE)).status).toBe(202);

      // The demo with a balance changed, exported under a new name and loaded back as a file.
      await control.loadScenario("demo");
      await control.setBalance("acc_demo", 1234);
      const exported = await control.exportScenario({ name: "low-balance", description: "The demo with 1234 cc." });
      expect(exported).toMatchObject({ name: "low-balance", description: "The demo with 1234 cc." });
      // The route writes the file a slice at a time; it is the same document as the hub's own.
      expect(exported).toEqual(hub.exportScenario({ name: "low-balance", description: "The demo with 1234 cc." }));
      await control.reset();
      expect((await control.account("acc_demo")).balance_cc).toBe(500_000);
      expect((await control.loadScenario(exported)).name).toBe("low-balance");
      expect((await control.account("acc_demo")).balance_cc).toBe(1234);

      const refused = await control.loadScenario({ ...exported, accounts: "none" } as never).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ControlError);
      expect((refused as ControlError).body).toMatchObject({ error: { code: "invalid_request", details: [expect.objectContaining({ field: expect.stringMatching(/^accounts/) })] } });
      expect((await control.state()).scenario).toBe("low-balance");
      await expect(control.loadScenario("no-such-scenario")).rejects.toThrow(/400 invalid_request/);
    } finally {
      await control.loadScenario("demo");
    }
  });

  it("a refused control request rejects with ControlError carrying the status and the envelope", async () => {
    const error = await control.generation("gen_00000000000000000000000000").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ControlError);
    expect((error as ControlError).status).toBe(404);
    expect((error as ControlError).body).toMatchObject({ error: { code: "not_found" } });
    await expect(control.advance(-1)).rejects.toThrow(/400 invalid_request/);
  });
});

describe("options", () => {
  it("baseUrl must be an http(s) origin; the handlers answer only it", async () => {
    expect(() => createHubHandlers({ baseUrl: "hub.example" })).toThrow(TypeError);
    expect(() => createHubHandlers({ baseUrl: "https://hub.example/api" })).toThrow(/without a path/);
    const other = createHubHandlers({ baseUrl: "http://127.0.0.1:4999/" });
    expect(other.baseUrl).toBe("http://127.0.0.1:4999");
    server.use(...other.handlers);
    const res = await fetch("http://127.0.0.1:4999/v1/models", { headers: { authorization: `Bearer ${KEY}` } });
    expect(res.status).toBe(200);
    other.hub.shutdown();
  });

  it("the result files carried in the code are the files of src/simulator/assets/ (else run make-result-files.ts)", () => {
    const embedded = embeddedAssets();
    expect(Object.keys(RESULT_FILES)).not.toHaveLength(0);
    for (const [kind, file] of Object.entries(RESULT_FILES)) {
      const onDisk = new Uint8Array(readFileSync(fileURLToPath(new URL(`../../src/simulator/assets/${file.fileName}`, import.meta.url))));
      expect(embedded(kind), kind).toEqual({ ...file, bytes: onDisk });
    }
    expect(embedded("audio")).toBeUndefined();
  });
});
