// Bad input never breaks the simulator: every fault gets an envelope answer or a
// clean close, never a 500, a hang, a stack trace, a framework body or changed state.
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { operations, schemaValidator } from "../../src/contract/index.ts";
import { isoTime } from "../../src/simulator/state/util.ts";
import { expectConforming, startSim, type Sim } from "./support/harness.ts";
import { signIn } from "./support/site.ts";

let sim: Sim;
let errors: ReturnType<typeof vi.spyOn>;
const BODY_LIMIT = 4096;
beforeAll(async () => {
  sim = await startSim({ bodyLimit: BODY_LIMIT });
});
beforeEach(() => {
  sim.hub.reset();
  errors = vi.spyOn(console, "error");
});
afterEach(() => {
  // Nothing reached the internal-error path.
  expect(errors).not.toHaveBeenCalled();
  errors.mockRestore();
});
afterAll(() => sim.close());

const envelopeValid = schemaValidator("ErrorEnvelope");

/** Sends raw bytes and reads everything the server answers until it closes or goes quiet. */
function rawExchange(bytes: string | Buffer, { end = true, quietMs = 300 } = {}): Promise<string> {
  const { port } = new URL(sim.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1");
    let data = "";
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(data);
    };
    socket.on("data", (d) => {
      data += d.toString("latin1");
      clearTimeout(timer);
      timer = setTimeout(done, quietMs);
    });
    socket.on("close", done);
    socket.on("error", (e) => (data ? done() : reject(e)));
    socket.write(bytes);
    if (end) socket.end();
  });
}

function parseRaw(text: string): { status: number; headers: Headers; body: string } {
  const [head, ...rest] = text.split("\r\n\r\n");
  const [statusLine, ...lines] = head!.split("\r\n");
  const headers = new Headers();
  for (const l of lines) {
    const i = l.indexOf(":");
    headers.append(l.slice(0, i).trim(), l.slice(i + 1).trim());
  }
  return { status: Number(statusLine!.split(" ")[1]), headers, body: rest.join("\r\n\r\n") };
}

const video = { type: "video", model: "video-model-a" };

