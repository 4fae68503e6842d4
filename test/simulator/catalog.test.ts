// Catalog and account: models (only what this key can launch, type filter, weak ETag
// and 304), knowledge, /v1/me, and the price estimate.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startSim, type Sim } from "./support/harness.ts";

let sim: Sim;
beforeAll(async () => {
  sim = await startSim();
});
beforeEach(() => sim.hub.reset());
afterAll(() => sim.close());

const ids = (r: { json: { data: { id: string }[] } }) => r.json.data.map((m) => m.id);

describe("GET /v1/models", () => {
  it("CAT-2: lists only models this key can launch (no text type, no disabled, early access only with access)", async () => {
    const plain = await sim.get("/v1/models");
    expect(ids(plain)).not.toContain("text-chat-a");
    expect(ids(plain)).not.toContain("image-model-legacy");
    expect(ids(plain)).not.toContain("video-model-preview");
    expect(ids(plain)).toContain("video-model-a");
    expect(ids(await sim.get("/v1/models", { key: "ghk_demo_early" }))).toContain("video-model-preview");
  });

  it("CAT-1: records name constraints, pricing with the unit of each variant, prompt_limit, expansion modes and has_seed", async () => {
    const m = (await sim.get("/v1/models")).json.data.find((x: { id: string }) => x.id === "video-model-a");
    expect(m).toMatchObject({ type: "video", prompt_limit: 2500, has_seed: true, default_prompt_expansion: "fast" });
    expect(m.pricing.variants.map((v: { unit: string }) => v.unit)).toEqual(["second", "second"]);
    const clip = (await sim.get("/v1/models")).json.data.find((x: { id: string }) => x.id === "video-model-b");
    expect(clip.pricing.variants[0].unit).toBe("clip");
  });

  it("CAT-4: type narrows the list", async () => {
    const r = await sim.get("/v1/models?type=upscale");
    expect(r.json.data.length).toBeGreaterThan(0);
    expect(r.json.data.every((m: { type: string }) => m.type === "upscale")).toBe(true);
    expect((await sim.get("/v1/models?type=nothing")).json.data).toEqual([]);
  });

  it("CAT-4: weak ETag; If-None-Match answers 304 with no body; private, max-age=0, must-revalidate", async () => {
    const first = await sim.get("/v1/models");
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^W\/".+"$/);
    expect(first.headers.get("cache-control")).toBe("private, max-age=0, must-revalidate");
    const again = await sim.get("/v1/models", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    expect(again.headers.get("cache-control")).toBe("private, max-age=0, must-revalidate");
    expect((await sim.get("/v1/models", { headers: { "if-none-match": 'W/"stale", ' + etag } })).status).toBe(304);
    // Another key sees another catalog, hence another tag.
    const early = await sim.get("/v1/models", { key: "ghk_demo_early", headers: { "if-none-match": etag } });
    expect(early.status).toBe(200);
    expect(early.headers.get("etag")).not.toBe(etag);
  });
});

describe("knowledge", () => {
  it("CAT-5: search over title and short description, capped by limit, next_cursor null; only public articles", async () => {
    const all = await sim.get("/v1/knowledge");
    expect(all.json.next_cursor).toBeNull();
    expect(all.json.data.map((a: { slug: string }) => a.slug)).not.toContain("internal-roadmap");
    expect((await sim.get("/v1/knowledge?limit=2")).json.data).toHaveLength(2);
    const found = await sim.get("/v1/knowledge?q=idempotency");
    expect(found.json.data.map((a: { slug: string }) => a.slug)).toEqual(["idempotency"]);
    expect((await sim.get("/v1/knowledge?limit=0")).json.error.code).toBe("invalid_limit");
  });

  it("CAT-3 CAT-5: one article by slug in its own language; unknown or non-public slugs answer not_found", async () => {
    expect((await sim.get("/v1/knowledge/nachalo-raboty")).json).toMatchObject({ slug: "nachalo-raboty", lang: "ru" });
    for (const slug of ["internal-roadmap", "nope"]) {
      const r = await sim.get(`/v1/knowledge/${slug}`);
      expect(r.status).toBe(404);
      expect(r.json.error.code).toBe("not_found");
    }
  });
});

describe("account", () => {
  it("ACC-1: /v1/me answers plan.id, credits.main_cc, free_quotas and limits", async () => {
    const me = (await sim.get("/v1/me")).json;
    expect(me.plan.id).toBe("pro");
    expect(Number.isInteger(me.credits.main_cc)).toBe(true);
    expect(me.free_quotas).toContainEqual({ type: "video", remaining: null, mode: "unlimited" });
    expect(me.limits).toHaveProperty("submissions");
    expect(me.limits).toHaveProperty("concurrency");
  });

  it("the account needs me:read (the simulator's choice where the seed names no scope); whoami needs none", async () => {
    const key = (await sim.control("POST", "keys", { scopes: ["models:read"] })).json.secret;
    expect((await sim.get("/v1/me", { key })).json.error.code).toBe("insufficient_scope");
    expect((await sim.get("/v1/whoami", { key })).status).toBe(200);
  });
});

describe("POST /v1/pricing/estimate", () => {
  const video = { type: "video", model: "video-model-a", duration: 10 };

  it("PRICE-1 PRICE-4: a ceiling in centi-credits with its breakdown; creates and charges nothing", async () => {
    const before = (await sim.get("/v1/me")).json.credits.main_cc;
    const r = await sim.post("/v1/pricing/estimate", video);
    expect(r.json).toEqual({ type: "video", model_id: "video-model-a", currency: "credits", price_cc: 1000, breakdown: { variant: "per_second_720p", units: 10, surcharge_cc: 0 } });
    expect((await sim.get("/v1/me")).json.credits.main_cc).toBe(before);
    expect((await sim.get("/v1/generations")).json.data).toEqual([]);
  });

  it("PRICE-6: a body with promo_mode answers 422 estimate_unavailable", async () => {
    const r = await sim.post("/v1/pricing/estimate", { ...video, promo_mode: "queue" });
    expect(r.status).toBe(422);
    expect(r.json.error.code).toBe("estimate_unavailable");
  });

  it("PRICE-7: a body the submit would refuse is refused the same way; text answers 503", async () => {
    const body = { ...video, duration: 7, unknown: 1 };
    const estimate = await sim.post("/v1/pricing/estimate", body);
    const submit = await sim.submit(body);
    expect(estimate.status).toBe(400);
    expect(estimate.json.error.details).toEqual(submit.json.error.details);
    const unknown = await sim.post("/v1/pricing/estimate", { ...video, model: "nope-model" });
    expect(unknown.json.error.details[0].reason).toBe("unknown_model");
    const text = await sim.post("/v1/pricing/estimate", { type: "text" });
    expect(text.status).toBe(503);
    expect(text.json.error.code).toBe("submit_unavailable");
  });
});
