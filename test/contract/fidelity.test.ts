// One block per bullet of "the details that are easy to get wrong" (issue 2): each
// checks the bundle against the seed, reading the seed's numbers where it states them.
import { describe, expect, it } from "vitest";
import { bound, deref, encodePointer, operationById, operations, schema, schemaValidator, singleValue, streamLimits, validateChosen, validatorAt, type JsonObject, type Operation } from "../../src/contract/index.ts";
import { contract, errorCodesOf, isErrorStatus, isV1, responsesOf } from "../support/contract.ts";
import { section, seedText, tableAfter } from "../support/seed.ts";

const headersOf = (r: JsonObject) => Object.fromEntries(Object.entries((r.headers as JsonObject) ?? {}).map(([k, v]) => [k, deref<JsonObject>(v)]));
const bodySchemaName = (r: JsonObject, type = "application/json"): string =>
  String((((r.content as JsonObject)?.[type] as JsonObject)?.schema as JsonObject)?.$ref ?? "").split("/").pop() ?? "";
const param = (op: Operation, name: string) => op.parameters.find((p) => String(p.name).toLowerCase() === name.toLowerCase());
const seedNumber = (pattern: RegExp) => Number(seedText.match(pattern)![1]);

describe("submit", () => {
  const submit = operationById("submitGeneration");
  const estimate = operationById("estimatePrice");

  it("SUB-1: success is 202 with a required Location and the generation record, never 201", () => {
    const responses = submit.op.responses as JsonObject;
    expect(Object.keys(responses).filter((s) => s.startsWith("2"))).toEqual(["202"]);
    const accepted = deref<JsonObject>(responses["202"]);
    expect(headersOf(accepted).Location?.required).toBe(true);
    expect(bodySchemaName(accepted)).toBe("GenerationRecord");
  });

  it("SUB-0: Idempotency-Key is a required header", () => {
    expect(param(submit, "Idempotency-Key")).toMatchObject({ in: "header", required: true });
  });

  it("SUB-0: the body is one variant chosen by `type`, for submit and estimate alike", () => {
    const branches = (schema("SubmitRequest").oneOf as JsonObject[]).map((b) => String(b.$ref).split("/").pop());
    expect(branches).toEqual(["VideoSubmit", "ImageSubmit", "UpscaleSubmit", "Model3dSubmit", "TextSubmit"]);
    for (const op of [submit, estimate]) {
      const body = (op.op.requestBody as JsonObject).content as JsonObject;
      expect(String(((body["application/json"] as JsonObject).schema as JsonObject).$ref)).toBe("#/components/schemas/SubmitRequest");
    }
  });

  it("SUB-V SUB-I: `seed` is an integer for video and a string for image", () => {
    const prop = (s: string) => (deref<JsonObject>(schema(s)).properties as JsonObject).seed as JsonObject;
    expect(prop("VideoSubmit").type).toBe("integer");
    expect(prop("ImageSubmit").type).toBe("string");
  });

  it("SUB-5 W-10: a `text` body passes validation so it reaches 503 submit_unavailable, on submit and estimate", () => {
    expect(schemaValidator("SubmitRequest")({ type: "text", prompt: "hi", anything: [1] })).toBe(true);
    expect(validateChosen("SubmitRequest", { type: "text", whatever: true })).toEqual([]);
    for (const op of [submit, estimate]) expect(errorCodesOf(op).get("503")).toContain("submit_unavailable");
  });

  it("SUB-3D: the 3D variant never overlaps the known variants", () => {
    const model3d = schemaValidator("Model3dSubmit");
    for (const type of ["video", "image", "upscale", "text"]) expect(model3d({ type }), type).toBe(false);
    expect(model3d({ type: "any-other-value" })).toBe(true);
    // The excluded values are exactly the constants of the other variants.
    const known = (schema("SubmitRequest").oneOf as JsonObject[])
      .map((b) => singleValue((deref<JsonObject>(b).properties as JsonObject).type))
      .filter((c) => c !== undefined);
    const excluded = (((deref<JsonObject>(schema("Model3dSubmit")).properties as JsonObject).type as JsonObject).not as JsonObject).enum;
    expect(excluded).toEqual(known);
  });

  it("SUB-6 PRICE-7: a body the submit refuses, the estimate refuses the same way", () => {
    const bad = { type: "video", model: "m", duration: 99 };
    expect(validateChosen("SubmitRequest", bad).map((d) => d.field).sort()).toEqual(["duration", "model"]);
    expect(deref<JsonObject>((estimate.op.responses as JsonObject)["400"])).toEqual(deref<JsonObject>((submit.op.responses as JsonObject)["400"]));
  });

  it("PRICE-6: the estimate answers 422 estimate_unavailable", () => {
    expect(errorCodesOf(estimate).get("422")).toEqual(["estimate_unavailable"]);
  });
});

