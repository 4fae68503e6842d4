// Uploads: the ticket (checks before signing), both ways of writing it (the direct PUT
// to storage and the proxy PUT), written-once, the file in the library at once, and the
// reference read, checked and measured where a request names it (submit, estimate).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bound } from "../../src/contract/index.ts";
import { png } from "../../src/simulator/assets/files.ts";
import { DEFAULT_SIGNATURE_SECONDS, DEFAULT_UPLOAD_LIFETIME_DAYS } from "../../src/simulator/state/options.ts";
import { OTHER, startSim, type Sim } from "./support/harness.ts";
import { fixture, PNG, storagePut, ticket, upload } from "./support/uploads.ts";

let sim: Sim;
beforeAll(async () => {
  sim = await startSim({ rateLimits: { keyQuota: 100_000, accountQuota: 100_000, submitQuota: 100_000, concurrency: 100_000 } });
});
beforeEach(() => sim.hub.reset());
afterAll(() => sim.close());

const CEILING = bound("UploadRequest", "content_length", "maximum");
const CONTRACT_TYPES = ["image/jpeg", "image/png", "image/webp", "video/mp4", "video/quicktime", "video/webm", "audio/mpeg", "audio/mp3", "audio/wav", "audio/wave", "audio/x-wav", "audio/ogg", "audio/aac"];

const assets = async (key?: string) => (await sim.get("/v1/library/assets?limit=100", { key })).json.data as Record<string, any>[];
const details = (r: { json: any }) => r.json.error.details.map((d: { field: string; reason: string }) => `${d.field}:${d.reason}`);

describe("the ticket", () => {
  it("UPL-1 UPL-2 UPL-6: 200 (not 201) with url, proxy_path, the exact headers, reference and the signature's expiry; nothing exists before the PUT", async () => {
    const r = await ticket(sim, "image/png", PNG.length);
    expect(r.status).toBe(200);
    expect(r.json.headers).toEqual({ "Content-Type": "image/png", "Content-Length": String(PNG.length), "If-None-Match": "*" });
    expect(r.json.url).toMatch(new RegExp(`^${sim.url}/storage/${r.json.reference}\\?signature=`));
    expect(r.json.proxy_path).toBe(`/v1/uploads/content?ticket=${r.json.reference}`);
    expect(Date.parse(r.json.expires_at) - sim.hub.clock.now()).toBe(DEFAULT_SIGNATURE_SECONDS * 1000);
    expect(await assets()).toEqual([]);
    const used = await sim.submit({ type: "upscale", image_url: r.json.reference, scale: 2 });
    expect(details(used)).toEqual(["image_url:reference_unavailable"]);
  });

  it("UPL-3: a kind other than image answers 503 upload_unavailable, whatever its type", async () => {
    for (const type of CONTRACT_TYPES) {
      const r = await sim.post("/v1/uploads", { kind: "video", content_type: type, content_length: 10 });
      expect(r.status, type).toBe(503);
      expect(r.json.error.code).toBe("upload_unavailable");
    }
  });

  it("UPL-4: the seed's thirteen types pass the check; an image takes the image types only (simulator convention); others are not_allowed", async () => {
    for (const type of CONTRACT_TYPES) {
      const r = await ticket(sim, type, 10);
      if (type.startsWith("image/")) expect(r.status, type).toBe(200);
      else expect(details(r), type).toEqual(["content_type:not_allowed"]);
    }
    const gif = await ticket(sim, "image/gif", 10);
    expect(gif.status).toBe(400);
    expect(details(gif)).toEqual(["content_type:not_allowed"]);
  });

  it("UPL-5: exactly 40 MiB is signed; one byte more is refused with the exact byte number in the text", async () => {
    expect((await ticket(sim, "image/jpeg", CEILING)).status).toBe(200);
    const r = await ticket(sim, "image/jpeg", CEILING + 1);
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe("invalid_request");
    expect(r.json.error.message).toContain(String(CEILING));
    expect(r.json.error.details).toEqual([expect.objectContaining({ field: "content_length", reason: "out_of_range" })]);
    expect(r.json.error.details[0].message).toContain(String(CEILING));
    expect(r.json.error.details[0].message).toContain(String(CEILING + 1));
  });

  it("UPL-2: all three fields are checked before signing: an exact integer length, a type, a kind", async () => {
    expect(details(await sim.post("/v1/uploads", { kind: "image", content_type: "image/png", content_length: 1.5 }))).toEqual(["content_length:wrong_type"]);
    expect(details(await sim.post("/v1/uploads", { kind: "image", content_type: "image/png", content_length: -1 }))).toEqual(["content_length:out_of_range"]);
    expect(details(await sim.post("/v1/uploads", { kind: "image", content_length: 5 }))).toEqual(["content_type:required"]);
    expect(details(await sim.post("/v1/uploads", { content_type: "image/png", content_length: 5, extra: 1 })).sort()).toEqual(["extra:unknown_field", "kind:required"]);
    expect((await sim.post("/v1/uploads", { kind: "image", content_type: "image/png", content_length: 5 }, { key: "ghk_demo_readonly" })).json.error.code).toBe("insufficient_scope");
  });
});

