// Cross-account isolation: on every route that takes an id, another account's id answers
// exactly as an id that does not exist (same status, same code, same body apart from
// `request_id`), and the other account's object is left as it was.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FULL, OTHER, startSim, type Reply, type Sim } from "./support/harness.ts";
import { PNG, ticket, upload } from "./support/uploads.ts";

let sim: Sim;
beforeAll(async () => {
  sim = await startSim({ rateLimits: { keyQuota: 100_000, accountQuota: 100_000, submitQuota: 100_000, concurrency: 100_000 } });
});
beforeEach(() => sim.hub.reset());
afterAll(() => sim.close());

/** Ids of the simulator's shape that no account holds. */
const MISSING = {
  gen: "gen_01NOSUCHGENERATION0000000",
  ast: "ast_01NOSUCHASSET00000000000",
  fld: "fld_01NOSUCHFOLDER0000000000",
  upl: "upl_01NOSUCHUPLOAD0000000000",
};

/** The other account's objects: a DONE image, a charged DONE video, an asset, a folder, an unwritten ticket. */
async function theirs() {
  const image = (await sim.submit({ type: "image", model: "image-model-b", prompt: "theirs" }, { key: OTHER })).json.id as string;
  const video = (await sim.submit({ type: "video", model: "video-model-a", prompt: "theirs" }, { key: OTHER })).json.id as string;
  await sim.advance(30);
  const reference = await upload(sim, PNG, { key: OTHER });
  const asset = (await sim.get("/v1/library/assets", { key: OTHER })).json.data.find((a: { reference: string }) => a.reference === reference).id as string;
  const folder = (await sim.post("/v1/library/folders", { name: "Theirs" }, { key: OTHER })).json.id as string;
  const open = (await ticket(sim, "image/png", PNG.length, OTHER)).json.reference as string;
  return { image, video, asset, folder, open };
}

function sameAnswer(label: string, foreign: Reply, missing: Reply): void {
  expect(foreign.status, `${label}: ${foreign.text}`).toBe(missing.status);
  expect(foreign.status, label).toBeGreaterThanOrEqual(400);
  expect(foreign.json.error.code, label).toBe(missing.json.error.code);
  const strip = (r: Reply) => ({ ...r.json, error: { ...r.json.error, request_id: "" } });
  expect(strip(foreign), label).toEqual(strip(missing));
}

describe("another account's id answers exactly like a missing one", () => {
  it("W-8 GEN-9 REP-7 GEN-5 LIB-7 UPL-8: on every route that takes an id", async () => {
    const t = await theirs();
    type Call = [string, string, Record<string, unknown>?];
    const pairs: [string, Call, Call][] = [
      ["read generation", ["GET", `/v1/generations/${t.image}`], ["GET", `/v1/generations/${MISSING.gen}`]],
      ["title of generation", ["PATCH", `/v1/generations/${t.image}`, { title: "mine now" }], ["PATCH", `/v1/generations/${MISSING.gen}`, { title: "mine now" }]],
      ["result file", ["GET", `/v1/generations/${t.image}/outputs/image/0`], ["GET", `/v1/generations/${MISSING.gen}/outputs/image/0`]],
      ["failure report", ["POST", `/v1/generations/${t.video}/report`, { text: "x" }], ["POST", `/v1/generations/${MISSING.gen}/report`, { text: "x" }]],
      ["moderation report", ["POST", `/v1/generations/${t.video}/report`, { text: "x", reason: "moderation", client_msg_id: randomUUID() }], ["POST", `/v1/generations/${MISSING.gen}/report`, { text: "x", reason: "moderation", client_msg_id: randomUUID() }]],
      ["asset content", ["GET", `/v1/library/assets/${t.asset}/content`], ["GET", `/v1/library/assets/${MISSING.ast}/content`]],
      ["asset title", ["PATCH", `/v1/library/assets/${t.asset}`, { title: "mine now" }], ["PATCH", `/v1/library/assets/${MISSING.ast}`, { title: "mine now" }]],
      ["folder change", ["PATCH", `/v1/library/folders/${t.folder}`, { name: "Mine" }], ["PATCH", `/v1/library/folders/${MISSING.fld}`, { name: "Mine" }]],
      ["folder delete", ["DELETE", `/v1/library/folders/${t.folder}`], ["DELETE", `/v1/library/folders/${MISSING.fld}`]],
      ["move their item", ["POST", "/v1/library/move", { item_ids: [t.asset], folder_id: null }], ["POST", "/v1/library/move", { item_ids: [MISSING.ast], folder_id: null }]],
      ["move into their folder", ["POST", "/v1/library/move", { item_ids: [], folder_id: t.folder }], ["POST", "/v1/library/move", { item_ids: [], folder_id: MISSING.fld }]],
    ];
    for (const [label, [m1, p1, b1], [m2, p2, b2]] of pairs) {
      const foreign = await sim.call(m1, p1, { key: FULL, body: b1 });
      const missing = await sim.call(m2, p2, { key: FULL, body: b2 });
      sameAnswer(label, foreign, missing);
      expect(foreign.status, label).toBe(404);
    }
    const put = (ref: string) => sim.call("PUT", `/v1/uploads/content?ticket=${ref}`, { raw: PNG, headers: { "content-type": "image/png" } });
    sameAnswer("proxy completion", await put(t.open), await put(MISSING.upl));

    // The batch read leaves another account's ids out like unknown ones.
    const batch = await sim.post("/v1/generations/status", { ids: [t.image, MISSING.gen] });
    expect(batch.json.data).toEqual([]);

    // Nothing of theirs changed.
    const image = (await sim.get(`/v1/generations/${t.image}`, { key: OTHER })).json;
    expect(image.title).toBe("theirs");
    expect((await sim.get(`/v1/generations/${t.video}`, { key: OTHER })).status).toBe(200);
    const [asset] = (await sim.get("/v1/library/assets", { key: OTHER })).json.data;
    expect(asset).toMatchObject({ id: t.asset, title: "Untitled image", folder_id: null });
    expect((await sim.get("/v1/library/folders", { key: OTHER })).json.data.map((f: { id: string; name: string }) => [f.id, f.name])).toEqual([[t.folder, "Theirs"]]);
    expect((await sim.get("/v1/support/messages", { key: OTHER })).json.data).toEqual([]);
    expect((await sim.get("/v1/support/messages")).json.data).toEqual([]);
    const open = await sim.call("PUT", `/v1/uploads/content?ticket=${t.open}`, { key: OTHER, raw: PNG, headers: { "content-type": "image/png" } });
    expect(open.status).toBe(200);
  });

  it("W-8: lists and reads never show another account's records", async () => {
    await theirs();
    expect((await sim.get("/v1/generations")).json.data).toEqual([]);
    expect((await sim.get("/v1/library/assets")).json.data).toEqual([]);
    expect((await sim.get("/v1/library/folders")).json.data).toEqual([]);
    expect((await sim.get("/v1/billing/transactions")).json.data.map((r: { generation_id: string | null }) => r.generation_id)).toEqual([null]);
  });
});