describe("collections", () => {
  const paging = tableAfter(section("Paging parameters (all collections that page)"), "| Parameter |");
  const pageRow = (name: string) => paging.find((r) => r[0] === name)!;

  it("PAGE-3: `limit` is an integer 1..100 with default 20, as the seed's paging table says", () => {
    const [, min, max] = pageRow("limit")[2]!.match(/integer (\d+)\.\.(\d+)/)!;
    const def = Number(pageRow("limit")[3]!.match(/Default (\d+)/)![1]);
    expect(schema("PageLimit")).toMatchObject({ type: "integer", minimum: Number(min), maximum: Number(max), default: def });
  });

  it("PAGE-2: `cursor` is a string of minimum length 1", () => {
    expect(pageRow("cursor")[2]).toBe("string, min length 1");
    expect(schema("PageCursor")).toMatchObject({ type: "string", minLength: 1 });
  });

  const collections = ["listGenerations", "listLibraryAssets", "listCreditTransactions", "listLibraryFolders", "readSupportThread", "searchKnowledge", "listModels", "readGenerationStatuses"];
  it.each(collections)("W-4: %s answers { data, next_cursor }", (id) => {
    const ok = deref<JsonObject>((operationById(id).op.responses as JsonObject)["200"]);
    const page = deref<JsonObject>(schema(bodySchemaName(ok)));
    expect(page.required).toEqual(["data", "next_cursor"]);
    expect((page.properties as JsonObject).data).toMatchObject({ type: "array" });
  });

  it.each(["listGenerations", "listLibraryAssets", "listCreditTransactions"])("PAGE-5: %s pages with cursor and limit and answers 400 invalid_limit / invalid_cursor", (id) => {
    const op = operationById(id);
    expect(param(op, "cursor")).toBeDefined();
    expect(param(op, "limit")).toBeDefined();
    expect(errorCodesOf(op).get("400")?.sort()).toEqual(["invalid_cursor", "invalid_limit"]);
    expect([...errorCodesOf(op).keys()].sort()).toEqual(["400", "401", "403", "413", "429", "500", "503"]);
  });

  it.each(["listLibraryFolders", "readGenerationStatuses", "searchKnowledge", "readSupportThread"])("PAGE-6 BATCH-1 CAT-5 SUP-2: %s always answers next_cursor null", (id) => {
    const ok = deref<JsonObject>((operationById(id).op.responses as JsonObject)["200"]);
    const page = deref<JsonObject>(schema(bodySchemaName(ok)));
    expect(deref<JsonObject>((page.properties as JsonObject).next_cursor)).toMatchObject({ type: "null" });
  });

  it("BATCH-1: the batch status read takes at most 50 ids", () => {
    const seedMax = seedNumber(/Body: `\{ ids: \[<generation_id>, \.\.\.\] \}`, up to (\d+) ids/);
    expect(bound("GenerationStatusRequest", "ids", "maxItems")).toBe(seedMax);
    const validate = schemaValidator("GenerationStatusRequest");
    expect(validate({ ids: Array(seedMax).fill("g") })).toBe(true);
    expect(validate({ ids: Array(seedMax + 1).fill("g") })).toBe(false);
    expect(errorCodesOf(operationById("readGenerationStatuses")).get("400")).toContain("invalid_limit");
  });
});

