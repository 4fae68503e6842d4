// The support thread: read whole (an empty list when there is nothing; reading marks it
// read), sending with idempotent retry by `client_msg_id`, up to 3 upload references,
// and generation reports shown as the messages they created.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bound } from "../../src/contract/index.ts";
import { OTHER, startSim, type Sim } from "./support/harness.ts";
import { upload } from "./support/uploads.ts";

let sim: Sim;
beforeAll(async () => {
  sim = await startSim({ rateLimits: { keyQuota: 100_000, accountQuota: 100_000, submitQuota: 100_000, concurrency: 100_000 } });
});
beforeEach(() => sim.hub.reset());
afterAll(() => sim.close());

const thread = async (key?: string) => (await sim.get("/v1/support/messages", { key })).json;
const send = (body: Record<string, unknown>, key?: string) => sim.post("/v1/support/messages", body, { key });
const details = (r: { json: any }) => r.json.error.details.map((d: { field: string; reason: string }) => `${d.field}:${d.reason}`);

describe("the thread", () => {
  it("W-7 SUP-2: without messages the thread is an empty list with next_cursor null, never 404", async () => {
    const r = await sim.get("/v1/support/messages");
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ data: [], next_cursor: null });
  });

  it("SUP-2: reading marks the thread read: an answer of support comes unread once, then read", async () => {
    await send({ text: "Hello", client_msg_id: randomUUID() });
    await sim.advance(5);
    const posted = await sim.control("POST", "accounts/acc_demo/support", { text: "Thanks, we are looking into it." });
    expect(posted.status).toBe(201);
    const first = await thread();
    expect(first.data.map((m: { from: string; unread: boolean }) => [m.from, m.unread])).toEqual([["user", false], ["support", true]]);
    expect(first.data[1].text).toBe("Thanks, we are looking into it.");
    const second = await thread();
    expect(second.data.map((m: { unread: boolean }) => m.unread)).toEqual([false, false]);
    expect((await thread(OTHER)).data).toEqual([]);
  });

  it("SUP-2: with demo data the demo account starts with one unread answer of support", async () => {
    const demo = await startSim({ demoData: true });
    try {
      const r = (await demo.get("/v1/support/messages")).json;
      expect(r.data).toHaveLength(1);
      expect(r.data[0]).toMatchObject({ from: "support", unread: true });
      expect((await demo.get("/v1/support/messages")).json.data[0].unread).toBe(false);
    } finally {
      await demo.close();
    }
  });
});

describe("sending", () => {
  it("SUP-1 SUP-3: a message answers 201 with from user, the text exactly as written, its images and client_msg_id; the thread lists it", async () => {
    const refs = [await upload(sim), await upload(sim), await upload(sim)];
    const id = randomUUID();
    const text = "  Кадр на 2-й секунде 🎞️\n\tstops here.  ";
    const r = await send({ text, images: refs, client_msg_id: id });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ from: "user", text, images: refs, client_msg_id: id });
    expect((await thread()).data).toEqual([r.json]);
  });

  it("SUP-3: a replay returns the message already sent; another text or number of images answers 409 support_replay_mismatch", async () => {
    const [a, b] = [await upload(sim), await upload(sim)];
    const id = randomUUID();
    const first = await send({ text: "It stops", images: [a], client_msg_id: id });
    const again = await send({ text: "It stops", images: [a], client_msg_id: id.toUpperCase() });
    expect(again.status).toBe(201);
    expect(again.json).toEqual(first.json);
    // Only the text and the number of images are compared.
    expect((await send({ text: "It stops", images: [b], client_msg_id: id })).json).toEqual(first.json);
    for (const body of [{ text: "It stops!", images: [a] }, { text: "It stops", images: [a, b] }, { text: "It stops" }]) {
      const r = await send({ ...body, client_msg_id: id });
      expect(r.status, JSON.stringify(body)).toBe(409);
      expect(r.json.error.code).toBe("support_replay_mismatch");
    }
    expect((await thread()).data).toHaveLength(1);
    // client_msg_id is the caller's own: another account may use the same one.
    expect((await send({ text: "Other", client_msg_id: id }, OTHER)).json.text).toBe("Other");
  });

  it("SUP-3 LIM-7: up to 3 images, each an upload reference of this account (not a link)", async () => {
    const max = bound("SupportMessageRequest", "images", "maxItems");
    expect(max).toBe(3);
    const mine = await upload(sim);
    const foreign = await upload(sim, undefined, { key: OTHER });
    const four = await send({ text: "x", images: [mine, mine, mine, mine], client_msg_id: randomUUID() });
    expect(details(four)).toEqual(["images:out_of_range"]);
    const content = `${sim.url}/v1/library/assets/x/content`;
    const bad = await send({ text: "x", images: [content, "upl_01NOSUCHUPLOAD00000000000", foreign], client_msg_id: randomUUID() });
    expect(details(bad)).toEqual(["images.0:not_allowed", "images.1:reference_unavailable", "images.2:foreign_reference"]);
    expect((await thread()).data).toEqual([]);
  });

  it("SUP-3: the body is checked (text and a UUID client_msg_id required); sending spends no credits; a read-only key may read but not send", async () => {
    expect(details(await send({ text: "x" }))).toEqual(["client_msg_id:required"]);
    expect(details(await send({ text: "x", client_msg_id: "not-a-uuid" }))).toEqual(["client_msg_id:bad_format"]);
    expect(details(await send({ client_msg_id: randomUUID() }))).toEqual(["text:required"]);
    expect(details(await send({ text: "   ", client_msg_id: randomUUID() }))).toEqual(["text:required"]);
    const before = (await sim.get("/v1/me")).json.credits.main_cc;
    expect((await send({ text: "hello", client_msg_id: randomUUID() })).status).toBe(201);
    expect((await sim.get("/v1/me")).json.credits.main_cc).toBe(before);
    expect((await sim.get("/v1/support/messages", { key: "ghk_demo_readonly" })).status).toBe(200);
    expect((await send({ text: "x", client_msg_id: randomUUID() }, "ghk_demo_readonly")).json.error.code).toBe("insufficient_scope");
  });
});

describe("reports in the thread", () => {
  it("REP-1: a report is the user message it created: message_id, its generation and support request, in time order", async () => {
    const gen = (await sim.submit({ type: "video", model: "video-model-a", prompt: "v" })).json.id;
    await sim.advance(30);
    await send({ text: "Before", client_msg_id: randomUUID() });
    await sim.advance(1);
    const body = { text: "The result is blank.", client_msg_id: randomUUID() };
    const report = await sim.post(`/v1/generations/${gen}/report`, body);
    expect(report.status).toBe(201);
    const data = (await thread()).data;
    expect(data.map((m: { text: string }) => m.text)).toEqual(["Before", "The result is blank."]);
    expect(data[1]).toMatchObject({ id: report.json.message_id, from: "user", generation_id: gen, support_request_id: report.json.support_request_id, report_reason: "failure" });
    // A replay of the report adds nothing; the thread is the account's own.
    expect((await sim.post(`/v1/generations/${gen}/report`, body)).json).toEqual(report.json);
    expect((await thread()).data).toHaveLength(2);
    expect((await thread(OTHER)).data).toEqual([]);
  });
});