describe("the direct PUT to storage", () => {
  it("UPL-7: exactly the ticket's headers store the file; it is in the library at once with the file's expires_at", async () => {
    const t = (await ticket(sim, "image/png", PNG.length)).json;
    const put = await storagePut(t.url, t.headers, PNG);
    expect(put.status).toBe(200);
    const [asset, ...more] = await assets();
    expect(more).toEqual([]);
    expect(asset).toMatchObject({ kind: "image", reference: t.reference, folder_id: null, size_bytes: PNG.length, width: 64, height: 64 });
    expect(Date.parse(asset!.expires_at) - sim.hub.clock.now()).toBe(DEFAULT_UPLOAD_LIFETIME_DAYS * 86_400_000);
    expect(Date.parse(asset!.expires_at)).toBeGreaterThan(Date.parse(t.expires_at));
    expect(asset!.output_urls).toEqual([`${sim.url}/v1/library/assets/${asset!.id}/content`]);
    const content = await sim.get(`/v1/library/assets/${asset!.id}/content`);
    expect(content.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(content.bytes).equals(Buffer.from(PNG))).toBe(true);
  });

  it("UPL-7: a header that differs, Authorization, a wrong signature or another method answer 403 and store nothing", async () => {
    const t = (await ticket(sim, "image/png", PNG.length)).json;
    const h = t.headers as Record<string, string>;
    const { "If-None-Match": _inm, ...noPrecondition } = h;
    const attempts: [string, Promise<{ status: number; text: string }>][] = [
      ["other type", storagePut(t.url, { ...h, "Content-Type": "image/jpeg" }, PNG)],
      ["shorter body", storagePut(t.url, { ...h, "Content-Length": String(PNG.length - 1) }, PNG.subarray(1))],
      ["no If-None-Match", storagePut(t.url, noPrecondition, PNG)],
      ["If-None-Match not *", storagePut(t.url, { ...h, "If-None-Match": '"abc"' }, PNG)],
      ["Authorization", storagePut(t.url, { ...h, Authorization: "Bearer ghk_demo_full" }, PNG)],
      ["bad signature", storagePut(t.url.replace(/signature=.*/, "signature=forged"), h, PNG)],
      ["unknown object", storagePut(t.url.replace(t.reference, "upl_unknown"), h, PNG)],
      ["POST", fetch(t.url, { method: "POST", headers: h, body: PNG }).then(async (r) => ({ status: r.status, text: await r.text() }))],
    ];
    for (const [label, attempt] of attempts) {
      const r = await attempt;
      expect(r.status, `${label}: ${r.text}`).toBe(403);
      expect(r.text.length, label).toBeGreaterThan(0);
    }
    expect(await assets()).toEqual([]);
    expect((await storagePut(t.url, h, PNG)).status).toBe(200);
  });

  it("EP-1: storage answers plainly, never with a failure of its own: malformed paths, the bare prefix, other methods", async () => {
    for (const [method, path] of [["PUT", "/storage/%E0%A4%A"], ["PUT", "/storage"], ["GET", "/storage/"], ["DELETE", "/storage/upl_x?signature=y"]] as const) {
      const res = await fetch(sim.url + path, { method, headers: method === "PUT" ? { "content-type": "image/png" } : {}, body: method === "PUT" ? PNG : undefined });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
      expect(res.headers.get("x-request-id")).toBeTruthy();
      expect(res.headers.get("ratelimit")).toBeNull();
    }
    expect(details(await sim.submit({ type: "upscale", image_url: `${sim.url}/v1/library/assets/%E0%A4%A/content`, scale: 2 }))).toEqual(["image_url:reference_unavailable"]);
  });

  it("ST-7 UPL-7: a second PUT answers 412; the proxy then answers 409 duplicate_key_conflict", async () => {
    const t = (await ticket(sim, "image/png", PNG.length)).json;
    expect((await storagePut(t.url, t.headers, PNG)).status).toBe(200);
    const again = await storagePut(t.url, t.headers, PNG);
    expect(again.status).toBe(412);
    const proxy = await sim.call("PUT", t.proxy_path, { raw: PNG, headers: { "content-type": "image/png" } });
    expect(proxy.status).toBe(409);
    expect(proxy.json.error.code).toBe("duplicate_key_conflict");
    expect(await assets()).toHaveLength(1);
  });

  it("UPL-1: the signature expires at the ticket's expires_at (403 after it); the file's own life is longer", async () => {
    const t = (await ticket(sim, "image/png", PNG.length)).json;
    await sim.advance(DEFAULT_SIGNATURE_SECONDS);
    expect((await storagePut(t.url, t.headers, PNG)).status).toBe(403);
    const proxy = await sim.call("PUT", t.proxy_path, { raw: PNG, headers: { "content-type": "image/png" } });
    expect(details(proxy)).toEqual(["ticket:invalid"]);
  });

  it("UPL-5 UPL-7 UPL-8: a 40 MiB file goes through storage and through the proxy (the upload routes take bodies above the JSON limit)", async () => {
    const big = new Uint8Array(CEILING);
    big.set(PNG);
    const t = (await ticket(sim, "image/png", CEILING)).json;
    expect((await storagePut(t.url, t.headers, big)).status).toBe(200);
    const t2 = (await ticket(sim, "image/png", CEILING)).json;
    const done = await sim.call("PUT", t2.proxy_path, { raw: big, headers: { "content-type": "image/png" } });
    expect(done.json).toEqual({ reference: t2.reference, bytes_stored: CEILING });
    expect((await assets()).map((a) => a.size_bytes)).toEqual([CEILING, CEILING]);
    // Only the upload routes take large bodies.
    const json = await sim.call("POST", "/v1/uploads", { raw: new Uint8Array(2 * 1024 * 1024), headers: { "content-type": "application/json" } });
    expect(json.status).toBe(413);
  }, 60_000);
});

