// Waiting for a final status (stream, then polling) and uploads (ticket, then one PUT).
import { afterEach, describe, expect, it } from "vitest";
import { createHubClient, HubApiError, HubHttpError, HubTimeoutError } from "../../src/client/index.ts";
import { answer, GEN_ID, record, refuse, serve, type Handler, type TestServer } from "./support/server.ts";
import { EventLog } from "./support/stream.ts";

const servers: TestServer[] = [];
let log: EventLog | undefined;
afterEach(async () => {
  for (const s of servers.splice(0)) {
    await s.close();
    expect(s.violations).toEqual([]);
  }
  if (log) expect(log.violations).toEqual([]);
  log = undefined;
});

async function start(handler: Handler) {
  const s = await serve(handler);
  servers.push(s);
  return s;
}

async function until(check: () => boolean, ms = 5_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("waiting for a final status", () => {
  it("ST-5 EVT-5: follows the stream, re-reads the record on a final event and returns it", async () => {
    const events = (log = new EventLog());
    let status = "QUEUED";
    const server = await start((req, res) => {
      if (req.path === "/v1/events") return events.serve(req, res);
      answer(res, 200, record(GEN_ID, status, status === "DONE" ? { output_urls: [`http://x/v1/generations/${GEN_ID}/outputs/video/0`] } : {}));
    });
    const hub = createHubClient({ baseUrl: server.url, apiKey: "k" });
    const pending = hub.waitForGeneration(GEN_ID, { pollInterval: 60_000 });
    await until(() => server.requests.some((r) => r.path === `/v1/generations/${GEN_ID}`));
    status = "RUNNING";
    events.statusChanged(GEN_ID, "RUNNING");
    events.statusChanged("gen_other_000000000000000000", "DONE");
    await new Promise((r) => setTimeout(r, 50));
    status = "DONE";
    events.statusChanged(GEN_ID, "DONE");
    const done = await pending;
    expect(done.status).toBe("DONE");
    // The stream was opened before the first read, and only the final event caused a re-read.
    expect(server.requests.map((r) => r.path)).toEqual(["/v1/events", `/v1/generations/${GEN_ID}`, `/v1/generations/${GEN_ID}`]);
  });

  it("ST-4 ERR-1: FAILED is final and returned as a record, not thrown", async () => {
    const events = (log = new EventLog());
    const server = await start((req, res) =>
      req.path === "/v1/events" ? events.serve(req, res) : answer(res, 200, record(GEN_ID, "FAILED", { error: { reason: "timeout" } })),
    );
    const hub = createHubClient({ baseUrl: server.url, apiKey: "k" });
    const failed = await hub.waitForGeneration(GEN_ID);
    expect(failed.status).toBe("FAILED");
    expect(failed.error?.reason).toBe("timeout");
  });

  it("EVT-12: falls back to polling when the stream cannot be opened", async () => {
    let reads = 0;
    const server = await start((req, res) => {
      if (req.path === "/v1/events") return refuse(res, "too_many_streams", { headers: { "Retry-After": "0" } });
      reads++;
      answer(res, 200, record(GEN_ID, reads >= 3 ? "DONE" : "RUNNING"));
    });
    const hub = createHubClient({ baseUrl: server.url, apiKey: "k" });
    const done = await hub.waitForGeneration(GEN_ID, { pollInterval: 20 });
    expect(done.status).toBe("DONE");
    expect(reads).toBe(3);
  });

  it("stream: false polls only", async () => {
    let reads = 0;
    const server = await start((req, res) => answer(res, 200, record(GEN_ID, ++reads >= 2 ? "DONE" : "PENDING")));
    const hub = createHubClient({ baseUrl: server.url, apiKey: "k" });
    await hub.waitForGeneration(GEN_ID, { stream: false, pollInterval: 10 });
    expect(server.requests.every((r) => r.path === `/v1/generations/${GEN_ID}`)).toBe(true);
  });

  it("GEN-9: a generation that disappears (404) is thrown, not waited on", async () => {
    const server = await start((req, res) => refuse(res, "not_found"));
    const hub = createHubClient({ baseUrl: server.url, apiKey: "k" });
    const error = (await hub.waitForGeneration(GEN_ID, { stream: false }).catch((e: unknown) => e)) as HubApiError;
    expect(error.code).toBe("not_found");
  });

  it("an overall timeout ends the wait with HubTimeoutError", async () => {
    const server = await start((req, res) => answer(res, 200, record(GEN_ID, "RUNNING")));
    const hub = createHubClient({ baseUrl: server.url, apiKey: "k" });
    await expect(hub.waitForGeneration(GEN_ID, { stream: false, pollInterval: 20, timeout: 150 })).rejects.toBeInstanceOf(HubTimeoutError);
  });
});

describe("uploads", () => {
  const bytes = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 1, 2, 3]);

  async function api(storageUrl: string) {
    return start((req, res) => {
      if (req.path === "/v1/uploads") {
        const body = JSON.parse(req.body) as { kind: string; content_type: string; content_length: number };
        if (body.kind !== "image") return refuse(res, "upload_unavailable");
        return answer(res, 200, {
          url: `${storageUrl}/bucket/obj_1?sig=abc`,
          proxy_path: "/v1/uploads/content?ticket=t_1",
          headers: { "Content-Type": body.content_type, "Content-Length": String(body.content_length), "If-None-Match": "*" },
          reference: "upl_ref_1",
          expires_at: "2026-11-22T12:00:00Z",
        });
      }
      if (req.path === "/v1/uploads/content") {
        return answer(res, 200, { reference: "upl_ref_1", bytes_stored: req.bytes.length });
      }
      refuse(res, "not_found");
    });
  }

  it("UPL-1 UPL-2 UPL-7: ticket with the exact length, then one PUT with exactly the ticket's headers and no Authorization", async () => {
    let writes = 0;
    const storage = await start((req, res) => {
      writes++;
      res.writeHead(200).end();
    });
    const server = await api(storage.url);
    const hub = createHubClient({ baseUrl: server.url, apiKey: "hub_secret_key" });
    const result = await hub.upload(new Blob([bytes]), { contentType: "image/png" });
    expect(result.reference).toBe("upl_ref_1");
    expect(result.via).toBe("direct");
    expect(JSON.parse(server.requests[0]!.body)).toEqual({ kind: "image", content_type: "image/png", content_length: bytes.length });
    const put = storage.requests[0]!;
    expect(put.method).toBe("PUT");
    expect(put.url.search).toBe("?sig=abc");
    expect(put.headers["content-type"]).toBe("image/png");
    expect(put.headers["content-length"]).toBe(String(bytes.length));
    expect(put.headers["if-none-match"]).toBe("*");
    expect(put.headers.authorization).toBeUndefined();
    expect(put.headers["x-request-id"]).toBeUndefined();
    expect([...put.bytes]).toEqual([...bytes]);
    expect(writes).toBe(1);
  });

  it("ST-7 UPL-7: a retried PUT that meets 412 means the first write landed: the upload is done", async () => {
    let n = 0;
    const storage = await start((req, res) => {
      // The first write lands but its answer is lost; the retry meets "written once".
      if (n++ === 0) return void res.socket?.destroy();
      res.writeHead(412).end();
    });
    const server = await api(storage.url);
    const hub = createHubClient({ baseUrl: server.url, apiKey: "k", backoffBase: 5 });
    const result = await hub.upload(bytes, { contentType: "image/png" });
    expect(result.reference).toBe("upl_ref_1");
    expect(storage.requests).toHaveLength(2);
  });

  it("UPL-7: a storage refusal on the first attempt (403 header mismatch) is thrown", async () => {
    const storage = await start((req, res) => void res.writeHead(403, { "Content-Type": "application/xml" }).end("<Error>SignatureDoesNotMatch</Error>"));
    const server = await api(storage.url);
    const hub = createHubClient({ baseUrl: server.url, apiKey: "k" });
    const error = (await hub.upload(bytes, { contentType: "image/png" }).catch((e: unknown) => e)) as HubHttpError;
    expect(error).toBeInstanceOf(HubHttpError);
    expect(error.status).toBe(403);
  });

  it("UPL-8: the proxy path: PUT to proxy_path on this API with credentials and the ticket's type", async () => {
    const server = await api("http://127.0.0.1:9");
    const hub = createHubClient({ baseUrl: server.url, apiKey: "hub_secret_key" });
    const result = await hub.upload(bytes, { contentType: "image/png", via: "proxy" });
    expect(result).toMatchObject({ reference: "upl_ref_1", via: "proxy", bytesStored: bytes.length });
    const put = server.requests[1]!;
    expect(put.method).toBe("PUT");
    expect(put.path + put.url.search).toBe("/v1/uploads/content?ticket=t_1");
    expect(put.headers.authorization).toBe("Bearer hub_secret_key");
    expect(put.headers["content-type"]).toBe("image/png");
    expect(put.headers["content-length"]).toBe(String(bytes.length));
    expect([...put.bytes]).toEqual([...bytes]);
  });

  it("UPL-3: an unsigned kind answers upload_unavailable and nothing is PUT", async () => {
    const server = await api("http://127.0.0.1:9");
    const hub = createHubClient({ baseUrl: server.url, apiKey: "k" });
    const error = (await hub.upload(bytes, { contentType: "video/mp4", kind: "video" }).catch((e: unknown) => e)) as HubApiError;
    expect(error.code).toBe("upload_unavailable");
    expect(server.requests).toHaveLength(1);
  });
});
