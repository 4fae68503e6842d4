// Generations routes beyond the submit: list paging, batch status, read, title change,
// report, result files of each kind, and the selectable outcomes.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bound } from "../../src/contract/index.ts";
import { startSim, type Sim } from "./support/harness.ts";
import { upload } from "./support/uploads.ts";

let sim: Sim;
beforeAll(async () => {
  sim = await startSim({ rateLimits: { keyQuota: 10_000, accountQuota: 10_000, submitQuota: 10_000, concurrency: 10_000 } });
});
beforeEach(() => sim.hub.reset());
afterAll(() => sim.close());

const image = { type: "image", model: "image-model-b", prompt: "p" };
const video = { type: "video", model: "video-model-a", prompt: "v" };

async function submitMany(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    ids.push((await sim.submit(image)).json.id);
    if (i % 3 === 0) await sim.advance(1);
  }
  return ids;
}

describe("list", () => {
  it("PAGE-4: newest first by creation time then id; pages neither overlap nor lose anything", async () => {
    const made = await submitMany(23);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await sim.get(`/v1/generations?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(r.json.data.length).toBeLessThanOrEqual(5);
      seen.push(...r.json.data.map((g: { id: string }) => g.id));
      cursor = r.json.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(5);
    expect(seen).toEqual([...made].reverse());
    const all = (await sim.get("/v1/generations?limit=100")).json.data;
    const order = all.map((g: { created_at: string; id: string }) => `${g.created_at}|${g.id}`);
    expect(order).toEqual([...order].sort().reverse());
  });

  it("PAGE-3: the default page is 20; the last page answers next_cursor null", async () => {
    await submitMany(21);
    const first = await sim.get("/v1/generations");
    expect(first.json.data).toHaveLength(20);
    const second = await sim.get(`/v1/generations?cursor=${encodeURIComponent(first.json.next_cursor)}`);
    expect(second.json.data).toHaveLength(1);
    expect(second.json.next_cursor).toBeNull();
  });

  it("PAGE-4: a generation created between pages does not shift the next page", async () => {
    const made = await submitMany(6);
    const first = await sim.get("/v1/generations?limit=3");
    await sim.submit(image);
    const second = await sim.get(`/v1/generations?limit=3&cursor=${encodeURIComponent(first.json.next_cursor)}`);
    expect(second.json.data.map((g: { id: string }) => g.id)).toEqual(made.slice(0, 3).reverse());
  });

  it("PAGE-2: a cursor of a state before a reset answers invalid_cursor", async () => {
    await submitMany(3);
    const first = await sim.get("/v1/generations?limit=1");
    await sim.control("POST", "reset");
    const r = await sim.get(`/v1/generations?cursor=${encodeURIComponent(first.json.next_cursor)}`);
    expect(r.json.error.code).toBe("invalid_cursor");
  });
});

describe("batch status", () => {
  it("BATCH-1: up to 50 ids answer the same records, next_cursor null; unknown and foreign ids are left out", async () => {
    const [a, b] = await submitMany(2);
    const foreign = (await sim.submit(image, { key: "ghk_demo_other" })).json.id;
    const r = await sim.post("/v1/generations/status", { ids: [b, "gen_nope", a, foreign] });
    expect(r.status).toBe(200);
    expect(r.json.next_cursor).toBeNull();
    expect(r.json.data.map((g: { id: string }) => g.id)).toEqual([b, a]);
    expect(r.json.data[0]).toEqual((await sim.get(`/v1/generations/${b}`)).json);
  });

  it("BATCH-1: more than 50 ids answers 400 invalid_limit with details[0] ids/out_of_range, never trimmed", async () => {
    const max = bound("GenerationStatusRequest", "ids", "maxItems");
    const ok = await sim.post("/v1/generations/status", { ids: Array.from({ length: max }, (_, i) => `gen_${i}`) });
    expect(ok.status).toBe(200);
    const r = await sim.post("/v1/generations/status", { ids: Array.from({ length: max + 1 }, (_, i) => `gen_${i}`) });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe("invalid_limit");
    expect(r.json.error.details[0]).toMatchObject({ field: "ids", reason: "out_of_range" });
    const bad = await sim.post("/v1/generations/status", { ids: "x" });
    expect(bad.json.error).toMatchObject({ code: "invalid_request", details: [{ field: "ids", reason: "wrong_type" }] });
  });

  it("BATCH-1: the batch read needs generations:read, not write", async () => {
    expect((await sim.post("/v1/generations/status", { ids: [] }, { key: "ghk_demo_readonly" })).status).toBe(200);
  });
});

describe("title change", () => {
  it("GEN-8 GEN-10: a string title in any JSON object becomes the record's title; 200 with the record; no credits", async () => {
    const id = (await sim.submit(video)).json.id;
    const before = (await sim.get("/v1/me")).json.credits.main_cc;
    const r = await sim.call("PATCH", `/v1/generations/${id}`, { body: { title: "Lighthouse", extra: true } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id, title: "Lighthouse" });
    expect((await sim.get(`/v1/generations/${id}`)).json.title).toBe("Lighthouse");
    const ignored = await sim.call("PATCH", `/v1/generations/${id}`, { body: { name: "other" } });
    expect(ignored.json.title).toBe("Lighthouse");
    expect((await sim.call("PATCH", `/v1/generations/${id}`, { body: ["x"] })).status).toBe(400);
    expect((await sim.get("/v1/me")).json.credits.main_cc).toBe(before);
  });
});

describe("report", () => {
  it("REP-1 REP-5: a failure report of a charged generation answers 201 with ids and moves no money", async () => {
    const id = (await sim.submit(video)).json.id;
    await sim.advance(60);
    const before = (await sim.get("/v1/me")).json.credits.main_cc;
    const r = await sim.post(`/v1/generations/${id}/report`, { text: "It stops after two seconds." });
    expect(r.status).toBe(201);
    expect(Object.keys(r.json).sort()).toEqual(["message_id", "support_request_id"]);
    expect((await sim.get("/v1/me")).json.credits.main_cc).toBe(before);
  });

  it("REP-4: a replay by client_msg_id returns the same report; another text answers 409 report_replay_mismatch", async () => {
    const id = (await sim.submit(video)).json.id;
    const body = { text: "bad", client_msg_id: "6f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e" };
    const first = await sim.post(`/v1/generations/${id}/report`, body);
    const again = await sim.post(`/v1/generations/${id}/report`, body);
    expect(again.status).toBe(201);
    expect(again.json).toEqual(first.json);
    const other = await sim.post(`/v1/generations/${id}/report`, { ...body, reason: "moderation" });
    expect(other.status).toBe(409);
    expect(other.json.error.code).toBe("report_replay_mismatch");
  });

  it("REP-6: a new failure report with nothing unsettled answers 422; a moderation report does not", async () => {
    const refunded = (await sim.submit({ ...video, prompt: "[sim:fail]" })).json.id;
    const free = (await sim.submit({ type: "image", model: "image-model-a" })).json.id;
    await sim.advance(60);
    for (const id of [refunded, free]) {
      const r = await sim.post(`/v1/generations/${id}/report`, { text: "bad" });
      expect(r.status).toBe(422);
      expect(r.json.error.code).toBe("generation_already_settled");
    }
    expect((await sim.post(`/v1/generations/${free}/report`, { text: "bad", reason: "moderation" })).status).toBe(201);
  });

  it("REP-3: a moderation report revokes the generation, except one held for review", async () => {
    const plain = (await sim.submit(video)).json.id;
    const held = (await sim.submit({ ...video, prompt: "[sim:hold]" })).json.id;
    await sim.advance(6);
    expect((await sim.get(`/v1/generations/${held}`)).json.status).toBe("MODERATION_PENDING");
    const s = await sim.open();
    expect((await sim.post(`/v1/generations/${plain}/report`, { text: "x", reason: "moderation" })).status).toBe(201);
    expect((await sim.post(`/v1/generations/${held}/report`, { text: "x", reason: "moderation" })).status).toBe(201);
    expect((await sim.get(`/v1/generations/${plain}`)).status).toBe(404);
    expect((await sim.get(`/v1/generations/${held}`)).status).toBe(200);
    await s.untilFrames(1);
    expect(s.frames[0]!.data).toMatchObject({ id: plain, deleted: true });
    s.drop();
  });

  it("REP-2: the body is validated (text required, at most 2000 characters)", async () => {
    const id = (await sim.submit(video)).json.id;
    const r = await sim.post(`/v1/generations/${id}/report`, { text: "x".repeat(2001), reason: "other" });
    expect(r.status).toBe(400);
    expect(r.json.error.details.map((d: { field: string; reason: string }) => `${d.field}:${d.reason}`).sort()).toEqual(["reason:not_allowed", "text:out_of_range"]);
  });
});

describe("outcomes", () => {
  async function walk(prompt: string, seconds: number): Promise<string[]> {
    const s = await sim.open();
    const id = (await sim.submit({ ...video, prompt })).json.id;
    await sim.advance(seconds);
    await s.until((x) => x.frames.length > 0 && !["QUEUED", "PENDING", "RUNNING", "MODERATION_PENDING"].includes(x.frames.at(-1)!.data.status));
    s.drop();
    return s.frames.filter((f) => f.data.id === id).map((f) => f.data.status);
  }

  it("GEN-7: [sim:fail=<reason>] fails with that error.reason", async () => {
    const id = (await sim.submit({ ...video, prompt: "x [sim:fail=no_content]" })).json.id;
    await sim.advance(60);
    expect((await sim.get(`/v1/generations/${id}`)).json).toMatchObject({ status: "FAILED", error: { reason: "no_content" }, output_urls: [] });
  });

  it("ST-5: [sim:hold] passes through MODERATION_PENDING to DONE; [sim:hold=block] to FAILED moderation_block", async () => {
    expect(await walk("[sim:hold]", 60)).toEqual(["QUEUED", "PENDING", "RUNNING", "MODERATION_PENDING", "DONE"]);
    const id = (await sim.submit({ ...video, prompt: "[sim:hold=block]" })).json.id;
    await sim.advance(60);
    expect((await sim.get(`/v1/generations/${id}`)).json.error.reason).toBe("moderation_block");
  });

  it("[sim:slow] stays RUNNING for minutes before DONE", async () => {
    const id = (await sim.submit({ ...video, prompt: "[sim:slow]" })).json.id;
    await sim.advance(120);
    expect((await sim.get(`/v1/generations/${id}`)).json.status).toBe("RUNNING");
    await sim.advance(300);
    expect((await sim.get(`/v1/generations/${id}`)).json.status).toBe("DONE");
  });

  it("an outcome forced through the control interface replaces the rest of the plan", async () => {
    const id = (await sim.submit(video)).json.id;
    await sim.advance(2.5);
    const forced = await sim.control("POST", `generations/${id}/outcome`, { outcome: "fail", reason: "invalid_input" });
    expect(forced.json.planned).toEqual([{ status: "FAILED", reason: "invalid_input", after_seconds: 8 }]);
    await sim.advance(60);
    expect((await sim.get(`/v1/generations/${id}`)).json.error.reason).toBe("invalid_input");
    // A late result for the failed attempt.
    await sim.control("POST", `generations/${id}/outcome`, { outcome: "done" });
    await sim.advance(0);
    expect((await sim.get(`/v1/generations/${id}`)).json).toMatchObject({ status: "DONE", refunded: true });
    const conflict = await sim.control("POST", `generations/${id}/outcome`, { outcome: "fail" });
    expect(conflict.json.error.code).toBe("resource_conflict");
  });
});

describe("result files", () => {
  it("GEN-5: each kind is a small real file of its own type", async () => {
    const reference = await upload(sim);
    const kinds = [
      [{ type: "image", model: "image-model-a" }, "image/png"],
      [video, "video/mp4"],
      [{ type: "model_3d", prompt: "teapot" }, "model/gltf-binary"],
      [{ type: "upscale", image_url: reference, scale: 2 }, "image/png"],
    ] as const;
    const ids = [];
    for (const [body] of kinds) ids.push((await sim.submit(body)).json.id);
    await sim.advance(60);
    for (let i = 0; i < kinds.length; i++) {
      const rec = (await sim.get(`/v1/generations/${ids[i]}`)).json;
      const file = await sim.get(new URL(rec.output_urls[0]).pathname);
      expect(file.status).toBe(200);
      expect(file.headers.get("content-type")).toBe(kinds[i]![1]);
      expect(file.bytes.length).toBeGreaterThan(100);
      expect(file.bytes.length).toBeLessThan(20_000);
      const b = Buffer.from(file.bytes);
      if (kinds[i]![1] === "video/mp4") {
        // Top-level boxes tile the file: ftyp, moov (before the data), mdat.
        const boxes: string[] = [];
        for (let at = 0; at < b.length; at += b.readUInt32BE(at)) boxes.push(b.toString("latin1", at + 4, at + 8));
        expect(boxes).toEqual(["ftyp", "moov", "mdat"]);
        expect(b.includes(Buffer.from("avcC"))).toBe(true);
      }
      if (kinds[i]![1] === "model/gltf-binary") {
        expect(b.toString("latin1", 0, 4)).toBe("glTF");
        expect(b.readUInt32LE(4)).toBe(2);
        expect(b.readUInt32LE(8)).toBe(b.length);
        const jsonLength = b.readUInt32LE(12);
        const gltf = JSON.parse(b.toString("utf8", 20, 20 + jsonLength));
        expect(gltf.asset.version).toBe("2.0");
        expect(b.readUInt32LE(20 + jsonLength)).toBe(gltf.buffers[0].byteLength);
      }
    }
  });

  it("GEN-5: a link that is not one of the record's answers 404 (wrong kind, index out of range, not DONE)", async () => {
    const id = (await sim.submit(video)).json.id;
    expect((await sim.get(`/v1/generations/${id}/outputs/video/0`)).status).toBe(404);
    await sim.advance(60);
    for (const tail of ["image/0", "video/1", "video/01", "video/-1", "video/x"]) {
      expect((await sim.get(`/v1/generations/${id}/outputs/${tail}`)).status, tail).toBe(404);
    }
    expect((await sim.get(`/v1/generations/${id}/outputs/video/0`)).status).toBe(200);
  });
});