describe("the proxy PUT", () => {
  it("UPL-8: the raw body at proxy_path answers { reference, bytes_stored }; the file is in the library", async () => {
    const jpg = fixture("photo.jpg");
    const t = (await ticket(sim, "image/jpeg", jpg.length)).json;
    const r = await sim.call("PUT", t.proxy_path, { raw: jpg, headers: { "content-type": "image/jpeg" } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ reference: t.reference, bytes_stored: jpg.length });
    expect((await assets())[0]).toMatchObject({ reference: t.reference, content_type: "image/jpeg", width: 300, height: 200 });
  });

  it("UPL-8: a type or length other than the ticket's is refused with details and stores nothing", async () => {
    const t = (await ticket(sim, "image/png", PNG.length)).json;
    const wrongType = await sim.call("PUT", t.proxy_path, { raw: PNG, headers: { "content-type": "image/webp" } });
    expect(wrongType.status).toBe(400);
    expect(details(wrongType)).toEqual(["Content-Type:not_allowed"]);
    const short = await sim.call("PUT", t.proxy_path, { raw: PNG.subarray(0, 100), headers: { "content-type": "image/png" } });
    expect(details(short)).toEqual(["Content-Length:invalid"]);
    expect(short.json.error.details[0].message).toContain(String(PNG.length));
    expect(await assets()).toEqual([]);
    expect((await sim.call("PUT", t.proxy_path, { raw: PNG, headers: { "content-type": "image/png" } })).status).toBe(200);
  });

  it("ST-7 UPL-8: a second completion answers 409 duplicate_key_conflict; storage then answers 412", async () => {
    const t = (await ticket(sim, "image/png", PNG.length)).json;
    expect((await sim.call("PUT", t.proxy_path, { raw: PNG, headers: { "content-type": "image/png" } })).status).toBe(200);
    const again = await sim.call("PUT", t.proxy_path, { raw: PNG, headers: { "content-type": "image/png" } });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe("duplicate_key_conflict");
    expect((await storagePut(t.url, t.headers, PNG)).status).toBe(412);
  });

  it("W-8 UPL-8: another account's ticket is refused exactly like one that does not exist", async () => {
    const t = (await ticket(sim, "image/png", PNG.length)).json;
    const foreign = await sim.call("PUT", t.proxy_path, { key: OTHER, raw: PNG, headers: { "content-type": "image/png" } });
    const missing = await sim.call("PUT", "/v1/uploads/content?ticket=upl_01NOSUCHTICKET000000000000", { key: OTHER, raw: PNG, headers: { "content-type": "image/png" } });
    expect(foreign.status).toBe(400);
    expect({ ...foreign.json.error, request_id: "" }).toEqual({ ...missing.json.error, request_id: "" });
    const none = await sim.call("PUT", "/v1/uploads/content", { raw: PNG, headers: { "content-type": "image/png" } });
    expect(details(none)).toEqual(["ticket:required"]);
  });
});