describe("bodies", () => {
  it("SUB-6: malformed JSON answers 400 invalid_request in the envelope", async () => {
    const r = await sim.call("POST", "/v1/generations", { raw: '{"type": "video",', idempotencyKey: "k", headers: { "content-type": "application/json" } });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ code: "invalid_request", details: [{ reason: "invalid" }] });
    expect(r.text).not.toMatch(/FST_|SyntaxError|at .*\.ts/);
  });

  it("a wrong content type answers 400 naming Content-Type", async () => {
    const r = await sim.call("POST", "/v1/generations", { raw: JSON.stringify(video), idempotencyKey: "k", headers: { "content-type": "text/plain" } });
    expect(r.status).toBe(400);
    expect(r.json.error.details).toEqual([expect.objectContaining({ field: "Content-Type", reason: "not_allowed" })]);
    // Bytes, so fetch adds no Content-Type of its own.
    const none = await sim.call("POST", "/v1/pricing/estimate", { raw: new TextEncoder().encode(JSON.stringify(video)) });
    expect(none.status).toBe(400);
    expect(none.json.error.details).toEqual([expect.objectContaining({ field: "Content-Type", reason: "required" })]);
  });

  it("W-3: every JSON route takes application/json only: another media type, another charset or a stray parameter answers 400 naming Content-Type", async () => {
    const cookie = await signIn(sim);
    const jsonRoutes = operations().filter((op) => (op.op.requestBody as { content?: object } | undefined)?.content && "application/json" in (op.op.requestBody as { content: object }).content);
    expect(jsonRoutes.length).toBeGreaterThanOrEqual(14);
    for (const op of jsonRoutes) {
      const sessionOnly = op.schemes.length === 1 && op.schemes[0] === "session_cookie";
      const auth: Record<string, string> = sessionOnly ? { cookie, origin: sim.url } : {};
      const key = sessionOnly ? null : undefined;
      const path = op.path.replace(/\{[^}]+\}/g, "x");
      for (const type of ["application/merge-patch+json", "application/vnd.api+json", "application/json; charset=utf-16", "application/json;;;", "text/json"]) {
        const r = await sim.call(op.method.toUpperCase(), path, { key, raw: "{}", idempotencyKey: "ct", headers: { "content-type": type, ...auth } });
        const what = `${op.operationId} with ${type}`;
        expect(r.status, what).toBe(400);
        if (op.path.startsWith("/oauth/")) expect(r.json, what).toMatchObject({ error: "invalid_client_metadata", error_description: expect.stringContaining("application/json") });
        else expect(r.json.error.details, what).toEqual([expect.objectContaining({ field: "Content-Type", reason: "not_allowed" })]);
      }
      // The same body as plain application/json, with or without charset=utf-8, is read.
      for (const type of ["application/json", "Application/JSON; charset=UTF-8"]) {
        const r = await sim.call(op.method.toUpperCase(), path, { key, raw: "{}", idempotencyKey: "ct", headers: { "content-type": type, ...auth } });
        expect(JSON.stringify(r.json ?? {}), `${op.operationId} with ${type}`).not.toContain("Content-Type");
      }
    }
  });

  it("an empty body, invalid UTF-8 and non-object JSON each answer 400", async () => {
    const ct = { "content-type": "application/json" };
    const empty = await sim.call("POST", "/v1/generations/status", { raw: "", headers: ct });
    expect(empty.status).toBe(400);
    const utf = await sim.call("POST", "/v1/generations/status", { raw: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), headers: ct });
    expect(utf.status).toBe(400);
    for (const raw of ["null", "[]", "42", '"x"', "true"]) {
      const r = await sim.call("POST", "/v1/generations", { raw, idempotencyKey: `k${raw}`, headers: ct });
      expect(r.status, raw).toBe(400);
      expect(r.json.error.code).toBe("invalid_request");
    }
  });

  it("deeply nested JSON answers 400, not 500", async () => {
    const deep = "[".repeat(1500) + "]".repeat(1500);
    const r = await sim.call("POST", "/v1/generations", { raw: `{"type":"video","model":"video-model-a","image_urls":${deep}}`, idempotencyKey: "deep", headers: { "content-type": "application/json" } });
    expect(r.status).toBe(400);
    // The same key then works for a proper body: nothing was stored.
    expect((await sim.submit(video, { idempotencyKey: "deep" })).status).toBe(202);
  });

  it("LIM-7: a body above the cap answers 413 request_too_large (with Content-Length and chunked)", async () => {
    const big = JSON.stringify({ ...video, prompt: "x".repeat(BODY_LIMIT) });
    const r = await sim.call("POST", "/v1/generations", { raw: big, idempotencyKey: "big", headers: { "content-type": "application/json" } });
    expect(r.status).toBe(413);
    expect(r.json.error.code).toBe("request_too_large");
    const chunked = await rawExchange(
      `POST /v1/generations HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ghk_demo_full\r\nIdempotency-Key: c\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n` +
        `${(BODY_LIMIT * 2).toString(16)}\r\n${"x".repeat(BODY_LIMIT * 2)}\r\n0\r\n\r\n`,
    );
    const parsed = parseRaw(chunked);
    expect(parsed.status).toBe(413);
    expect(envelopeValid(JSON.parse(parsed.body.replace(/^[0-9a-f]+\r\n/, "").replace(/\r\n0\r\n$/, "")))).toBe(true);
    expect((await sim.get("/v1/generations")).json.data).toEqual([]);
  });

  it("a client gone mid-body, before or after a 413: nothing reaches the hub, nothing fails, the next request is served", async () => {
    const { port } = new URL(sim.url);
    const head = (length: number) =>
      `POST /v1/generations HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ghk_demo_full\r\nIdempotency-Key: gone\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    /** Sends `bytes`, waits for the server to read them (and answer, if it does), then goes away; answers what came back. */
    const goAway = (bytes: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), "127.0.0.1", () => socket.write(bytes));
        let data = "";
        socket.on("data", (d) => (data += d));
        socket.on("error", reject);
        setTimeout(() => {
          socket.destroy();
          resolve(data);
        }, 200);
      });
    // Fewer bytes than the head promised (a whole submit's, so a server that took them for the body would store it).
    expect(await goAway(head(500) + JSON.stringify(video))).toBe("");
    // A body over the cap sent without a length: the 413 leaves while the client still sends, then it goes.
    const over = await goAway(`${head(BODY_LIMIT * 4).replace(/Content-Length: \d+/, "Transfer-Encoding: chunked")}${(BODY_LIMIT * 2).toString(16)}\r\n${"x".repeat(BODY_LIMIT * 2)}\r\n`);
    expect(parseRaw(over).status).toBe(413);
    const me = await sim.get("/v1/me");
    expect(me.status).toBe(200);
    expect((await sim.get("/v1/generations")).json.data).toEqual([]);
    // The same key then works for a whole body: the cut ones stored nothing.
    expect((await sim.submit(video, { idempotencyKey: "gone" })).status).toBe(202);
  });
});

describe("request lines and headers", () => {
  it("huge headers and huge query strings answer 413 in the envelope", async () => {
    for (const request of [
      `GET /v1/me HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ghk_demo_full\r\nX-Filler: ${"a".repeat(40_000)}\r\n\r\n`,
      `GET /v1/generations?${"q=1&".repeat(10_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`,
    ]) {
      const answer = parseRaw(await rawExchange(request));
      expect(answer.status).toBe(413);
      const body = JSON.parse(answer.body);
      expect(envelopeValid(body)).toBe(true);
      expect(body.error.code).toBe("request_too_large");
      expect(answer.headers.get("x-request-id")).toBe(body.error.request_id);
    }
  });

  it("a long path within the limits and a path that does not decode answer 404 in the envelope", async () => {
    for (const path of [`/v1/generations/${"g".repeat(9000)}`, "/v1/generations/%E0%A4%A", "/v1/%"]) {
      const r = await sim.get(path);
      expect(r.status, path.slice(0, 40)).toBe(404);
      expect(r.json.error.code).toBe("not_found");
    }
  });

  it("a limit or cursor that is not valid answers 400 with its own code, never clamped", async () => {
    for (const [q, code] of [["limit=0", "invalid_limit"], ["limit=101", "invalid_limit"], ["limit=abc", "invalid_limit"], ["limit=1e3", "invalid_limit"], ["cursor=", "invalid_cursor"], ["cursor=nonsense", "invalid_cursor"]]) {
      const r = await sim.get(`/v1/generations?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.json.error.code, q).toBe(code);
    }
  });

  it("a request line Node cannot parse gets an envelope answer, then the connection closes", async () => {
    const answer = parseRaw(await rawExchange("GARBAGE\r\n\r\n"));
    expect(answer.status).toBe(400);
    expect(envelopeValid(JSON.parse(answer.body))).toBe(true);
  });
});

