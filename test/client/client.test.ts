// Requests and answers of the client: credentials, request ids, typed errors, rate
// limits, paging and batch reads, against local servers that speak the contract.
import { describe, expect, it } from "vitest";
import { createHubClient, HubApiError, model3dType, parseRateLimit, paginateWith } from "../../src/client/index.ts";
import { account, answer, GEN_ID, record, refuse, serverPerTest, type Handler } from "./support/server.ts";

const hubWith = serverPerTest({ backoffBase: 5, backoffMax: 20 });

describe("requests", () => {
  it("AUTH-1 EP-2: every request carries the key as a bearer token and an X-Request-Id of its own", async () => {
    const { hub, server } = await hubWith((req, res) => answer(res, 200, record(GEN_ID, "RUNNING")));
    await hub.GET("/v1/generations/{id}", { params: { path: { id: GEN_ID } } });
    await hub.GET("/v1/generations/{id}", { params: { path: { id: GEN_ID } } });
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(["Bearer hub_test_key", "Bearer hub_test_key"]);
    const ids = server.requests.map((r) => r.headers["x-request-id"]);
    expect(ids.every((id) => typeof id === "string" && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(2);
  });

  it("EP-2: each attempt of a retried request has its own X-Request-Id; a caller's id is kept", async () => {
    let n = 0;
    const { hub, server } = await hubWith((req, res) => (n++ % 2 === 0 ? refuse(res, "service_unavailable") : answer(res, 200, record(GEN_ID, "DONE"))));
    await hub.GET("/v1/generations/{id}", { params: { path: { id: GEN_ID } } });
    const [a, b] = server.requests.map((r) => r.headers["x-request-id"]);
    expect(a).not.toBe(b);
    const mine = await hub.GET("/v1/generations/{id}", { params: { path: { id: GEN_ID }, header: { "X-Request-Id": "req_mine" } } });
    expect(server.requests.slice(2).map((r) => r.headers["x-request-id"])).toEqual(["req_mine", "req_mine"]);
    expect(mine.requestId).toBe("req_mine");
  });

  it("EP-2 ENV-4: the server's request id is on every result and every error", async () => {
    const { hub } = await hubWith((req, res) =>
      req.path === "/v1/me" ? answer(res, 200, account(), { "X-Request-Id": "req_server_1" }) : refuse(res, "not_found", { headers: { "X-Request-Id": "req_server_2" } }),
    );
    expect((await hub.GET("/v1/me")).requestId).toBe("req_server_1");
    const error = (await hub.GET("/v1/generations/{id}", { params: { path: { id: GEN_ID } } }).catch((e: unknown) => e)) as HubApiError;
    expect(error.request_id).toBeTruthy();
    expect(error.headers.get("x-request-id")).toBe("req_server_2");
  });

  it("ENV-1 ENV-5: a refusal is one HubApiError with status, code, user_message, request_id and details", async () => {
    const details = [{ field: "duration", reason: "out_of_range", message: "duration must be <= 30" }];
    const { hub, server } = await hubWith((req, res) => refuse(res, "invalid_request", { details }));
    const error = (await hub.submit({ type: "video", model: "m1", duration: 99 }).catch((e: unknown) => e)) as HubApiError;
    expect(error).toBeInstanceOf(HubApiError);
    expect(error.status).toBe(400);
    expect(error.code).toBe("invalid_request");
    expect(error.user_message).toBe("refused: invalid_request");
    expect(error.request_id).toBe(server.requests[0]!.headers["x-request-id"]);
    expect(error.details).toEqual(details);
  });

  it("ERR-1 GEN-7: a FAILED generation is a record with error.reason, not an error", async () => {
    const { hub } = await hubWith((req, res) => answer(res, 200, record(GEN_ID, "FAILED", { error: { reason: "moderation_block" }, output_urls: [] })));
    const result = await hub.GET("/v1/generations/{id}", { params: { path: { id: GEN_ID } } });
    expect(result.data.status).toBe("FAILED");
    expect(result.data.error?.reason).toBe("moderation_block");
  });

  it("AUTH-8: a token provider is asked again with the rejected token after 401 invalid_token, once", async () => {
    const asked: (string | undefined)[] = [];
    let token = "tok_1";
    const { hub, server } = await hubWith(
      (req, res) => (req.headers.authorization === "Bearer tok_2" ? answer(res, 200, account()) : refuse(res, "invalid_token", { headers: { "WWW-Authenticate": 'Bearer error="invalid_token", resource_metadata="http://x/.well-known/oauth-protected-resource/v1"' } })),
      {
        apiKey: undefined,
        token: ({ rejected }) => {
          asked.push(rejected);
          if (rejected) token = "tok_2";
          return token;
        },
      },
    );
    await hub.GET("/v1/me");
    expect(asked).toEqual([undefined, "tok_1"]);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(["Bearer tok_1", "Bearer tok_2"]);
  });

  it("EP-3 LIM-1 LIM-3: RateLimit and RateLimit-Policy are parsed as structured fields, on results and errors", async () => {
    const { hub } = await hubWith((req, res) =>
      req.path === "/v1/me"
        ? answer(res, 200, account(), { RateLimit: '"account";r=12;t=30', "RateLimit-Policy": '"account";q=600;w=60' })
        : refuse(res, "rate_limited", { details: [{ reason: "request_rate" }], headers: { RateLimit: '"default";r=0;t=7', "Retry-After": "7" } }),
      { maxRetryAfter: 1 },
    );
    expect((await hub.GET("/v1/me")).rateLimit).toEqual({ policy: "account", remaining: 12, reset: 30, quota: 600, window: 60 });
    const error = (await hub.GET("/v1/models").catch((e: unknown) => e)) as HubApiError;
    expect(error.rateLimit).toEqual({ policy: "default", remaining: 0, reset: 7, quota: 60, window: 60 });
  });

  it("LIM-2: absent or malformed rate-limit headers give undefined, never an exception", () => {
    expect(parseRateLimit(new Headers())).toBeUndefined();
    expect(parseRateLimit(new Headers({ RateLimit: "not a structured field;;" }))).toBeUndefined();
    expect(parseRateLimit(new Headers({ RateLimit: '"default";r=5;t=1' }))).toEqual({ policy: "default", remaining: 5, reset: 1, quota: undefined, window: undefined });
    // A policy list naming more windows than the contract sends: the one named by RateLimit is taken.
    const both = new Headers({ RateLimit: '"account";r=1;t=2', "RateLimit-Policy": '"default";q=60;w=60, "account";q=600;w=60' });
    expect(parseRateLimit(both)).toEqual({ policy: "account", remaining: 1, reset: 2, quota: 600, window: 60 });
  });

  it("CAT-4: an unchanged catalog (304) is a result without data, not an error", async () => {
    const { hub } = await hubWith((req, res) =>
      req.headers["if-none-match"] === 'W/"v1"'
        ? void res.writeHead(304, { "X-Request-Id": "r", ETag: 'W/"v1"', "Cache-Control": "private, max-age=0, must-revalidate", Vary: "Authorization, Cookie, Origin" }).end()
        : answer(res, 200, { data: [], next_cursor: null }),
    );
    const result = await hub.GET("/v1/models", { params: { header: { "If-None-Match": 'W/"v1"' } } });
    expect(result.status).toBe(304);
    expect(result.data).toBeUndefined();
  });

  it("SUB-3D: model3dType gives the 3D variant's type and refuses the known variants' values", () => {
    expect(model3dType("model3d")).toBe("model3d");
    expect(() => model3dType("video")).toThrow();
  });

  it("W-3: headers given at creation (Accept-Language) go on every request", async () => {
    const { hub, server } = await hubWith((req, res) => answer(res, 200, account()), { headers: { "Accept-Language": "ru" } });
    await hub.GET("/v1/me");
    expect(server.requests[0]!.headers["accept-language"]).toBe("ru");
  });
});

describe("paging", () => {
  const ids = Array.from({ length: 7 }, (_, i) => `gen_${String(i).padStart(24, "0")}`);
  const pager: Handler = (req, res) => {
    const limit = Number(req.url.searchParams.get("limit") ?? 20);
    const cursor = req.url.searchParams.get("cursor");
    const start = cursor === null ? 0 : Number(cursor.replace("opaque+/=", ""));
    const data = ids.slice(start, start + limit).map((id) => record(id, "DONE"));
    const next = start + limit < ids.length ? `opaque+/=${start + limit}` : null;
    answer(res, 200, { data, next_cursor: next });
  };

  it("PAGE-1 PAGE-2 PAGE-4: iterates items across pages, passing next_cursor back byte for byte", async () => {
    const { hub, server } = await hubWith(pager);
    const seen: string[] = [];
    for await (const g of hub.paginate("/v1/generations", { params: { query: { limit: 3 } } })) seen.push(g.id);
    expect(seen).toEqual(ids);
    expect(server.requests.map((r) => r.url.searchParams.get("cursor"))).toEqual([null, "opaque+/=3", "opaque+/=6"]);
    expect(server.requests.every((r) => r.url.searchParams.get("limit") === "3")).toBe(true);
  });

  it("PAGE-1: pages are HubResults with request id and rate limit, and stop at next_cursor null", async () => {
    const { hub } = await hubWith(pager);
    const pages = [];
    for await (const page of hub.paginate("/v1/generations", { params: { query: { limit: 5 } } }).pages()) pages.push(page);
    expect(pages.map((p) => p.data.data.length)).toEqual([5, 2]);
    expect(pages.at(-1)!.data.next_cursor).toBeNull();
    expect(pages[0]!.requestId).toBeTruthy();
    expect(pages[0]!.rateLimit?.policy).toBe("default");
  });

  it("PAGE-6: a collection never paged (folders) is one page", async () => {
    const { hub, server } = await hubWith((req, res) => answer(res, 200, { data: [{ id: "f1", name: "A", position: 0 }], next_cursor: null }));
    expect(await hub.paginate("/v1/library/folders").toArray()).toEqual([{ id: "f1", name: "A", position: 0 }]);
    expect(server.requests).toHaveLength(1);
  });

  it("W-4: paginateWith pages through any { data, next_cursor } collection", async () => {
    const pages = { a: { data: [1, 2], next_cursor: "b" }, b: { data: [3], next_cursor: null } } as const;
    const items = await paginateWith<number>(async (cursor) => ({ ...pages[(cursor ?? "a") as "a" | "b"], data: [...pages[(cursor ?? "a") as "a" | "b"].data] })).toArray();
    expect(items).toEqual([1, 2, 3]);
  });

  it("PAGE-3: an error on a later page is thrown to the iterating caller", async () => {
    const { hub } = await hubWith((req, res) => (req.url.searchParams.get("cursor") ? refuse(res, "invalid_cursor") : answer(res, 200, { data: [record(GEN_ID, "DONE")], next_cursor: "c1" })));
    const seen: string[] = [];
    const error = await (async () => {
      for await (const g of hub.paginate("/v1/generations")) seen.push(g.id);
    })().catch((e: unknown) => e);
    expect(seen).toEqual([GEN_ID]);
    expect((error as HubApiError).code).toBe("invalid_cursor");
  });
});

describe("batch status reads", () => {
  it("BATCH-1 LIM-7: any number of ids is split into calls of at most 50, duplicates read once", async () => {
    const { hub, server } = await hubWith((req, res) => {
      const { ids } = JSON.parse(req.body) as { ids: string[] };
      if (ids.length > 50) return refuse(res, "invalid_limit", { details: [{ field: "ids", reason: "out_of_range" }] });
      answer(res, 200, { data: ids.map((id) => record(id, "RUNNING")), next_cursor: null });
    });
    const ids = Array.from({ length: 120 }, (_, i) => `gen_${String(i).padStart(24, "0")}`);
    const records = await hub.statuses([...ids, ids[0]!, ids[77]!]);
    expect(records.map((r) => r.id)).toEqual(ids);
    expect(server.requests.map((r) => (JSON.parse(r.body) as { ids: string[] }).ids.length)).toEqual([50, 50, 20]);
  });

  it("BATCH-1: no ids, no call", async () => {
    const { hub, server } = await hubWith((req, res) => answer(res, 200, { data: [], next_cursor: null }));
    expect(await hub.statuses([])).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });
});

describe("how a call reaches fetch", () => {
  /** Records what the client hands to the global fetch, then lets the real fetch send it. */
  function spyOnFetch() {
    const real = globalThis.fetch;
    const seen: { input: unknown; init: RequestInit | undefined }[] = [];
    globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
      seen.push({ input, init });
      return real(input, init);
    }) as typeof fetch;
    return { seen, restore: () => void (globalThis.fetch = real) };
  }

  it("EP-2 SUB-0: each attempt is openapi-fetch's Request sent with fresh headers and the body's bytes; retries keep the idempotency key and the body", async () => {
    let n = 0;
    const { hub, server } = await hubWith((req, res) => (n++ === 0 ? refuse(res, "service_unavailable") : answer(res, 202, record(GEN_ID, "QUEUED"), { Location: `/v1/generations/${GEN_ID}` })));
    const spy = spyOnFetch();
    try {
      await hub.submit({ type: "video", model: "m1", prompt: "p" }, { idempotencyKey: "idem-fast" });
    } finally {
      spy.restore();
    }
    expect(spy.seen.map((s) => s.input instanceof Request)).toEqual([true, true]);
    expect(spy.seen.every((s) => s.init?.headers instanceof Headers)).toBe(true);
    expect(server.requests.map((r) => [r.headers["idempotency-key"], r.headers.authorization, r.headers["content-type"]])).toEqual([
      ["idem-fast", "Bearer hub_test_key", "application/json"],
      ["idem-fast", "Bearer hub_test_key", "application/json"],
    ]);
    expect(server.requests[0]!.headers["x-request-id"]).not.toBe(server.requests[1]!.headers["x-request-id"]);
    expect(JSON.parse(server.requests[1]!.body)).toEqual({ type: "video", model: "m1", prompt: "p" });
  });

  it("a middleware sees the Request and its changes are sent, whether registered on the client or given to one call", async () => {
    const { hub, server } = await hubWith((req, res) => answer(res, 200, record(GEN_ID, "RUNNING")));
    const seenByMiddleware: unknown[] = [];
    const middleware = {
      onRequest({ request }: { request: Request }) {
        seenByMiddleware.push(request);
        request.headers.set("x-trace", "from-middleware");
        return request;
      },
    };
    const spy = spyOnFetch();
    try {
      hub.api.use(middleware);
      await hub.GET("/v1/generations/{id}", { params: { path: { id: GEN_ID } } });
      hub.api.eject(middleware);
      await hub.GET("/v1/generations/{id}", { params: { path: { id: GEN_ID } } });
    } finally {
      spy.restore();
    }
    // A middleware given to one call only, on a client without registered middleware.
    const other = createHubClient({ baseUrl: server.url, apiKey: "hub_test_key" });
    const spy2 = spyOnFetch();
    try {
      await other.GET("/v1/generations/{id}", { params: { path: { id: GEN_ID } }, middleware: [middleware] } as never);
      await other.GET("/v1/generations/{id}", { params: { path: { id: GEN_ID } } });
    } finally {
      spy2.restore();
    }
    expect(spy2.seen.map((s) => s.input instanceof Request)).toEqual([true, true]);
    expect(seenByMiddleware).toHaveLength(2);
    expect(seenByMiddleware.every((r) => r instanceof Request)).toBe(true);
    expect(server.requests.map((r) => r.headers["x-trace"])).toEqual(["from-middleware", undefined, "from-middleware", undefined]);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(Array(4).fill("Bearer hub_test_key"));
    expect(spy.seen.map((s) => s.input instanceof Request)).toEqual([true, true]);
  });

  it("AUTH-2: a token provider that gives no token on a retry sends no stale token (the caller's header, if any)", async () => {
    let n = 0;
    const tokens = ["tok_first"];
    const { hub, server } = await hubWith((req, res) => (n++ < 2 ? refuse(res, "service_unavailable") : answer(res, 200, account())), { apiKey: undefined, token: () => tokens.shift() });
    await hub.GET("/v1/me");
    await hub.GET("/v1/me", { headers: { Authorization: "Bearer caller_own" } });
    // Three attempts of the first call (two 503s), then the second call.
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(["Bearer tok_first", undefined, undefined, "Bearer caller_own"]);
  });
});