describe("references in requests", () => {
  it("SUB-U SUB-V SUB-I: an upload reference is accepted where a request takes images", async () => {
    const ref = await upload(sim);
    const bodies = [
      { type: "upscale", image_url: ref, scale: 2 },
      { type: "video", model: "video-model-b", image_urls: [ref, ref] },
      { type: "image", model: "image-model-a", image_urls: [ref], style_ref_urls: [ref], char_ref_urls: [ref] },
      { type: "model_3d", image_urls: [ref] },
    ];
    for (const body of bodies) expect((await sim.submit(body)).status, JSON.stringify(body)).toBe(202);
  });

  it("unknown, unwritten, another account's and expired references are refused at submit, each named with its index", async () => {
    const mine = await upload(sim);
    const unwritten = (await ticket(sim, "image/png", PNG.length)).json.reference;
    const foreign = await upload(sim, PNG, { key: OTHER });
    const r = await sim.submit({ type: "video", model: "video-model-b", image_urls: [mine, "upl_01NOSUCHUPLOAD00000000000", unwritten] });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe("invalid_request");
    expect(details(r)).toEqual(["image_urls.1:reference_unavailable", "image_urls.2:reference_unavailable"]);
    expect(details(await sim.submit({ type: "upscale", image_url: foreign, scale: 2 }))).toEqual(["image_url:foreign_reference"]);
    await sim.advance(DEFAULT_UPLOAD_LIFETIME_DAYS * 86_400);
    expect(details(await sim.submit({ type: "upscale", image_url: mine, scale: 2 }))).toEqual(["image_url:reference_unavailable"]);
    expect(await assets()).toEqual([]);
  });

  it("links this simulator serves to the account are readable: a DONE result and a library content link; not another account's or an unfinished one", async () => {
    const done = (await sim.submit({ type: "image", model: "image-model-b", prompt: "p" })).json.id;
    const running = (await sim.submit({ type: "image", model: "image-model-b", prompt: "[sim:slow]" })).json.id;
    const foreign = (await sim.submit({ type: "image", model: "image-model-b", prompt: "p" }, { key: OTHER })).json.id;
    await sim.advance(30);
    const result = (await sim.get(`/v1/generations/${done}`)).json.output_urls[0];
    const ref = await upload(sim);
    const content = (await assets())[0]!.output_urls[0];
    expect((await sim.submit({ type: "upscale", image_url: result, scale: 2 })).status).toBe(202);
    expect((await sim.submit({ type: "upscale", image_url: content, scale: 2 })).status).toBe(202);
    expect(ref).toMatch(/^upl_/);
    const link = (id: string) => `${sim.url}/v1/generations/${id}/outputs/image/0`;
    expect(details(await sim.submit({ type: "upscale", image_url: link(foreign), scale: 2 }))).toEqual(["image_url:foreign_reference"]);
    expect(details(await sim.submit({ type: "upscale", image_url: link(running), scale: 2 }))).toEqual(["image_url:reference_unavailable"]);
    expect(details(await sim.submit({ type: "upscale", image_url: `${sim.url}/v1/generations/${done}/outputs/image/1`, scale: 2 }))).toEqual(["image_url:reference_unavailable"]);
  });

  it("URLs the simulator cannot read: public https is unfetchable, others untrusted, a non-URL bad_format; a registered URL is readable", async () => {
    const cases: [string, string][] = [
      ["https://images.example.com/cat.png", "unfetchable_reference"],
      ["http://images.example.com/cat.png", "untrusted_reference"],
      ["https://127.0.0.1/cat.png", "untrusted_reference"],
      ["https://10.1.2.3/cat.png", "untrusted_reference"],
      ["https://user:pw@images.example.com/cat.png", "untrusted_reference"],
      ["file:///etc/passwd", "untrusted_reference"],
      ["cat.png", "bad_format"],
    ];
    for (const [url, reason] of cases) expect(details(await sim.submit({ type: "upscale", image_url: url, scale: 2 })), url).toEqual([`image_url:${reason}`]);
    const reg = await sim.control("POST", "remote-files", { url: "https://images.example.com/cat.png", width: 2000, height: 1000 });
    expect(reg.status).toBe(201);
    expect(reg.json).toEqual({ url: "https://images.example.com/cat.png", content_type: "image/png", width: 2000, height: 1000 });
    const ok = await sim.post("/v1/pricing/estimate", { type: "upscale", image_url: "https://images.example.com/cat.png", scale: 2 });
    expect(ok.json.breakdown).toEqual({ variant: "per_output_megapixel", units: 8, surcharge_cc: 0 });
    expect((await sim.control("POST", "remote-files", { url: "http://images.example.com/x.png" })).status).toBe(400);
  });

  it("a file that is not what the field takes is refused with invalid: a video result as an image, bytes that are not an image", async () => {
    const video = (await sim.submit({ type: "video", model: "video-model-a", prompt: "v" })).json.id;
    await sim.advance(30);
    const clip = (await sim.get(`/v1/generations/${video}`)).json.output_urls[0];
    expect(details(await sim.submit({ type: "upscale", image_url: clip, scale: 2 }))).toEqual(["image_url:invalid"]);
    const junk = await upload(sim, new TextEncoder().encode("these bytes are not a PNG image at all"));
    expect(details(await sim.submit({ type: "upscale", image_url: junk, scale: 2 }))).toEqual(["image_url:invalid"]);
    expect((await sim.submit({ type: "video", model: "video-model-a", video_url: clip })).status).toBe(202);
    expect(details(await sim.submit({ type: "video", model: "video-model-a", video_url: await upload(sim) }))).toEqual(["video_url:invalid"]);
  });

  it("LIM-5: a submit refused after reference processing spends a submit of the window; a refusal before it, or of a body without references, does not", async () => {
    const remaining = async () => (await sim.get("/v1/me")).json.limits.submissions.remaining as number;
    const start = await remaining();
    await sim.submit({ type: "upscale", image_url: "upl_01NOSUCHUPLOAD00000000000", scale: 2 });
    expect(await remaining()).toBe(start - 1);
    await sim.submit({ type: "upscale", image_url: "upl_x", scale: 3 });
    expect(await remaining()).toBe(start - 1);
    const ref = await upload(sim);
    await sim.control("PATCH", "accounts/acc_demo", { balance_cc: 0 });
    const broke = await sim.submit({ type: "upscale", image_url: ref, scale: 2 });
    expect(broke.json.error.code).toBe("insufficient_credits");
    expect(await remaining()).toBe(start - 2);
    const plain = await sim.submit({ type: "video", model: "video-model-a" });
    expect(plain.json.error.code).toBe("insufficient_credits");
    expect(await remaining()).toBe(start - 2);
  });
});