describe("clients that go away", () => {
  it("a client that disconnects mid-request changes nothing, and the server keeps serving", async () => {
    const body = JSON.stringify({ ...video, prompt: "half" });
    await rawExchange(
      `POST /v1/generations HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ghk_demo_full\r\nIdempotency-Key: half\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
      { end: true, quietMs: 100 },
    );
    expect((await sim.get("/v1/generations")).json.data).toEqual([]);
    expect((await sim.submit(video, { idempotencyKey: "half" })).status).toBe(202);
  });

  it("a client that disconnects mid-stream is forgotten: its slot frees and later events go nowhere", async () => {
    const streams = await Promise.all(Array.from({ length: 3 }, () => sim.open()));
    expect(sim.hub.events.streamsOfKey("key_full")).toBe(3);
    for (const s of streams) s.drop();
    await expect.poll(() => sim.hub.events.streamsOfKey("key_full")).toBe(0);
    expect((await sim.submit(video)).status).toBe(202);
    await sim.advance(60);
    expect(sim.hub.events.openStreams.size).toBe(0);
  });

  it("a raw stream socket closed by the client frees its slot", async () => {
    const { port } = new URL(sim.url);
    const socket = connect(Number(port), "127.0.0.1");
    await new Promise<void>((ok) => socket.on("connect", ok));
    socket.write("GET /v1/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ghk_demo_full\r\n\r\n");
    await expect.poll(() => sim.hub.events.streamsOfKey("key_full")).toBe(1);
    socket.destroy();
    await expect.poll(() => sim.hub.events.streamsOfKey("key_full")).toBe(0);
  });
});

describe("answers stay in the contract", () => {
  it("HEAD and OPTIONS (CORS closed by default) answer 404 in the envelope", async () => {
    const res = await fetch(`${sim.url}/v1/generations`, { method: "OPTIONS", headers: { origin: "http://localhost:5173", "access-control-request-method": "GET", "access-control-request-headers": "authorization" } });
    const text = await res.text();
    expectConforming("OPTIONS", `${sim.url}/v1/generations`, res.status, res.headers, text);
    expect(res.status).toBe(404);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    // The answer says why and what to do, for whoever reads it in the browser's network panel.
    const message = JSON.parse(text).error.message as string;
    expect(message).toContain("browsers cannot send API keys or tokens to /v1");
    expect(message).toContain('--cors "http://localhost:5173"');
    expect(message).toContain("proxy");
    const head = await fetch(`${sim.url}/v1/models`, { method: "HEAD", headers: { authorization: "Bearer ghk_demo_full" } });
    expect(head.status).toBe(404);
  });

  it("a path of the contract called with another method says which methods it takes (404 not_found with Allow)", async () => {
    const r = await sim.get("/v1/pricing/estimate");
    expect(r.status).toBe(404);
    expect(r.json.error.code).toBe("not_found");
    expect(r.json.error.message).toBe("No endpoint GET /v1/pricing/estimate: this path takes POST.");
    expect(r.headers.get("allow")).toBe("POST");
    const generations = await sim.call("DELETE", "/v1/generations");
    expect(generations.json.error.message).toBe("No endpoint DELETE /v1/generations: this path takes GET, POST.");
    const id = await sim.call("PUT", "/v1/library/folders/fld_x");
    expect(id.headers.get("allow")).toBe("PATCH, DELETE");
    const unknown = await sim.get("/v1/nothing");
    expect(unknown.json.error.message).toBe("No endpoint GET /v1/nothing.");
    expect(unknown.headers.get("allow")).toBeNull();
  });
});

describe("the control interface and the protocol's edges", () => {
  it("a period end or key life far out of range answers 400 out_of_range, and the server keeps answering", async () => {
    const far = await sim.control("PATCH", "subscriptions/acc_demo", { period_end_in_days: -1e20 });
    expect(far.status).toBe(400);
    expect(far.json.error.details[0]).toMatchObject({ field: "period_end_in_days", reason: "out_of_range" });
    const key = await sim.control("POST", "keys", { expires_in_seconds: 1e20 });
    expect(key.status).toBe(400);
    expect(key.json.error.details[0]).toMatchObject({ field: "expires_in_seconds", reason: "out_of_range" });
    expect((await sim.control("GET", "keys")).status).toBe(200);
    expect((await sim.get("/v1/billing/subscription")).status).toBe(200);
  });

  it("a renewing subscription a century behind renews in whole periods at once", async () => {
    expect((await sim.control("PATCH", "subscriptions/acc_demo", { period_end_in_days: -36_500 })).status).toBe(200);
    const now = ((await sim.control("GET", "clock")).json as { now_ms: number }).now_ms;
    const sub = (await sim.get("/v1/billing/subscription")).json;
    const end = Date.parse(sub.current_period_end);
    expect(end).toBeGreaterThan(now);
    expect(end - now).toBeLessThanOrEqual(31 * 86_400_000);
  });

  it("a time that cannot be written fails every time, never answering the previous time's text", () => {
    expect(isoTime(0)).toBe("1970-01-01T00:00:00.000Z");
    expect(() => isoTime(1e20)).toThrow(RangeError);
    expect(() => isoTime(1e20)).toThrow(RangeError);
  });

  it("a control path that does not decode answers 404 in the envelope", async () => {
    for (const path of ["accounts/%zz", "%zz", "keys/%E0%A4%A", "subscriptions/%FF"]) {
      const r = await sim.control("GET", path);
      expect(r.status, path).toBe(404);
      expect(r.json.error.code, path).toBe("not_found");
    }
  });

  it("a control body nested deeper than 32 levels answers 400", async () => {
    // Within this server's body limit; thousands of levels (a larger limit) overflowed the stack.
    const deep = "[".repeat(1500) + "]".repeat(1500);
    const r = await sim.call("PUT", "/_sim/oauth/documents", { key: null, raw: `{"url":"https://app.example/c.json","document":${deep}}`, headers: { "content-type": "application/json" } });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe("invalid_request");
  });

  it("OAUTH-16: a key set at jwks_uri holding a key that is not an object makes the client's assertion invalid_client", async () => {
    const jwks = "https://app.example/jwks.json";
    await sim.control("PUT", "oauth/documents", { url: jwks, document: { keys: [null] } });
    const registered = await fetch(`${sim.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: ["https://app.example/cb"], token_endpoint_auth_method: "private_key_jwt", jwks_uri: jwks }),
    });
    const clientId = ((await registered.json()) as { client_id: string }).client_id;
    const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const assertion = `${part({ alg: "ES256" })}.${part({ iss: clientId, sub: clientId })}.c2ln`;
    for (const route of ["/oauth/token", "/oauth/revoke"]) {
      const form = new URLSearchParams({ client_id: clientId, client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", client_assertion: assertion });
      if (route === "/oauth/token") form.set("grant_type", "refresh_token");
      form.set(route === "/oauth/token" ? "refresh_token" : "token", "x");
      const res = await fetch(`${sim.url}${route}`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form });
      expect(res.status, route).toBe(401);
      expect(((await res.json()) as { error: string }).error, route).toBe("invalid_client");
    }
  });

  it("an Expect other than 100-continue is ignored: the request is served, not answered with a bare 417", async () => {
    const { port } = new URL(sim.url);
    const answer = parseRaw(await rawExchange(`GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ghk_demo_full\r\nExpect: foo\r\nConnection: close\r\n\r\n`));
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-request-id")).toMatch(/^req_/);
  });

  it("an HTTP/1.1 request without Host answers 400 invalid_request naming Host, in the envelope", async () => {
    const answer = parseRaw(await rawExchange("GET /v1/me HTTP/1.1\r\nAuthorization: Bearer ghk_demo_full\r\nConnection: close\r\n\r\n"));
    expect(answer.status).toBe(400);
    const body = JSON.parse(answer.body);
    expect(envelopeValid(body)).toBe(true);
    expect(body.error.details[0]).toMatchObject({ field: "Host", reason: "required" });
  });
});