describe("headers", () => {
  const v1 = operations().filter(isV1);
  const allV1Responses = v1.flatMap((op) => responsesOf(op).map(([status, r]) => [`${op.operationId} ${status}`, op, status, r] as const));

  it.each(v1.map((op) => [op.operationId, op] as const))("EP-2: %s accepts an optional X-Request-Id", (_id, op) => {
    expect(param(op, "X-Request-Id")).toMatchObject({ in: "header", required: false });
  });

  it.each(allV1Responses)("EP-2 W-13: %s declares X-Request-Id, Cache-Control and Vary", (_name, op, status, response) => {
    const h = headersOf(response);
    for (const name of ["X-Request-Id", "Cache-Control", "Vary"]) expect(h[name]?.required, name).toBe(true);
    const models = op.operationId === "listModels" && (status === "200" || status === "304");
    const cacheLine = seedText.match(models ? /`Cache-Control: (private, max-age=0, must-revalidate)`/ : /are `(private, no-store)` with/)![1];
    expect((h["Cache-Control"]!.schema as JsonObject).const).toBe(cacheLine);
    const vary = seedText.match(/`Vary: ([^`]+)`/)![1]!.split(", ");
    const validate = validatorAt(pointerOfHeader(op, status, "Vary"));
    expect(validate(vary.join(", "))).toBe(true);
    expect(vary).not.toHaveLength(0);
    for (const missing of vary) expect(validate(vary.filter((v) => v !== missing).join(", ")), `without ${missing}`).toBe(false);
  });

  it.each(allV1Responses.filter(([, , status]) => /^(2|304)/.test(status)))("EP-3 LIM-2: %s carries the RateLimit pair", (_name, _op, _status, response) => {
    const h = headersOf(response);
    expect(h.RateLimit?.required).toBe(true);
    expect(h["RateLimit-Policy"]?.required).toBe(true);
  });

  it("LIM-2: RateLimit and RateLimit-Policy have the seed's structured shape, one window, no `pk`", () => {
    const rl = schemaValidator("RateLimitField");
    const policy = schemaValidator("RateLimitPolicyField");
    expect(rl('"default";r=42;t=17')).toBe(true);
    expect(rl('"account";r=0;t=3')).toBe(true);
    expect(rl('"default";r=42;t=17;pk=abc')).toBe(false);
    expect(rl('"default";r=1;t=2, "account";r=5;t=2')).toBe(false);
    expect(rl("42")).toBe(false);
    expect(policy('"default";q=60;w=60')).toBe(true);
    expect(policy('"default";q=60;w=60;pk=x')).toBe(false);
    expect(JSON.stringify(contract)).not.toMatch(/X-RateLimit/i);
  });

  it("LIM-2: answers that can be api_disabled or origin_mismatch do not require the RateLimit pair", () => {
    let answers = 0;
    for (const op of v1) {
      for (const [status, response] of responsesOf(op)) {
        const codes = errorCodesOf(op).get(status) ?? [];
        if (!codes.includes("api_disabled") && !codes.includes("origin_mismatch")) continue;
        const h = headersOf(response);
        expect(h.RateLimit?.required, `${op.operationId} ${status}`).not.toBe(true);
        expect(h["RateLimit-Policy"]?.required, `${op.operationId} ${status}`).not.toBe(true);
        answers++;
      }
    }
    expect(answers).toBeGreaterThan(0);
  });

  it("ERR-3 LIM-4: every 429 carries Retry-After (integer seconds)", () => {
    expect(operations().some((op) => (op.op.responses as JsonObject)["429"])).toBe(true);
    for (const op of operations()) {
      const r = (op.op.responses as JsonObject)["429"];
      if (!r) continue;
      const retry = headersOf(deref(r))["Retry-After"];
      expect(retry?.required, op.operationId).toBe(true);
      expect((retry!.schema as JsonObject).type).toBe("integer");
    }
  });

  it("AUTH-8: every 401 on /v1 carries WWW-Authenticate with resource_metadata", () => {
    expect(v1.length).toBeGreaterThan(0);
    for (const op of v1) {
      const h = headersOf(deref((op.op.responses as JsonObject)["401"]));
      expect(h["WWW-Authenticate"]?.required, op.operationId).toBe(true);
      const validate = validatorAt(pointerOfHeader(op, "401", "WWW-Authenticate"));
      expect(validate('Bearer resource_metadata="http://127.0.0.1:4010/.well-known/oauth-protected-resource/v1"')).toBe(true);
      expect(validate("Bearer")).toBe(false);
    }
  });

  it("CAT-4: the catalog has a weak ETag, If-None-Match and 304", () => {
    const models = operationById("listModels");
    expect(param(models, "If-None-Match")).toMatchObject({ in: "header" });
    const responses = models.op.responses as JsonObject;
    expect(responses["304"]).toBeDefined();
    for (const status of ["200", "304"]) {
      const etag = headersOf(deref(responses[status])).ETag;
      expect(etag?.required).toBe(true);
      const validate = validatorAt(pointerOfHeader(models, status, "ETag"));
      expect(validate('W/"abc"')).toBe(true);
      expect(validate('"abc"')).toBe(false);
    }
    // Only the catalog is cacheable by validation.
    expect(v1.filter((o) => o.operationId !== "listModels")).not.toHaveLength(0);
    for (const op of v1.filter((o) => o.operationId !== "listModels")) expect(param(op, "If-None-Match")).toBeUndefined();
  });
});

describe("errors", () => {
  it("ENV-1..ENV-5: the envelope requires code, message, user_message, request_id; details carry field, reason, message", () => {
    const envelope = deref<JsonObject>(schema("ErrorEnvelope"));
    const error = (envelope.properties as JsonObject).error as JsonObject;
    expect(error.required).toEqual(["code", "message", "user_message", "request_id"]);
    const row = tableAfter(section("Error envelope"), "| Field |").map((r) => r[0]!.replace("error.", ""));
    expect(Object.keys(error.properties as JsonObject)).toEqual(expect.arrayContaining(row));
    const detail = deref<JsonObject>(schema("ErrorDetail"));
    expect(Object.keys(detail.properties as JsonObject)).toEqual(expect.arrayContaining(["field", "reason", "message"]));
    expect(String(((error.properties as JsonObject).code as JsonObject).$ref)).toBe("#/components/schemas/ErrorCode");
  });

  it("W-5 EP-1: every error answer with a body uses the envelope (the OAuth protocol answers use their RFC form)", () => {
    let bodies = 0;
    for (const op of operations()) {
      for (const [status, response] of responsesOf(op)) {
        if (!isErrorStatus(status) || !response.content) continue;
        for (const type of Object.keys(response.content as JsonObject)) {
          const name = bodySchemaName(response, type);
          if (type === "text/html") {
            expect(op.path, `${op.operationId} ${status}: HTML only on the browser route`).toBe("/oauth/authorize");
          } else if (name === "OAuthError") {
            expect(op.path, `${op.operationId} ${status}`).toMatch(/^\/oauth\/(token|revoke|register)$/);
          } else {
            expect(name, `${op.operationId} ${status}`).toBe("ErrorEnvelope");
          }
          bodies++;
        }
      }
    }
    expect(bodies).toBeGreaterThan(0);
  });

  it("ERR-3: read routes answer 401, 403, 413, 429, 500, 503, and 400 where they take parameters", () => {
    expect(operations().filter((o) => isV1(o) && o.method === "get")).not.toHaveLength(0);
    for (const op of operations().filter((o) => isV1(o) && o.method === "get")) {
      const statuses = Object.keys(op.op.responses as JsonObject);
      for (const s of ["401", "403", "413", "429", "500", "503"]) expect(statuses, `${op.operationId} ${s}`).toContain(s);
      const takesParameters = op.parameters.some((p) => p.in === "query" || p.in === "path");
      expect(statuses.includes("400"), `${op.operationId} 400`).toBe(takesParameters);
    }
  });

  it("BILL-3: the subscription read answers exactly 200, 401, 403, 413, 429, 500, 503", () => {
    const listed = section("GET /v1/billing/subscription").match(/Statuses: ([\d, ]+)\./)![1]!.split(", ");
    expect(Object.keys(operationById("readBillingSubscription").op.responses as JsonObject).sort()).toEqual(listed.sort());
  });
});

describe("security", () => {
  const schemes = deref<JsonObject>((contract.components as JsonObject).securitySchemes);
  const scheme = (name: string) => deref<JsonObject>(schemes[name]);

  it("AUTH-1 AUTH-2: API keys and OAuth tokens are bearer credentials in Authorization", () => {
    expect(scheme("api_key")).toMatchObject({ type: "http", scheme: "bearer" });
    const flow = (scheme("oauth2").flows as JsonObject).authorizationCode as JsonObject;
    expect(flow).toMatchObject({ authorizationUrl: "/oauth/authorize", tokenUrl: "/oauth/token", refreshUrl: "/oauth/token" });
    expect(String(scheme("oauth2").description)).toMatch(/PKCE \(`S256` only\)/);
  });

  it("AUTH-3: the site session cookie is a cookie credential (its name is a gap of the seed)", () => {
    expect(scheme("session_cookie")).toMatchObject({ type: "apiKey", in: "cookie" });
    expect(String(scheme("session_cookie")["x-not-shown"])).toContain("the cookie's name");
  });

  it("W-11: the subscription actions accept only the session cookie and answer insufficient_scope to keys and tokens", () => {
    for (const id of ["resumeSubscription", "cancelSubscription", "startCardChange", "completeCardChange"]) {
      const op = operationById(id);
      expect(op.schemes).toEqual(["session_cookie"]);
      expect(errorCodesOf(op).get("403")).toContain("insufficient_scope");
    }
  });

  it("AUTH-3: every mutating /v1 request over the cookie can answer origin_mismatch", () => {
    expect(operations().filter((o) => isV1(o) && o.method !== "get" && o.schemes.includes("session_cookie"))).not.toHaveLength(0);
    for (const op of operations().filter((o) => isV1(o) && o.method !== "get" && o.schemes.includes("session_cookie"))) {
      expect(errorCodesOf(op).get("403"), op.operationId).toContain("origin_mismatch");
    }
  });

  it("AUTH-7: every /v1 operation answers the credential refusals of the ladder", () => {
    expect(operations().filter(isV1)).not.toHaveLength(0);
    for (const op of operations().filter(isV1)) {
      const codes = errorCodesOf(op);
      expect(codes.get("503"), op.operationId).toContain("api_disabled");
      expect(codes.get("401")?.sort(), op.operationId).toEqual(["api_key_expired", "api_key_revoked", "invalid_api_key", "invalid_token", "unauthorized"]);
      expect(codes.get("403"), op.operationId).toEqual(expect.arrayContaining(["api_access_not_granted", "account_suspended", "legal_consent_required", "insufficient_scope"]));
    }
  });
});

describe("events", () => {
  const events = operationById("streamGenerationEvents");
  const ok = deref<JsonObject>((events.op.responses as JsonObject)["200"]);
  const sse = (ok.content as JsonObject)["text/event-stream"] as JsonObject;

  it("EVT-3: answers 200 text/event-stream with the `types` query and the Last-Event-ID header", () => {
    expect(sse).toBeDefined();
    expect(param(events, "types")).toMatchObject({ in: "query" });
    expect(param(events, "Last-Event-ID")).toMatchObject({ in: "header" });
  });

  it("EVT-5 EVT-6 EVT-7: each frame has a schema for its data", () => {
    expect(String(((sse.schema as JsonObject).contentSchema as JsonObject).$ref)).toBe("#/components/schemas/EventFrame");
    const frame = schemaValidator("EventFrame");
    const changed = { id: "g", type: "video", status: "RUNNING", deleted: false, updated_at: "2026-11-22T10:00:00Z" };
    expect(frame({ event: "generation.status_changed", id: "c1", data: changed })).toBe(true);
    expect(frame({ event: "generation.status_changed", id: "c1", data: { ...changed, status: "CANCELLED" } })).toBe(false);
    expect(frame({ event: "reset", id: "c2", data: { reason: "cursor_unknown", catch_up: "/v1/generations/status" } })).toBe(true);
    expect(frame({ event: "reset", id: "c2", data: { reason: "gone", catch_up: "/v1/generations/status" } })).toBe(false);
    const envelope = { error: { code: "api_key_revoked", message: "m", user_message: "m", request_id: "r" } };
    expect(frame({ event: "terminated", id: "c3", data: envelope })).toBe(true);
    expect(frame({ event: "terminated", id: "c3", data: { reason: "x" } })).toBe(false);
    expect(frame({ event: "something_else", id: "c4", data: {} })).toBe(false);
  });

  it("EVT-8 EVT-12: heartbeat, retention and streams per key are the seed's numbers", () => {
    expect(streamLimits()).toEqual({
      heartbeatSeconds: seedNumber(/Heartbeat every (\d+) seconds/),
      retentionDays: seedNumber(/retention window of (\d+) days/),
      maxStreamsPerKey: seedNumber(/Concurrent streams per key: (\d+)/),
    });
    expect(errorCodesOf(events).get("429")?.sort()).toEqual(["rate_limited", "too_many_streams"]);
  });

  it("EVT-12: refusals at opening are JSON with the seed's statuses", () => {
    const listed = seedText.match(/Refusals at opening are ordinary JSON error responses \(([\d, ]+)\)/)![1]!.split(", ");
    const statuses = Object.keys(events.op.responses as JsonObject).filter(isErrorStatus);
    expect(statuses.sort()).toEqual(listed.sort());
  });
});

describe("OAuth", () => {
  it("OAUTH-2: the discovery documents carry the RFC 8414 and RFC 9728 fields the seed names", () => {
    expect(deref<JsonObject>(schema("AuthorizationServerMetadata")).required).toEqual(
      expect.arrayContaining(["issuer", "authorization_endpoint", "token_endpoint", "revocation_endpoint", "registration_endpoint", "code_challenge_methods_supported", "token_endpoint_auth_methods_supported", "client_id_metadata_document_supported"]),
    );
    expect(deref<JsonObject>(schema("ProtectedResourceMetadata")).required).toEqual(["resource", "authorization_servers", "scopes_supported", "bearer_methods_supported"]);
    for (const id of ["readAuthorizationServerMetadata", "readProtectedResourceMetadata"]) expect(operationById(id).op.security).toEqual([]);
  });

  it("OAUTH-10: the authorization answers a 303 with code, state and iss, or the seed's error values", () => {
    const authorize = operationById("authorize");
    const redirect = deref<JsonObject>((authorize.op.responses as JsonObject)["303"]);
    expect(headersOf(redirect).Location?.required).toBe(true);
    const query = redirect["x-redirect-query"] as JsonObject;
    const seedErrors = tableAfter(section("Authorization request: GET /oauth/authorize (in the user's browser)"), "| error |").map((r) => r[0]);
    expect(((query.properties as JsonObject).error as JsonObject).anyOf).toEqual(seedErrors.map((e) => expect.objectContaining({ const: e })));
    expect(Object.keys(query.properties as JsonObject)).toEqual(expect.arrayContaining(["code", "state", "iss", "error", "error_description"]));
  });

  it("OAUTH-8: the authorization request takes the seed's parameters, required as the seed says", () => {
    const rows = tableAfter(section("Authorization request: GET /oauth/authorize (in the user's browser)"), "| Parameter |");
    const authorize = operationById("authorize");
    expect(rows).not.toHaveLength(0);
    for (const [name, required] of rows) {
      expect(param(authorize, name!), name).toBeDefined();
      expect(param(authorize, name!)!.required === true, name).toBe(required === "yes");
    }
  });

  it("OAUTH-12 OAUTH-13: the token route takes a form body for both grants, with none and private_key_jwt clients", () => {
    const body = ((operationById("exchangeToken").op.requestBody as JsonObject).content as JsonObject)["application/x-www-form-urlencoded"];
    expect(body).toBeDefined();
    const validate = schemaValidator("TokenRequest");
    const code = { grant_type: "authorization_code", code: "c", redirect_uri: "http://127.0.0.1:1/cb", code_verifier: "v" };
    expect(validate({ ...code, client_id: "cli" })).toBe(true);
    expect(validate({ ...code, client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", client_assertion: "jwt" })).toBe(true);
    expect(validate({ ...code })).toBe(false); // no client authentication
    expect(validate({ ...code, client_assertion: "jwt" })).toBe(false); // assertion without its type
    expect(validate({ ...code, client_id: "cli", client_secret: "s" })).toBe(false); // shared secrets are refused
    expect(validate({ grant_type: "refresh_token", refresh_token: "r", client_id: "cli", scope: "generations:read" })).toBe(true);
    expect(validate({ grant_type: "password", username: "u", client_id: "cli" })).toBe(false);
  });

  it("OAUTH-17: revoke answers 200 with an empty body", () => {
    const ok = deref<JsonObject>((operationById("revokeToken").op.responses as JsonObject)["200"]);
    expect(ok.content).toBeUndefined();
  });

  it("OAUTH-6: registration answers 201, the RFC 7591 errors, and 429 with Retry-After", () => {
    const register = operationById("registerClient");
    expect(Object.keys(register.op.responses as JsonObject)).toEqual(expect.arrayContaining(["201", "400", "429"]));
    expect(errorCodesOf(register).get("400")?.sort()).toEqual(["invalid_client_metadata", "invalid_redirect_uri"]);
    expect(errorCodesOf(register).get("429")).toEqual(["rate_limited"]);
  });

  it("OAUTH-7: redirect URIs are https, or http only on loopback hosts, without a fragment", () => {
    const validate = schemaValidator("RedirectUri");
    for (const ok of ["https://app.example/cb", "http://localhost:8765/cb", "http://127.0.0.1/cb", "http://[::1]:9000/cb"]) expect(validate(ok), ok).toBe(true);
    for (const bad of ["http://app.example/cb", "myapp://cb", "https://app.example/cb#frag", "http://127.0.0.2/cb"]) expect(validate(bad), bad).toBe(false);
  });

  it("OAUTH-4 OAUTH-3: the client ID metadata document requires client_id and redirect_uris, never carries a secret, jwks xor jwks_uri", () => {
    const validate = schemaValidator("ClientMetadataDocument");
    const doc = { client_id: "https://app.example/client.json", redirect_uris: ["https://app.example/cb"] };
    expect(validate(doc)).toBe(true);
    expect(validate({ ...doc, client_secret: "s" })).toBe(false);
    expect(validate({ ...doc, token_endpoint_auth_method: "private_key_jwt" })).toBe(false);
    expect(validate({ ...doc, token_endpoint_auth_method: "private_key_jwt", jwks_uri: "https://app.example/jwks.json" })).toBe(true);
    expect(validate({ ...doc, jwks: { keys: [] }, jwks_uri: "https://app.example/jwks.json" })).toBe(false);
    expect(validate({ ...doc, token_endpoint_auth_method: "client_secret_basic" })).toBe(false);
    expect(validate({ ...doc, logo_uri: "http://app.example/logo.png" })).toBe(false);
  });
});

describe("records", () => {
  it("W-6: every `_cc` field is an integer in centi-credits", () => {
    const found: string[] = [];
    const walk = (node: unknown, where: string) => {
      if (!node || typeof node !== "object") return;
      for (const [key, value] of Object.entries((node as JsonObject).properties ?? {})) {
        if (key.endsWith("_cc")) {
          found.push(`${where}.${key}`);
          expect(String((value as JsonObject).$ref), `${where}.${key}`).toBe("#/components/schemas/Centicredits");
        }
      }
      for (const child of Object.values(node)) walk(child, where);
    };
    for (const [name, s] of Object.entries((contract.components as JsonObject).schemas as JsonObject)) walk(s, name);
    expect(found.length).toBeGreaterThanOrEqual(4);
    expect(schema("Centicredits").type).toBe("integer");
  });

  it("the records answered by the API are open to fields the seed does not list", () => {
    let records = 0;
    for (const op of operations()) {
      for (const [status, response] of responsesOf(op)) {
        if (!status.startsWith("2")) continue;
        const name = bodySchemaName(response);
        if (!name) continue;
        expect(JSON.stringify(deref(schema(name))), `${op.operationId} ${status} ${name}`).not.toContain('"additionalProperties":false');
        records++;
      }
    }
    expect(records).toBeGreaterThan(0);
  });

  it("requests are closed: every JSON or form request body refuses unknown fields (except bodies the seed does not show)", () => {
    let closed = 0;
    for (const op of operations()) {
      const body = op.op.requestBody as JsonObject | undefined;
      for (const [type, media] of Object.entries((body?.content as JsonObject) ?? {})) {
        if (!/json|form/.test(type)) continue;
        const name = String(((media as JsonObject).schema as JsonObject).$ref).split("/").pop()!;
        if (name === "NotShownBody") continue;
        const s = deref<JsonObject>(schema(name));
        const branches = (s.oneOf as JsonObject[] | undefined)?.map((b) => deref<JsonObject>(b)) ?? [s];
        for (const b of branches) {
          if (b.title === "TextSubmit") continue; // answered 503 whatever its fields (not shown)
          expect(b.additionalProperties, `${op.operationId} ${b.title}`).toBe(false);
          closed++;
        }
      }
    }
    expect(closed).toBeGreaterThan(0);
  });

  it("BILL-2 W-7: the subscription read accepts the record, an object holding it or null, and null", () => {
    const validate = schemaValidator("SubscriptionRead");
    const record = { status: "active", amount: 20, recurrent_amount: 20, currency: "USD", next_payment_at: null, cancelled_at: null };
    expect(validate(record)).toBe(true);
    expect(validate({ subscription: record })).toBe(true);
    expect(validate({ subscription: null })).toBe(true);
    expect(validate(null)).toBe(true);
    expect(validate({ amount: "20" })).toBe(false);
  });

  it("GEN-7 ERR-1: a FAILED record carries error.reason and never an error code", () => {
    const validate = schemaValidator("GenerationRecord");
    const failed = { id: "g", type: "video", status: "FAILED" };
    expect(validate({ ...failed, error: { reason: "timeout" } })).toBe(true);
    expect(validate(failed)).toBe(false);
    expect(validate({ ...failed, error: { reason: "timeout", code: "internal_error" } })).toBe(false);
    expect(validate({ ...failed, error: { reason: "exploded" } })).toBe(false);
  });
});

/** The pointer of a header's schema where it lives (a response or header given by $ref lives under components). */
function pointerOfHeader(op: Operation, status: string, name: string): string {
  const raw = (op.op.responses as JsonObject)[status] as JsonObject;
  const response = typeof raw.$ref === "string" ? (raw.$ref as string) : `#/paths/${encodePointer(op.path)}/${op.method}/responses/${status}`;
  const header = (deref<JsonObject>(raw).headers as JsonObject)[name] as JsonObject;
  return `${typeof header.$ref === "string" ? header.$ref : `${response}/headers/${encodePointer(name)}`}/schema`;
}
