// The library: uploaded assets (newest first, paged; content; title), folders (all at
// once, create, rename and reorder, the per-account limit and name conflicts, delete the
// folder only) and the move. No credits move; every answer is checked against the
// contract by the harness.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_FOLDER_LIMIT } from "../../src/simulator/state/options.ts";
import { FULL, OTHER, startSim, type Sim } from "./support/harness.ts";
import { fixture, PNG, upload } from "./support/uploads.ts";

let sim: Sim;
const LIMIT = 4;
beforeAll(async () => {
  sim = await startSim({ folderLimit: LIMIT, rateLimits: { keyQuota: 100_000, accountQuota: 100_000 } });
});
beforeEach(() => sim.hub.reset());
afterAll(() => sim.close());

const folders = async (key = FULL) => (await sim.get("/v1/library/folders", { key })).json.data as Record<string, any>[];
const assets = async () => (await sim.get("/v1/library/assets?limit=100")).json.data as Record<string, any>[];
const balance = async () => (await sim.get("/v1/me")).json.credits.main_cc as number;
const create = (name: string, key = FULL) => sim.post("/v1/library/folders", { name }, { key });

/** Uploads `n` images, the clock moving now and then, and answers the asset ids in upload order. */
async function uploadMany(n: number): Promise<string[]> {
  const refs: string[] = [];
  for (let i = 0; i < n; i++) {
    refs.push(await upload(sim));
    if (i % 3 === 0) await sim.advance(1);
  }
  const byRef = new Map((await assets()).map((a) => [a.reference, a.id]));
  return refs.map((r) => byRef.get(r)!);
}

