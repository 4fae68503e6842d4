// Submitting generations: idempotency, plan and credit checks, validation with the
// contract's own reasons, the unsubmitted `text` type, charges and refunds.
import { afterAll, beforeEach, beforeAll, describe, expect, it } from "vitest";
import { startSim, type Sim } from "./support/harness.ts";
import { upload } from "./support/uploads.ts";

let sim: Sim;
beforeAll(async () => {
  sim = await startSim();
});
beforeEach(() => sim.hub.reset());
afterAll(() => sim.close());

const video = { type: "video", model: "video-model-a", prompt: "a lighthouse", duration: 5 };

async function balance(key = "ghk_demo_full"): Promise<number> {
  return (await sim.get("/v1/me", { key })).json.credits.main_cc;
}

describe("idempotency", () => {
  it("SUB-2: a replay answers the first record at its current status with 202, charging nothing", async () => {
    const before = await balance();
    const first = await sim.submit(video, { idempotencyKey: "same" });
    expect(first.status).toBe(202);
    const charged = before - (await balance());
    expect(charged).toBe(500);
    await sim.advance(5);
    const replay = await sim.submit({ prompt: "a lighthouse", duration: 5, model: "video-model-a", type: "video" }, { idempotencyKey: "same" });
    expect(replay.status).toBe(202);
    expect(replay.json.id).toBe(first.json.id);
    expect(replay.json.status).toBe("RUNNING");
    expect(replay.headers.get("location")).toBe(`/v1/generations/${first.json.id}`);
    expect(await balance()).toBe(before - charged);
    const me = (await sim.get("/v1/me")).json;
    expect(me.limits.submissions.remaining).toBe(me.limits.submissions.limit - 1);
  });

  it("SUB-2: a replay of a FAILED generation answers it with its error.reason, still 202", async () => {
    const first = await sim.submit({ ...video, prompt: "storm [sim:fail=timeout]" }, { idempotencyKey: "f" });
    await sim.advance(60);
    const replay = await sim.submit({ ...video, prompt: "storm [sim:fail=timeout]" }, { idempotencyKey: "f" });
    expect(replay.status).toBe(202);
    expect(replay.json).toMatchObject({ id: first.json.id, status: "FAILED", error: { reason: "timeout" } });
  });

  it("SUB-3: the same key with a different body answers 409 duplicate_key_conflict", async () => {
    await sim.submit(video, { idempotencyKey: "k" });
    const other = await sim.submit({ ...video, duration: 10 }, { idempotencyKey: "k" });
    expect(other.status).toBe(409);
    expect(other.json.error.code).toBe("duplicate_key_conflict");
  });

  it("SUB-2: concurrent submits with one key create one generation and charge once", async () => {
    const before = await balance();
    const replies = await Promise.all(Array.from({ length: 12 }, () => sim.submit(video, { idempotencyKey: "race" })));
    expect(replies.map((r) => r.status)).toEqual(Array(12).fill(202));
    expect(new Set(replies.map((r) => r.json.id)).size).toBe(1);
    const list = await sim.get("/v1/generations");
    expect(list.json.data.filter((g: { id: string }) => g.id === replies[0]!.json.id)).toHaveLength(1);
    expect(list.json.data).toHaveLength(1);
    expect(before - (await balance())).toBe(500);
  });

  it("SUB-0: a submit without Idempotency-Key answers 400 naming the header", async () => {
    const r = await sim.call("POST", "/v1/generations", { body: video });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ code: "invalid_request", details: [{ field: "Idempotency-Key", reason: "required" }] });
  });

  it("SUB-2: keys are per account: another account's same key is a new submit", async () => {
    const a = await sim.submit(video, { idempotencyKey: "shared" });
    const b = await sim.submit(video, { idempotencyKey: "shared", key: "ghk_demo_other" });
    expect(b.status).toBe(202);
    expect(b.json.id).not.toBe(a.json.id);
  });
});

