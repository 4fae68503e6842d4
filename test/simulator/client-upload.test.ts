// The package's own client uploads to the simulator both ways (direct PUT to storage,
// proxy PUT), retries across a lost answer, and the reference then works in a submit:
// the path a frontend built on the client takes.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createHubClient, HubApiError, HubHttpError } from "../../src/client/index.ts";
import { expectConforming, FULL, startSim, type Sim } from "./support/harness.ts";
import { fixture, PNG } from "./support/uploads.ts";

let sim: Sim;
beforeAll(async () => {
  sim = await startSim();
});
beforeEach(() => sim.hub.reset());
afterAll(() => sim.close());

/** Every API answer the client receives is checked against the contract; storage answers are not API answers. */
const checked = (inner: typeof fetch = fetch): typeof fetch => async (input, init) => {
  const method = (input instanceof Request ? input.method : init?.method) ?? "GET";
  const res = await inner(input, init);
  if (new URL(res.url).pathname.startsWith("/v1/")) expectConforming(method, res.url, res.status, res.headers, await res.clone().text());
  return res;
};

const client = (fetchImpl?: typeof fetch) => createHubClient({ baseUrl: sim.url, apiKey: FULL, fetch: checked(fetchImpl), maxRetries: 2 });

describe("the client's upload against the simulator", () => {
  it("UPL-7 UPL-8: direct and proxy uploads land in the library, and the reference is priced and accepted", async () => {
    const hub = client();
    const direct = await hub.upload(new Blob([PNG]), { contentType: "image/png" });
    const viaProxy = await hub.upload(fixture("photo.jpg"), { contentType: "image/jpeg", via: "proxy" });
    expect(viaProxy.bytesStored).toBe(fixture("photo.jpg").length);
    const refs = (await hub.GET("/v1/library/assets")).data.data.map((a) => (a as unknown as { reference: string }).reference);
    expect(refs.sort()).toEqual([direct.reference, viaProxy.reference].sort());
    const estimate = await hub.POST("/v1/pricing/estimate", { body: { type: "upscale", image_url: viaProxy.reference, scale: 2 } });
    expect(estimate.data.breakdown.units).toBe(1);
    const gen = await hub.submit({ type: "upscale", image_url: direct.reference, scale: 2 }, { idempotencyKey: "client-upload" });
    expect(gen.status).toBe(202);
  });

  it("ST-7: a storage PUT whose answer is lost is retried; the 412 then means the first write landed", async () => {
    const storage: number[] = [];
    const losing: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const url = input instanceof Request ? input.url : String(input);
      if (url.includes("/storage/")) {
        storage.push(res.status);
        if (storage.length === 1) throw new TypeError("fetch failed (connection lost after the write)");
      }
      return res;
    };
    const result = await client(losing).upload(PNG, { contentType: "image/png" });
    expect(storage).toEqual([200, 412]);
    const assets = (await client().GET("/v1/library/assets")).data.data;
    expect(assets.map((a) => (a as unknown as { reference: string }).reference)).toEqual([result.reference]);
  });

  it("UPL-3 UPL-7: refusals reach the caller: an unsigned kind as HubApiError, a storage refusal as HubHttpError", async () => {
    const kind = await client().upload(PNG, { contentType: "video/mp4", kind: "video" }).catch((e: unknown) => e);
    expect(kind).toBeInstanceOf(HubApiError);
    expect((kind as HubApiError).code).toBe("upload_unavailable");
    // A fetch that alters the signed type: storage refuses the PUT with 403.
    const altering: typeof fetch = (input, init) => {
      if (input instanceof Request && input.url.includes("/storage/")) {
        const headers = new Headers(input.headers);
        headers.set("content-type", "image/webp");
        return fetch(new Request(input, { headers }));
      }
      return fetch(input, init);
    };
    const refused = await client(altering).upload(PNG, { contentType: "image/png" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(HubHttpError);
    expect((refused as HubHttpError).status).toBe(403);
  });
});