describe("assets", () => {
  it("PAGE-4 PAGE-3 LIB-1: newest first by creation time, then id; pages neither overlap nor lose anything", async () => {
    const made = await uploadMany(12);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await sim.get(`/v1/library/assets?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(r.json.data.length).toBeLessThanOrEqual(5);
      seen.push(...r.json.data.map((a: { id: string }) => a.id));
      cursor = r.json.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...made].reverse());
    const all = await assets();
    const order = all.map((a) => `${a.created_at}|${a.id}`);
    expect(order).toEqual([...order].sort().reverse());
  });

  it("PAGE-4: an upload between pages does not shift the next page; PAGE-2 PAGE-3: bad cursor and limit are refused", async () => {
    const made = await uploadMany(4);
    const first = await sim.get("/v1/library/assets?limit=2");
    await upload(sim);
    const second = await sim.get(`/v1/library/assets?limit=2&cursor=${encodeURIComponent(first.json.next_cursor)}`);
    expect(second.json.data.map((a: { id: string }) => a.id)).toEqual(made.slice(0, 2).reverse());
    expect(second.json.next_cursor).toBeNull();
    expect((await sim.get("/v1/library/assets?limit=0")).json.error.code).toBe("invalid_limit");
    expect((await sim.get("/v1/library/assets?limit=101")).json.error.code).toBe("invalid_limit");
    expect((await sim.get("/v1/library/assets?cursor=forged")).json.error.code).toBe("invalid_cursor");
  });

  it("LIB-1: an asset has id, kind, size fields, folder_id, expires_at, a title and its content link in output_urls", async () => {
    const jpg = fixture("photo.jpg");
    const ref = await upload(sim, jpg, { contentType: "image/jpeg", via: "proxy" });
    const [a] = await assets();
    expect(a).toMatchObject({ kind: "image", reference: ref, content_type: "image/jpeg", size_bytes: jpg.length, width: 300, height: 200, folder_id: null, title: "Untitled image" });
    expect(a!.output_urls).toEqual([`${sim.url}/v1/library/assets/${a!.id}/content`]);
    const content = await sim.get(new URL(a!.output_urls[0]).pathname);
    expect(content.status).toBe(200);
    expect(content.headers.get("content-type")).toBe("image/jpeg");
    expect(content.headers.get("cache-control")).toBe("private, no-store");
    expect(Buffer.from(content.bytes).equals(Buffer.from(jpg))).toBe(true);
    expect((await sim.get("/v1/library/assets/ast_nope/content")).status).toBe(404);
  });

  it("GEN-10: the title change takes any JSON object, a string title becomes the title, answers 200 with the asset and spends nothing", async () => {
    await upload(sim);
    const [a] = await assets();
    const before = await balance();
    const r = await sim.call("PATCH", `/v1/library/assets/${a!.id}`, { body: { title: "Hero", other: 1 } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id: a!.id, title: "Hero" });
    expect((await sim.call("PATCH", `/v1/library/assets/${a!.id}`, { body: { title: 7 } })).json.title).toBe("Hero");
    expect((await sim.call("PATCH", `/v1/library/assets/${a!.id}`, { body: "x" })).status).toBe(400);
    expect((await assets())[0]!.title).toBe("Hero");
    expect((await sim.call("PATCH", "/v1/library/assets/ast_nope", { body: { title: "x" } })).status).toBe(404);
    expect(await balance()).toBe(before);
  });

  it("an uploaded file lives until its expires_at: then it leaves the list and its content answers 404", async () => {
    await upload(sim);
    const [a] = await assets();
    await sim.advance((Date.parse(a!.expires_at) - sim.hub.clock.now()) / 1000 - 1);
    expect(await assets()).toHaveLength(1);
    await sim.advance(1);
    expect(await assets()).toEqual([]);
    expect((await sim.get(`/v1/library/assets/${a!.id}/content`)).status).toBe(404);
  });
});

describe("folders", () => {
  it("PAGE-6 W-7: all folders at once in position order, next_cursor null, an empty list without folders; query parameters change nothing", async () => {
    expect(await folders()).toEqual([]);
    for (const name of ["A", "B", "C"]) expect((await create(name)).status).toBe(201);
    const r = await sim.get("/v1/library/folders?limit=1");
    expect(r.json.next_cursor).toBeNull();
    expect(r.json.data.map((f: { name: string; position: number }) => [f.name, f.position])).toEqual([["A", 0], ["B", 1], ["C", 2]]);
  });

  it("LIB-2 LIB-3: creating answers 201 with id, name and position; the name must be new (case and spaces aside)", async () => {
    const r = await create("Characters");
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ name: "Characters", position: 0, item_count: 0 });
    expect(typeof r.json.id).toBe("string");
    for (const name of ["Characters", " characters "]) {
      const again = await create(name);
      expect(again.status, name).toBe(409);
      expect(again.json.error.code).toBe("folder_name_taken");
    }
    expect((await create("Characters", OTHER)).status).toBe(201);
    const empty = await create("   ");
    expect(empty.status).toBe(400);
    expect(empty.json.error.details).toEqual([expect.objectContaining({ field: "name", reason: "out_of_range" })]);
    expect((await sim.post("/v1/library/folders", { name: "x", position: 1 })).json.error.details).toEqual([expect.objectContaining({ field: "position", reason: "unknown_field" })]);
  });

  it("LIB-3: the account's folder limit (a simulator option) answers 409 folder_limit_reached; another account is not affected", async () => {
    expect(DEFAULT_FOLDER_LIMIT).toBeGreaterThan(LIMIT);
    for (let i = 0; i < LIMIT; i++) expect((await create(`F${i}`)).status).toBe(201);
    const over = await create("One more");
    expect(over.status).toBe(409);
    expect(over.json.error.code).toBe("folder_limit_reached");
    expect(over.json.error.message).toContain(String(LIMIT));
    expect((await create("One more", OTHER)).status).toBe(201);
    await sim.call("DELETE", `/v1/library/folders/${(await folders())[0]!.id}`);
    expect((await create("One more")).status).toBe(201);
  });

  it("LIB-4: a rename keeps the name rule; a position moves the folder and the others close up; bounds are refused", async () => {
    const [a, b, c] = [(await create("A")).json, (await create("B")).json, (await create("C")).json];
    const renamed = await sim.call("PATCH", `/v1/library/folders/${a.id}`, { body: { name: "Alpha" } });
    expect(renamed.status).toBe(200);
    expect(renamed.json).toMatchObject({ id: a.id, name: "Alpha", position: 0 });
    expect((await sim.call("PATCH", `/v1/library/folders/${a.id}`, { body: { name: "alpha" } })).status).toBe(200);
    const clash = await sim.call("PATCH", `/v1/library/folders/${a.id}`, { body: { name: "b" } });
    expect(clash.status).toBe(409);
    expect(clash.json.error.code).toBe("folder_name_taken");
    const moved = await sim.call("PATCH", `/v1/library/folders/${c.id}`, { body: { position: 0, name: "Gamma" } });
    expect(moved.json).toMatchObject({ id: c.id, name: "Gamma", position: 0 });
    expect((await folders()).map((f) => [f.id, f.position])).toEqual([[c.id, 0], [a.id, 1], [b.id, 2]]);
    for (const position of [-1, 3]) {
      const r = await sim.call("PATCH", `/v1/library/folders/${b.id}`, { body: { position } });
      expect(r.json.error.details, String(position)).toEqual([expect.objectContaining({ field: "position", reason: "out_of_range" })]);
    }
    expect((await sim.call("PATCH", `/v1/library/folders/${b.id}`, { body: {} })).status).toBe(400);
    expect((await sim.call("PATCH", `/v1/library/folders/${b.id}`, { body: { position: 1.5 } })).json.error.details[0].reason).toBe("wrong_type");
    expect((await sim.call("PATCH", "/v1/library/folders/fld_nope", { body: { name: "x" } })).status).toBe(404);
  });

  it("LIB-5: deleting a folder deletes only the folder; its contents return to the root", async () => {
    const a = (await create("A")).json;
    const b = (await create("B")).json;
    const ids = await uploadMany(3);
    await sim.post("/v1/library/move", { item_ids: ids.slice(0, 2), folder_id: a.id });
    await sim.post("/v1/library/move", { item_ids: [ids[2]], folder_id: b.id });
    const r = await sim.call("DELETE", `/v1/library/folders/${a.id}`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ id: a.id, deleted: true, moved_to_root: 2 });
    expect((await folders()).map((f) => [f.name, f.position])).toEqual([["B", 0]]);
    const byId = new Map((await assets()).map((x) => [x.id, x.folder_id]));
    expect([byId.get(ids[0]!), byId.get(ids[1]!), byId.get(ids[2]!)]).toEqual([null, null, b.id]);
    expect((await sim.call("DELETE", `/v1/library/folders/${a.id}`)).status).toBe(404);
  });
});

describe("move", () => {
  it("LIB-6: item_ids go into a folder, and back to the root with folder_id null; the folder counts its items", async () => {
    const f = (await create("Characters")).json;
    const ids = await uploadMany(3);
    const r = await sim.post("/v1/library/move", { item_ids: [ids[0], ids[1], ids[0]], folder_id: f.id });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ folder_id: f.id, item_ids: [ids[0], ids[1]], moved: 2 });
    expect((await folders())[0]!.item_count).toBe(2);
    const back = await sim.post("/v1/library/move", { item_ids: [ids[1], ids[2]], folder_id: null });
    expect(back.json).toEqual({ folder_id: null, item_ids: [ids[1], ids[2]], moved: 1 });
    const byId = new Map((await assets()).map((x) => [x.id, x.folder_id]));
    expect(ids.map((id) => byId.get(id))).toEqual([f.id, null, null]);
  });

  it("LIB-6 LIB-7: all or nothing: an unknown item or folder answers 404 and nothing moves; the body is checked", async () => {
    const f = (await create("A")).json;
    const [id] = await uploadMany(1);
    expect((await sim.post("/v1/library/move", { item_ids: [id, "ast_nope"], folder_id: f.id })).status).toBe(404);
    expect((await sim.post("/v1/library/move", { item_ids: [id], folder_id: "fld_nope" })).status).toBe(404);
    expect((await assets())[0]!.folder_id).toBeNull();
    const bad = await sim.post("/v1/library/move", { item_ids: "x" });
    expect(bad.json.error.details.map((d: { field: string; reason: string }) => `${d.field}:${d.reason}`).sort()).toEqual(["folder_id:required", "item_ids:wrong_type"]);
  });

  it("LIB-7: the library routes spend no credits and move nothing in the ledger", async () => {
    const before = await balance();
    const ledger = (await sim.get("/v1/billing/transactions")).json.data;
    const f = (await create("A")).json;
    const [id] = await uploadMany(1);
    await sim.post("/v1/library/move", { item_ids: [id], folder_id: f.id });
    await sim.call("PATCH", `/v1/library/folders/${f.id}`, { body: { name: "B" } });
    await sim.call("PATCH", `/v1/library/assets/${id}`, { body: { title: "T" } });
    await sim.call("DELETE", `/v1/library/folders/${f.id}`);
    expect(await balance()).toBe(before);
    expect((await sim.get("/v1/billing/transactions")).json.data).toEqual(ledger);
  });

  it("the library scopes: a read-only key lists but does not write", async () => {
    expect((await sim.get("/v1/library/folders", { key: "ghk_demo_readonly" })).status).toBe(200);
    const r = await sim.post("/v1/library/folders", { name: "x" }, { key: "ghk_demo_readonly" });
    expect(r.status).toBe(403);
    expect(r.json.error.code).toBe("insufficient_scope");
  });
});

describe("demo data", () => {
  it("the demo account starts with two folders and an uploaded image in the first, usable as a reference at once", async () => {
    const demo = await startSim({ demoData: true });
    try {
      const f = (await demo.get("/v1/library/folders")).json.data;
      expect(f.map((x: { name: string }) => x.name)).toEqual(["Characters", "Backgrounds"]);
      const [a] = (await demo.get("/v1/library/assets")).json.data;
      expect(a).toMatchObject({ folder_id: f[0].id, width: 64, height: 64, size_bytes: PNG.length });
      expect((await demo.submit({ type: "upscale", image_url: a.reference, scale: 2 })).status).toBe(202);
      expect((await demo.get("/v1/library/folders", { key: OTHER })).json.data).toEqual([]);
    } finally {
      await demo.close();
    }
  });
});