describe("plan, credits and spend limits", () => {
  it("SUB-4: no paid plan answers 402 payment_required", async () => {
    const r = await sim.submit(video, { key: "ghk_demo_free" });
    expect(r.status).toBe(402);
    expect(r.json.error.code).toBe("payment_required");
  });

  it("SUB-4: an exact replay of an accepted request still answers 202 after the plan lapsed", async () => {
    const first = await sim.submit(video, { idempotencyKey: "lapse" });
    await sim.control("PATCH", "accounts/acc_demo", { plan: "free" });
    const replay = await sim.submit(video, { idempotencyKey: "lapse" });
    expect(replay.status).toBe(202);
    expect(replay.json.id).toBe(first.json.id);
    const fresh = await sim.submit(video, { idempotencyKey: "lapse-2" });
    expect(fresh.json.error.code).toBe("payment_required");
  });

  it("W-9: reading, the catalog and prices need no plan", async () => {
    for (const path of ["/v1/generations", "/v1/models", "/v1/me"]) expect((await sim.get(path, { key: "ghk_demo_free" })).status).toBe(200);
    expect((await sim.post("/v1/pricing/estimate", video, { key: "ghk_demo_free" })).status).toBe(200);
  });

  it("a balance that does not cover the price answers 402 insufficient_credits", async () => {
    const r = await sim.submit(video, { key: "ghk_demo_broke" });
    expect(r.status).toBe(402);
    expect(r.json.error.code).toBe("insufficient_credits");
  });

  it("AUTH-9: a key at its monthly spend limit answers 402 key_spend_limit_reached", async () => {
    const r = await sim.submit(video, { key: "ghk_demo_capped" });
    expect(r.status).toBe(402);
    expect(r.json.error.code).toBe("key_spend_limit_reached");
  });

  it("PRICE-3: the submit debits exactly what the estimate answered for the same body", async () => {
    const body = { ...video, resolution: "1080p", duration: 10, sound: true };
    const estimate = await sim.post("/v1/pricing/estimate", body);
    expect(estimate.json).toMatchObject({ price_cc: 180 * 10 + 200, breakdown: { variant: "per_second_1080p", units: 10, surcharge_cc: 200 } });
    const before = await balance();
    await sim.submit(body);
    expect(before - (await balance())).toBe(estimate.json.price_cc);
  });

  it("a free quota row makes a submit free; an estimate still answers the ceiling", async () => {
    const before = await balance();
    const r = await sim.submit({ type: "image", model: "image-model-a", prompt: "free" });
    expect(r.json.cost_cc).toBe(0);
    expect(await balance()).toBe(before);
    const me = (await sim.get("/v1/me")).json;
    expect(me.free_quotas.find((q: { type: string }) => q.type === "image").remaining).toBe(2);
  });

  it("SUB-7: with promo_mode the charge is by entitlement, not by rate", async () => {
    const before = await balance();
    const r = await sim.submit({ ...video, promo_mode: "queue" });
    expect(r.status).toBe(202);
    expect(r.json.cost_cc).toBe(0);
    expect(await balance()).toBe(before);
  });

  it("ACC-3 SUB-7: an unlimited free-quota row is free only with promo_mode queue", async () => {
    // The demo fixtures' unlimited row is video, whose promo_mode is only `queue`; an image
    // row shows the rule, since the image variant also takes `promo_mode: unlimited`.
    sim.hub.state.accounts.get("acc_demo")!.free_quotas = [{ type: "image", remaining: null, mode: "unlimited" }];
    const before = await balance();
    const image = { type: "image", model: "image-model-a", prompt: "promo" };
    const queued = await sim.submit({ ...image, promo_mode: "queue" });
    expect(queued.status).toBe(202);
    expect(queued.json.cost_cc).toBe(0);
    const unlimited = await sim.submit({ ...image, promo_mode: "unlimited" });
    expect(unlimited.status).toBe(402);
    expect(unlimited.json.error.code).toBe("insufficient_credits");
    expect(await balance()).toBe(before);
  });

  it("GEN-6: a failed generation is refunded and carries refunded", async () => {
    const before = await balance();
    const r = await sim.submit({ ...video, prompt: "x [sim:fail]" });
    expect(await balance()).toBe(before - 500);
    await sim.advance(60);
    const failed = await sim.get(`/v1/generations/${r.json.id}`);
    expect(failed.json).toMatchObject({ status: "FAILED", error: { reason: "provider_error" }, refunded: true });
    expect(await balance()).toBe(before);
  });
});