describe("ambiguous requests", () => {
  /** Sends each header value as a line of its own (fetch would join them into one). */
  function withRepeatedHeader(path: string, name: string, values: string[]): Promise<{ status: number; body: any }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(sim.url + path, { headers: { [name]: values } }, (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      });
      req.on("error", reject);
      req.end();
    });
  }

  it("AUTH-1: two Authorization headers never authenticate: 400 invalid_request naming Authorization, whichever comes first", async () => {
    for (const values of [["Bearer ghk_demo_other", "Bearer ghk_demo_full"], ["Bearer ghk_demo_full", "Bearer ghk_demo_full"], ["Bearer ghk_demo_full", "Bearer nonsense"]]) {
      const r = await withRepeatedHeader("/v1/me", "authorization", values);
      expect(r.status, values.join(" + ")).toBe(400);
      expect(envelopeValid(r.body)).toBe(true);
      expect(r.body.error).toMatchObject({ code: "invalid_request", details: [{ field: "Authorization", reason: "duplicate" }] });
    }
  });

  it("PAGE-3: a singular query parameter given twice answers 400 invalid_request naming it, in either order", async () => {
    for (const query of ["limit=2&limit=abc", "limit=abc&limit=2", "limit=2&limit=2", "cursor=a&cursor=b"]) {
      const r = await sim.get(`/v1/generations?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.json.error, query).toMatchObject({ code: "invalid_request", details: [{ field: query.split("=")[0], reason: "duplicate" }] });
    }
    for (const [path, name] of [["/v1/models", "type"], ["/v1/knowledge", "q"], ["/v1/billing/transactions", "limit"], ["/v1/library/assets", "cursor"]] as const) {
      const r = await sim.get(`${path}?${name}=a&${name}=b`);
      expect(r.json.error, path).toMatchObject({ code: "invalid_request", details: [{ field: name, reason: "duplicate" }] });
    }
    // One value of each is read as before.
    expect((await sim.get("/v1/generations?limit=2&cursor")).status).not.toBe(500);
    expect((await sim.get("/v1/generations?limit=2")).status).toBe(200);
  });
});
