// A client's ordinary traffic, written with the typed client as an app would use it: the
// account and the catalog (its ETag revalidated), price estimates, submits (one replayed,
// one sent again with another body by mistake), the event stream read across a resume, the
// generations paged, read one by one and in a batch, a result file downloaded, uploads and
// the library paged, the library's folders (one name given twice), support messages (one
// replayed), the balance, the ledger paged and the subscription, knowledge articles, a
// report; and requests it gets wrong on purpose, as an e2e suite's negative cases do (a
// limit out of range, a bad cursor, a submit without its prompt or with an unknown field,
// no credential or an unknown key, a missing generation, a Russian refusal, 51 ids).
// Every step goes on whatever the server answers: the journey judges nothing, the passive
// proxy in front of it does. `advance` moves the server's clock (the test's harness, beside
// the traffic).
import { randomUUID } from "node:crypto";
import { createHubClient, HubError, type HubClient } from "../../../src/client/index.ts";

/** 8×8 transparent PNG. */
const PNG = Uint8Array.from(Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAgAAAAIAQMAAAD+wSzIAAAABlBMVEX///+/v7+jQ3Y5AAAADklEQVQI12P4AAIMEwYAAHIAE7JcaSUAAAAASUVORK5CYII=", "base64"));

export interface JourneyOptions {
  baseUrl: string;
  apiKey?: string;
  /** Moves the server's clock by that many seconds (outside the traffic judged). */
  advance: (seconds: number) => Promise<void>;
  /** The fetch every request goes with (a recorder's, for a HAR of the traffic); default the global one. */
  fetch?: typeof fetch;
}

/** What the journey did, step by step: `ok` or why a step stopped (a broken server may make one throw). */
export type JourneyLog = { step: string; outcome: string }[];

export async function clientJourney(o: JourneyOptions): Promise<JourneyLog> {
  const key = o.apiKey ?? "ghk_demo_full";
  const send = o.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const hub = createHubClient({ baseUrl: o.baseUrl, apiKey: key, maxRetries: 0, fetch: (request) => send(request) });
  const log: JourneyLog = [];
  const step = async (name: string, run: () => Promise<unknown>) => {
    try {
      await run();
      log.push({ step: name, outcome: "ok" });
    } catch (error) {
      log.push({ step: name, outcome: error instanceof HubError ? `${error.name}: ${error.message}` : String(error) });
    }
  };
  const raw = (path: string, init: RequestInit = {}) => send(o.baseUrl + path, { ...init, headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) } }).then(async (r) => ({ status: r.status, body: await r.text(), headers: r.headers }));

  await step("who am I, the account", async () => {
    await hub.GET("/v1/whoami");
    await hub.GET("/v1/me");
  });
  await step("the catalog, revalidated by its ETag", async () => {
    const first = await raw("/v1/models");
    const etag = first.headers.get("etag");
    if (etag) await raw("/v1/models", { headers: { "if-none-match": etag } });
    await hub.GET("/v1/models", { params: { query: { type: "image" } } });
  });
  await step("knowledge", async () => {
    await hub.GET("/v1/knowledge", { params: { query: { q: "video", limit: 5 } } });
  });
  const image = { type: "image" as const, model: "image-model-a", prompt: "a lighthouse at dusk" };
  const clip = { type: "video" as const, model: "video-model-a", prompt: "a cat on a boat" };
  await step("price estimates", async () => {
    await hub.POST("/v1/pricing/estimate", { body: image });
    await hub.POST("/v1/pricing/estimate", { body: clip });
  });

  // The event stream, open while the generations run.
  const events = hub.events({ reconnectDelay: 50 });
  let lastEventId: string | undefined;
  const statuses: string[] = [];
  const reading = (async () => {
    for await (const e of events) {
      lastEventId = events.lastEventId;
      if (e.event === "generation.status_changed") statuses.push(e.data.status);
      if (statuses.length >= 4) break;
    }
  })().catch(() => undefined);

  const ids: string[] = [];
  const idempotencyKey = randomUUID();
  await step("a submit, and its replay", async () => {
    ids.push((await hub.submit(image, { idempotencyKey })).data.id);
    await hub.submit(image, { idempotencyKey });
  });
  await step("the same key with another body (the app's mistake)", () => hub.submit({ ...image, prompt: "another prompt" }, { idempotencyKey }));
  await step("a second submit", async () => {
    ids.push((await hub.submit(clip)).data.id);
  });
  await o.advance(60);
  await Promise.race([reading, new Promise((r) => setTimeout(r, 2_000))]);
  events.close();

  await step("the stream resumed after its last id", async () => {
    await hub.submit({ ...image, prompt: "after the stream closed" });
    await o.advance(60);
    const resumed = hub.events({ lastEventId, reconnectDelay: 50 });
    const after = (async () => {
      let n = 0;
      for await (const _ of resumed) if (++n >= 2) break;
    })().catch(() => undefined);
    await Promise.race([after, new Promise((r) => setTimeout(r, 1_500))]);
    resumed.close();
  });

  await step("the generations, page by page", async () => {
    let pages = 0;
    for await (const page of hub.paginate("/v1/generations", { params: { query: { limit: 2 } } }).pages()) if (++pages >= 3 || page.data.next_cursor === null) break;
  });
  await step("each generation, then all in one batch", async () => {
    for (const id of ids) await hub.GET("/v1/generations/{id}", { params: { path: { id } } });
    await hub.statuses(ids);
  });
  await step("a result file", async () => {
    const { data } = await hub.GET("/v1/generations/{id}", { params: { path: { id: ids[0]! } } });
    const link = data.output_urls?.[0];
    if (link) await send(link, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.arrayBuffer());
  });
  await step("the balance, the ledger page by page, and the subscription", async () => {
    await hub.GET("/v1/me");
    let pages = 0;
    for await (const page of hub.paginate("/v1/billing/transactions", { params: { query: { limit: 1 } } }).pages()) if (++pages >= 3 || page.data.next_cursor === null) break;
    await hub.GET("/v1/billing/subscription");
  });
  await step("an upload, then the library", async () => {
    await hub.upload(PNG, { contentType: "image/png" });
    await hub.upload(PNG, { contentType: "image/png", via: "proxy" });
    let pages = 0;
    for await (const page of hub.paginate("/v1/library/assets", { params: { query: { limit: 1 } } }).pages()) if (++pages >= 3 || page.data.next_cursor === null) break;
  });
  await step("a folder: made, made again under its name (refused), listed, renamed, deleted", async () => {
    const name = `Journey ${randomUUID().slice(0, 8)}`;
    const made = (await raw("/v1/library/folders", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name }) })).body;
    await raw("/v1/library/folders", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name }) });
    const id = (JSON.parse(made) as { id?: string }).id;
    await hub.GET("/v1/library/folders");
    if (id) {
      await raw(`/v1/library/folders/${id}`, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: `Renamed ${randomUUID().slice(0, 8)}` }) });
      await raw(`/v1/library/folders/${id}`, { method: "DELETE" });
    }
  });
  await step("support: a message, its replay, the thread", async () => {
    const message = { text: "Hello, my render looks wrong.\nCan you check?", client_msg_id: randomUUID() };
    await hub.POST("/v1/support/messages", { body: message });
    await hub.POST("/v1/support/messages", { body: message });
    await hub.GET("/v1/support/messages");
  });
  await step("a report on the first generation", async () => {
    if (ids[0]) await hub.POST("/v1/generations/{id}/report", { params: { path: { id: ids[0] } }, body: { text: "The output is blank.", reason: "failure", client_msg_id: randomUUID() } });
  });

  // Requests the app gets wrong, on purpose: the server's refusals are judged, not the app.
  await step("a limit out of range", () => raw("/v1/generations?limit=0"));
  await step("a cursor that was never issued", () => raw("/v1/generations?cursor=not-a-cursor"));
  await step("a submit without its prompt", () => raw("/v1/generations", { method: "POST", headers: { "content-type": "application/json", "idempotency-key": randomUUID() }, body: JSON.stringify({ type: "image", model: "image-model-a" }) }));
  await step("a submit with a field no variant has", () => raw("/v1/generations", { method: "POST", headers: { "content-type": "application/json", "idempotency-key": randomUUID() }, body: JSON.stringify({ ...image, colour: "red" }) }));
  await step("a body that is not JSON", () => raw("/v1/pricing/estimate", { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" }));
  await step("no credential", () => send(`${o.baseUrl}/v1/me`).then((r) => r.text()));
  await step("a key that does not exist", () => send(`${o.baseUrl}/v1/me`, { headers: { authorization: "Bearer ghk_no_such_key" } }).then((r) => r.text()));
  await step("a generation that does not exist", () => raw("/v1/generations/gen_00000000000000000000000000"));
  await step("a refusal asked for in Russian", () => raw("/v1/generations?limit=500", { headers: { "accept-language": "ru" } }));
  await step("an event stream of an unknown type", () => raw("/v1/events?types=hologram", { headers: { accept: "text/event-stream" } }));
  await step("a batch of 51 ids", () => raw("/v1/generations/status", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ids: Array.from({ length: 51 }, (_, i) => `gen_${String(i).padStart(26, "0")}`) }) }));
  return log;
}

/** The client of the journey, for a test that wants one more call through the same proxy. */
export function journeyClient(baseUrl: string, apiKey = "ghk_demo_full"): HubClient {
  return createHubClient({ baseUrl, apiKey, maxRetries: 0 });
}