describe("validation and types", () => {
  it("SUB-5: type text answers 503 submit_unavailable naming the type, and charges nothing", async () => {
    const before = await balance();
    const r = await sim.submit({ type: "text", prompt: "hello" });
    expect(r.status).toBe(503);
    expect(r.json.error.code).toBe("submit_unavailable");
    expect(r.json.error.message).toContain("text");
    expect(await balance()).toBe(before);
  });

  it("SUB-6: a body with several faults names each field with the seed's reason", async () => {
    const r = await sim.submit({ type: "video", model: "video-model-a", duration: 99, colour: "red", multi_prompt: [{ index: 1, prompt: "a", duration: 1 }] });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe("invalid_request");
    const got = r.json.error.details.map((d: { field: string; reason: string }) => `${d.field}:${d.reason}`).sort();
    expect(got).toEqual(["colour:unknown_field", "duration:out_of_range", "multi_prompt.0.duration:out_of_range"]);
  });

  it("SUB-6: model-specific reasons come from the catalog entry", async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ ...video, model: "nope-model" }, "model", "unknown_model"],
      [{ ...video, model: "image-model-a" }, "model", "unsupported_model"],
      [{ ...video, model: "video-model-preview" }, "model", "unknown_model"],
      [{ ...video, duration: 7 }, "duration", "unsupported_duration"],
      [{ ...video, resolution: "4k" }, "resolution", "unsupported_resolution"],
      [{ ...video, aspect: "21:9" }, "aspect", "unsupported_aspect"],
      [{ ...video, prompt: "x".repeat(2501) }, "prompt", "prompt_too_long"],
      [{ ...video, prompt_expansion: "quality" }, "prompt_expansion", "not_available"],
      [{ type: "video", model: "video-model-b" }, "image_urls", "image_required"],
      [{ ...video, image_urls: ["a", "b", "c"] }, "image_urls", "too_many_images"],
      [{ type: "image", model: "image-model-b", n_variants: 2 }, "n_variants", "unsupported_n_variants"],
      [{ type: "image", model: "image-model-b", quality: "high" }, "quality", "unsupported_quality"],
      [{ type: "image", model: "image-model-b", background: "transparent" }, "background", "transparency_not_supported"],
      [{ type: "upscale", image_url: "upl_x", scale: 3 }, "scale", "unsupported_scale"],
      [{ type: "image", model: "image-model-b", seed: "42" }, "seed", "not_available"],
    ];
    for (const [body, field, reason] of cases) {
      const r = await sim.submit(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.error.details, JSON.stringify(body)).toContainEqual(expect.objectContaining({ field, reason }));
    }
  });

  it("SUB-3D: the 3D variant takes its own type value; an unpublished type is refused", async () => {
    const ok = await sim.submit({ type: "model_3d", prompt: "teapot", format: "GLB", material: "PBR" });
    expect(ok.status).toBe(202);
    expect(ok.json.model).toBe("model3d-a");
    const bad = await sim.submit({ type: "hologram", prompt: "x" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details).toEqual([expect.objectContaining({ field: "type", reason: "not_allowed" })]);
  });

  it("SUB-U: upscale takes its default model", async () => {
    const r = await sim.submit({ type: "upscale", image_url: await upload(sim), scale: 2 });
    expect(r.status).toBe(202);
    expect(r.json.model).toBe("vendorA-upscale");
  });

  it("[sim:blocked] in a prompt answers 403 moderation_blocked and charges nothing", async () => {
    const before = await balance();
    const r = await sim.submit({ ...video, prompt: "bad [sim:blocked]" });
    expect(r.status).toBe(403);
    expect(r.json.error.code).toBe("moderation_blocked");
    expect(await balance()).toBe(before);
  });
});