describe("estimates that depend on a file", () => {
  it("PRICE-5 PRICE-3: the upscale price is measured from the image, and the submit charges the same", async () => {
    const small = await upload(sim);
    const large = await upload(sim, png(600));
    const photo = await upload(sim, fixture("lossy.webp"), { contentType: "image/webp" });
    const estimate = async (image_url: string, scale: number) => (await sim.post("/v1/pricing/estimate", { type: "upscale", image_url, scale })).json;
    expect((await estimate(small, 2)).breakdown).toEqual({ variant: "per_output_megapixel", units: 1, surcharge_cc: 0 });
    // 600x600 times 4 is 2400x2400: 5.76 megapixels, billed as 6.
    const big = await estimate(large, 4);
    expect(big).toMatchObject({ price_cc: 150, breakdown: { units: 6 } });
    // 301x199 times 4 is 1204x796: 0.96 megapixels, billed as 1.
    expect((await estimate(photo, 4)).breakdown.units).toBe(1);
    const before = (await sim.get("/v1/me")).json.credits.main_cc;
    const gen = await sim.submit({ type: "upscale", image_url: large, scale: 4 });
    expect(gen.json.cost_cc).toBe(150);
    expect((await sim.get("/v1/me")).json.credits.main_cc).toBe(before - 150);
  });

  it("PRICE-5 PRICE-7: a file that cannot be read answers 400 with details, never a price, as the submit would", async () => {
    const foreign = await upload(sim, PNG, { key: OTHER });
    const cases: [Record<string, unknown>, string][] = [
      [{ type: "upscale", image_url: "https://conformance.invalid/missing.png", scale: 2 }, "image_url:unfetchable_reference"],
      [{ type: "upscale", image_url: "upl_01NOSUCHUPLOAD00000000000", scale: 2 }, "image_url:reference_unavailable"],
      [{ type: "upscale", image_url: foreign, scale: 2 }, "image_url:foreign_reference"],
      [{ type: "video", model: "video-model-b", image_urls: ["upl_01NOSUCHUPLOAD00000000000"] }, "image_urls.0:reference_unavailable"],
    ];
    for (const [body, expected] of cases) {
      const r = await sim.post("/v1/pricing/estimate", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.error.code).toBe("invalid_request");
      expect(details(r)).toEqual([expected]);
      expect(details(await sim.submit(body))).toEqual([expected]);
    }
  });
});
