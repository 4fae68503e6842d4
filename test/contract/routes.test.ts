// The contract side of the seed's route rules: which operation answers which codes,
// takes which body, carries which limit or records which gap.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { at } from "../../scripts/lib/paths.ts";
import { bound, deref, operationById, operations, schema, schemaValidator, statusOf, type JsonObject } from "../../src/contract/index.ts";
import { contract, errorCodesOf, isV1, responsesOf } from "../support/contract.ts";
import { backticked, section, seedText, tableAfter } from "../support/seed.ts";

const codes = (id: string, status: string) => errorCodesOf(operationById(id)).get(status) ?? [];
const mediaTypes = (node: JsonObject | undefined) => Object.keys((node?.content as JsonObject) ?? {});

describe("the service", () => {
  it("W-1: one base address with a local default; routes under /v1, /oauth and /.well-known", () => {
    const server = (contract.servers as JsonObject[])[0]!;
    expect(server.url).toBe("{base_url}");
    expect(((server.variables as JsonObject).base_url as JsonObject).default).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(operations().length).toBeGreaterThan(0);
    for (const op of operations()) expect(op.path).toMatch(/^\/(v1|oauth|\.well-known)\//);
  });

  it("W-3: bodies are JSON unless the seed states otherwise", () => {
    const stated: Record<string, string[]> = {
      streamGenerationEvents: ["text/event-stream"], // Events
      downloadGenerationOutput: ["*/*"], // a result file
      readLibraryAssetContent: ["*/*"], // a reference file
      authorize: ["text/html"], // the consent screen, in the user's browser
      exchangeToken: ["application/x-www-form-urlencoded"],
      revokeToken: ["application/x-www-form-urlencoded"],
    };
    let others = 0;
    for (const op of operations()) {
      const body = mediaTypes(op.op.requestBody as JsonObject);
      const ok = responsesOf(op).filter(([s]) => s.startsWith("2")).flatMap(([, r]) => mediaTypes(r));
      for (const type of [...body, ...ok]) {
        if (type === "application/json") continue;
        const allowed = op.operationId === "completeUpload" ? type !== "application/json" : (stated[op.operationId] ?? []).includes(type);
        expect(allowed, `${op.operationId}: ${type}`).toBe(true);
        others++;
      }
    }
    expect(others).toBeGreaterThan(0);
  });

  it("W-8 GEN-9 REP-7 LIB-7: every route that takes an id answers 404 not_found", () => {
    expect(operations().filter((o) => o.parameters.some((p) => p.in === "path" && p.name === "id"))).not.toHaveLength(0);
    for (const op of operations().filter((o) => o.parameters.some((p) => p.in === "path" && p.name === "id"))) {
      expect(errorCodesOf(op).get("404"), op.operationId).toEqual(["not_found"]);
    }
    expect(String(deref<JsonObject>((contract.components as JsonObject).responses).NotFound && deref<JsonObject>(((contract.components as JsonObject).responses as JsonObject).NotFound).description)).toMatch(/another account/i);
  });

  it("W-9 AUTH-9 SUB-4: only starting a generation needs a paid plan; spend limits answer 402", () => {
    expect(codes("submitGeneration", "402").sort()).toEqual(["grant_spend_limit_reached", "insufficient_credits", "key_spend_limit_reached", "payment_required"]);
    expect(operations().filter((o) => o.operationId !== "submitGeneration")).not.toHaveLength(0);
    for (const op of operations().filter((o) => o.operationId !== "submitGeneration")) {
      expect(errorCodesOf(op).get("402"), op.operationId).toBeUndefined();
    }
  });

  it("W-12: no record publishes payment, card or provider identifiers", () => {
    const names = new Set<string>();
    const walk = (n: unknown) => {
      if (!n || typeof n !== "object") return;
      for (const k of Object.keys((n as JsonObject).properties ?? {})) names.add(k);
      Object.values(n).forEach(walk);
    };
    walk((contract.components as JsonObject).schemas);
    expect(names.size).toBeGreaterThan(0);
    for (const name of names) expect(name, name).not.toMatch(/card_number|cvv|cvc|pan$|iban|provider_(id|subscription|customer)|payment_token/);
  });

  it("ENV-6: the envelope defines no place for a stack trace or a framework message", () => {
    const error = ((deref<JsonObject>(schema("ErrorEnvelope")).properties as JsonObject).error as JsonObject).properties as JsonObject;
    expect(Object.keys(error)).not.toHaveLength(0);
    for (const name of Object.keys(error)) expect(name).not.toMatch(/stack|trace|exception/);
  });

  it("VER-3: a retired route answers 410 gone", () => {
    expect(statusOf("gone")).toBe(410);
  });

  it("VER-2: cursors, ETags and event ids are opaque (no format is promised)", () => {
    for (const name of ["PageCursor"]) expect(schema(name).pattern ?? schema(name).format).toBeUndefined();
    const frameId = ((deref<JsonObject>(schema("EventFrame")).properties as JsonObject).id as JsonObject);
    expect(frameId.pattern ?? frameId.format).toBeUndefined();
  });

  it("VER-4 EP-5 GAP-1: the gaps of routes and versioning are recorded where they apply", () => {
    expect((contract.info as JsonObject)["x-not-shown"]).toMatch(/Deprecation schedule/);
    for (const id of ["readWhoami", "readAccount"]) expect(String(operationById(id).op["x-not-shown"])).toMatch(/Required scope/);
    expect(String(deref<JsonObject>((contract.paths as JsonObject)["/v1/generations/{id}"])["x-not-shown"])).toMatch(/cancel\/delete/);
    const oauth2 = deref<JsonObject>(((contract.components as JsonObject).securitySchemes as JsonObject).oauth2);
    expect(String(oauth2["x-not-shown"])).toMatch(/workflows:read/);
  });
});

describe("the description's owner", () => {
  it("names a contact and the package's licence (the seed shows neither for the API)", () => {
    const info = contract.info as JsonObject;
    const pkg = JSON.parse(readFileSync(at("package.json"), "utf8")) as { name: string; license: string };
    expect(String((info.contact as JsonObject).name)).toContain(pkg.name);
    expect((info.license as JsonObject).name).toBe(pkg.license);
  });
});

describe("generations", () => {
  it("ST-1 SUB-1: the 202 of a submit points at the new generation", () => {
    const accepted = deref<JsonObject>((operationById("submitGeneration").op.responses as JsonObject)["202"]);
    const location = deref<JsonObject>((accepted.headers as JsonObject).Location);
    expect(location.required).toBe(true);
    expect(String(location.description)).toContain("GET /v1/generations/{id}");
  });

  it("SUB-2: a replay answers 202 at any status, FAILED with its reason included", () => {
    const accepted = deref<JsonObject>((operationById("submitGeneration").op.responses as JsonObject)["202"]);
    const examples = Object.values(((accepted.content as JsonObject)["application/json"] as JsonObject).examples as JsonObject).map((e) => deref<JsonObject>(e).value as JsonObject);
    expect(examples.some((e) => e.status === "FAILED" && (e.error as JsonObject).reason)).toBe(true);
  });

  it("SUB-3: the same key with another body answers 409 duplicate_key_conflict", () => {
    expect(codes("submitGeneration", "409")).toEqual(["duplicate_key_conflict"]);
  });

  it("SUB-7: promo modes are those the seed lists per variant", () => {
    const promo = (variant: string) => ((deref<JsonObject>(schema(variant)).properties as JsonObject).promo_mode as JsonObject).enum;
    const row = (marker: string) => tableAfter(section("POST /v1/generations"), marker).find((r) => r[0] === "promo_mode")!;
    expect(promo("VideoSubmit")).toEqual(backticked(row("Variant `type: video`")[2]!));
    expect(promo("ImageSubmit")).toEqual(backticked(row("Variant `type: image`")[2]!));
  });

  it("ST-2: cancellation refusals are in the table; its route is a recorded gap", () => {
    expect(statusOf("generation_in_flight")).toBe(409);
    expect(statusOf("generation_frozen")).toBe(409);
    expect(operations().some((o) => o.method === "delete" && o.path.startsWith("/v1/generations"))).toBe(false);
  });

  it("ST-3 EVT-11: an event says whether the generation was deleted", () => {
    const changed = deref<JsonObject>(schema("GenerationStatusChanged"));
    expect((changed.properties as JsonObject).deleted).toMatchObject({ type: "boolean" });
    expect(changed.required).toContain("deleted");
  });

  it("GEN-5: result files are served only to the owner's Authorization header", () => {
    const download = operationById("downloadGenerationOutput");
    expect(download.path).toBe(backticked(section("Generation record").split("\n").find((l) => l.startsWith("| output_urls"))!)[0]!.replace("GET ", ""));
    expect(download.schemes.sort()).toEqual(["api_key", "oauth2"]);
    expect(codes("downloadGenerationOutput", "404")).toEqual(["not_found"]);
  });

  it("GEN-8 GEN-10: title changes spend no credits and record their unshown bodies", () => {
    for (const id of ["changeGenerationTitle", "changeLibraryAssetTitle"]) {
      const op = operationById(id);
      expect(String(op.op["x-not-shown"]), id).toContain("Request and reply bodies are not shown.");
      expect(errorCodesOf(op).get("402")).toBeUndefined();
    }
  });

  it("REP-3 REP-4 REP-5 REP-6: the report answers 201, 409 report_replay_mismatch, 422 generation_already_settled", () => {
    expect(Object.keys(operationById("reportGeneration").op.responses as JsonObject)).toContain("201");
    expect(codes("reportGeneration", "409")).toEqual(["report_replay_mismatch"]);
    expect(codes("reportGeneration", "422")).toEqual(["generation_already_settled"]);
    expect(((deref<JsonObject>(schema("GenerationReportRequest")).properties as JsonObject).reason as JsonObject).enum).toEqual(["failure", "moderation"]);
  });
});

describe("estimate", () => {
  const estimate = operationById("estimatePrice");
  it("PRICE-2 PRICE-3: the estimate takes the submit body and answers a price ceiling", () => {
    expect(estimate.scope).toBe("models:read");
    const ok = deref<JsonObject>((estimate.op.responses as JsonObject)["200"]);
    expect(String((((ok.content as JsonObject)["application/json"] as JsonObject).schema as JsonObject).$ref)).toBe("#/components/schemas/PriceEstimate");
  });
  it("PRICE-4: an estimate spends a request of the window (its answer reached the limiter) and creates nothing", () => {
    const ok = deref<JsonObject>((estimate.op.responses as JsonObject)["200"]);
    expect(deref<JsonObject>((ok.headers as JsonObject).RateLimit).required).toBe(true);
    expect((ok.headers as JsonObject).Location).toBeUndefined();
    expect(Object.keys(estimate.op.responses as JsonObject)).not.toContain("201");
  });
  it("PRICE-5: an unmeasurable file answers 400, not a number", () => {
    expect(codes("estimatePrice", "400")).toEqual(["invalid_request"]);
  });
});

describe("library and uploads", () => {
  it("LIB-3 LIB-4 LIB-6: folder and move bodies are closed and answer the seed's conflicts", () => {
    expect(codes("createLibraryFolder", "409").sort()).toEqual(["folder_limit_reached", "folder_name_taken"]);
    expect(codes("changeLibraryFolder", "409")).toEqual(["folder_name_taken"]);
    expect(schemaValidator("FolderUpdateRequest")({})).toBe(false);
    expect(schemaValidator("FolderUpdateRequest")({ position: 2 })).toBe(true);
    expect(schemaValidator("LibraryMoveRequest")({ item_ids: ["a"], folder_id: null })).toBe(true);
    expect(schemaValidator("LibraryMoveRequest")({ item_ids: ["a"], folder_id: 7 })).toBe(false);
  });

  it("LIB-5 LIB-7: deleting a folder and the writes record their unshown reply bodies", () => {
    for (const id of ["createLibraryFolder", "changeLibraryFolder", "deleteLibraryFolder", "moveLibraryItems"]) {
      const ok = deref<JsonObject>((operationById(id).op.responses as JsonObject)["2XX"]);
      expect(((ok.content as JsonObject)["application/json"] as JsonObject)["x-not-shown"], id).toBe("Response bodies of the folder writes and of the move: not shown.");
    }
  });

  it("UPL-2 UPL-5: an upload request is checked field by field; the ceiling is 40 MiB exactly", () => {
    const mib = Number(seedText.match(/Size ceiling \| (\d+) MiB/)![1]);
    expect(bound("UploadRequest", "content_length", "maximum")).toBe(mib * 1024 * 1024);
    const validate = schemaValidator("UploadRequest");
    const ok = { kind: "image", content_type: "image/png", content_length: mib * 1024 * 1024 };
    expect(validate(ok)).toBe(true);
    expect(validate({ ...ok, content_length: mib * 1024 * 1024 + 1 })).toBe(false);
    expect(validate({ ...ok, content_type: "image/gif" })).toBe(false);
    expect(validate({ ...ok, extra: true })).toBe(false);
    expect(validate({ kind: "image", content_type: "image/png" })).toBe(false);
  });

  it("UPL-3 UPL-6: other kinds reach 503 upload_unavailable; the ticket answers 200", () => {
    expect(schemaValidator("UploadRequest")({ kind: "video", content_type: "video/mp4", content_length: 10 })).toBe(true);
    expect(codes("createUpload", "503")).toContain("upload_unavailable");
    const statuses = Object.keys(operationById("createUpload").op.responses as JsonObject);
    expect(statuses).toContain("200");
    expect(statuses).not.toContain("201");
  });

  it("UPL-7 UPL-8 ST-7: a ticket closes once; the proxy takes the raw file of the allowed types", () => {
    const complete = operationById("completeUpload");
    expect(complete.method).toBe("put");
    expect(mediaTypes(complete.op.requestBody as JsonObject).sort()).toEqual([...(schema("UploadContentType").enum as string[])].sort());
    expect(codes("completeUpload", "409")).toEqual(["duplicate_key_conflict"]);
    expect(deref<JsonObject>(schema("UploadCompletion")).required).toEqual(["reference", "bytes_stored"]);
    expect(deref<JsonObject>(schema("UploadTicket")).properties).toHaveProperty("headers");
  });

  it("SUP-3: a support message takes up to 3 images and answers 409 support_replay_mismatch", () => {
    const max = Number(seedText.match(/Support message images \| up to (\d+)/)![1]);
    expect(bound("SupportMessageRequest", "images", "maxItems")).toBe(max);
    expect(codes("sendSupportMessage", "409")).toEqual(["support_replay_mismatch"]);
  });
});

describe("authentication", () => {
  it("AUTH-4: keys and tokens go only in the Authorization header", () => {
    const schemes = (contract.components as JsonObject).securitySchemes as JsonObject;
    expect(Object.keys(schemes).filter((name) => name !== "session_cookie")).not.toHaveLength(0);
    for (const [name, s] of Object.entries(schemes)) {
      const scheme = deref<JsonObject>(s);
      if (name === "session_cookie") continue;
      expect(scheme.type === "http" || scheme.type === "oauth2", name).toBe(true);
    }
    const methods = (deref<JsonObject>(schema("ProtectedResourceMetadata")).properties as JsonObject).bearer_methods_supported as JsonObject;
    expect((methods.items as JsonObject).const).toBe("header");
  });

  it("AUTH-6: a missing scope answers 403 insufficient_scope, with a scope challenge for OAuth", () => {
    expect(operations().filter(isV1)).not.toHaveLength(0);
    for (const op of operations().filter(isV1)) {
      expect(errorCodesOf(op).get("403"), op.operationId).toContain("insufficient_scope");
      const forbidden = deref<JsonObject>((op.op.responses as JsonObject)["403"]);
      expect(Object.keys(forbidden.headers as JsonObject), op.operationId).toContain("WWW-Authenticate");
    }
  });

  it("OAUTH-1: only authorization code with PKCE S256 and refresh", () => {
    const oauth2 = deref<JsonObject>(((contract.components as JsonObject).securitySchemes as JsonObject).oauth2);
    expect(Object.keys(oauth2.flows as JsonObject)).toEqual(["authorizationCode"]);
    const meta = schemaValidator("AuthorizationServerMetadata");
    const base = {
      issuer: "http://127.0.0.1:4010", authorization_endpoint: "http://127.0.0.1:4010/oauth/authorize", token_endpoint: "http://127.0.0.1:4010/oauth/token",
      revocation_endpoint: "http://127.0.0.1:4010/oauth/revoke", registration_endpoint: "http://127.0.0.1:4010/oauth/register",
      response_types_supported: ["code"], grant_types_supported: ["authorization_code", "refresh_token"], code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none", "private_key_jwt"], client_id_metadata_document_supported: true,
    };
    expect(meta(base)).toBe(true);
    expect(meta({ ...base, code_challenge_methods_supported: ["S256", "plain"] })).toBe(false);
    expect(meta({ ...base, grant_types_supported: ["client_credentials"] })).toBe(false);
    expect(meta({ ...base, token_endpoint_auth_methods_supported: ["client_secret_basic"] })).toBe(false);
  });

  it("OAUTH-5: every URL field of a client ID metadata document is https", () => {
    const validate = schemaValidator("ClientMetadataDocument");
    const doc = { client_id: "https://app.example/c.json", redirect_uris: ["https://app.example/cb"] };
    for (const field of ["client_uri", "logo_uri", "policy_uri", "tos_uri", "jwks_uri"]) {
      expect(validate({ ...doc, [field]: "https://app.example/x" }), field).toBe(true);
      expect(validate({ ...doc, [field]: "http://app.example/x" }), field).toBe(false);
    }
    expect(validate({ ...doc, client_id: "http://app.example/c.json" })).toBe(false);
  });

  it("OAUTH-9 OAUTH-11: the authorization shows a page to the user; unknown clients are shown, not redirected", () => {
    const responses = operationById("authorize").op.responses as JsonObject;
    expect(mediaTypes(deref(responses["200"]))).toEqual(["text/html"]);
    expect(mediaTypes(deref(responses["400"])).sort()).toEqual(["application/json", "text/html"]);
    expect(codes("authorize", "403")).toContain("access_denied");
  });

  it("OAUTH-14: the token reply has the seed's fields; refresh_token only with the refresh grant", () => {
    const reply = deref<JsonObject>(schema("TokenReply"));
    const named = backticked(seedText.match(/Reply \(both grants\): (.*)\n/)![1]!).filter((f) => /^[a-z_]+$/.test(f));
    expect(Object.keys(reply.properties as JsonObject)).toEqual(expect.arrayContaining(named));
    expect(reply.required).not.toContain("refresh_token");
    expect((reply.properties as JsonObject).token_type).toMatchObject({ const: "Bearer" });
  });

  it("OAUTH-15 OAUTH-16: refresh takes the latest token; errors use the OAuth form (invalid_grant, invalid_client)", () => {
    expect(schemaValidator("RefreshTokenRequest")({ grant_type: "refresh_token", refresh_token: "r", client_id: "c" })).toBe(true);
    expect(codes("exchangeToken", "400")).toEqual(["invalid_grant"]);
    expect(codes("exchangeToken", "401")).toEqual(["invalid_client"]);
    expect(codes("revokeToken", "401")).toEqual(["invalid_client"]);
  });
});

describe("events and limits", () => {
  it("EVT-4: the stream needs generations:read", () => {
    expect(operationById("streamGenerationEvents").scope).toBe("generations:read");
  });

  it("EVT-9 EVT-10: Last-Event-ID resumes; an unknown type in `types` answers 400 invalid_request", () => {
    const events = operationById("streamGenerationEvents");
    expect(events.parameters.find((p) => p.name === "Last-Event-ID")).toMatchObject({ in: "header", required: false });
    expect(errorCodesOf(events).get("400")).toEqual(["invalid_request"]);
  });

  it("LIM-1 LIM-3: the RateLimit pair names one policy window", () => {
    const policy = schemaValidator("RateLimitPolicyField");
    expect(policy('"default";q=60;w=60')).toBe(true);
    expect(policy('"account";q=600;w=60')).toBe(true);
    expect(policy('"default";q=60;w=60, "account";q=600;w=60')).toBe(false);
    expect(String(schema("RateLimitPolicyField")["x-not-shown"])).toContain("Numeric values of the quotas");
  });

  it("LIM-5 LIM-6: rate refusals name their limit; quotas are read from /v1/me", () => {
    const reasons = (schema("DetailReason").anyOf as JsonObject[]).map((r) => r.const);
    for (const r of ["request_rate", "submit_rate", "concurrency", "queue_full"]) expect(reasons).toContain(r);
    const limits = (deref<JsonObject>(schema("AccountRecord")).properties as JsonObject).limits as JsonObject;
    expect(Object.keys(limits.properties as JsonObject)).toEqual(["submissions", "concurrency"]);
  });

  it("LIM-7: the other limits are the seed's numbers; above the body cap every /v1 route answers 413", () => {
    const rows = Object.fromEntries(tableAfter(section("Other limits"), "| Item |").map((r) => [r[0], r[1]]));
    const n = (item: string) => Number(rows[item]!.match(/(\d+)/)![1]);
    const [, min, max, def] = rows["Page size"]!.match(/(\d+)\.\.(\d+), default (\d+)/)!;
    expect(schema("PageLimit")).toMatchObject({ minimum: Number(min), maximum: Number(max), default: Number(def) });
    expect(bound("GenerationStatusRequest", "ids", "maxItems")).toBe(n("Batch status read"));
    expect(bound("SupportMessageRequest", "images", "maxItems")).toBe(n("Support message images"));
    expect(bound("GenerationReportRequest", "text", "maxLength")).toBe(n("Report text"));
    expect(bound("UploadRequest", "content_length", "maximum")).toBe(n("Upload size") * 1024 * 1024);
    expect(operations().filter(isV1)).not.toHaveLength(0);
    for (const op of operations().filter(isV1)) expect(errorCodesOf(op).get("413"), op.operationId).toEqual(["request_too_large"]);
  });
});

describe("bodies", () => {
  it("SUB-6 EP-1: every /v1 operation that takes a body can refuse it with 400 invalid_request", () => {
    let bodies = 0;
    for (const op of operations().filter((o) => isV1(o) && o.op.requestBody)) {
      const body = op.op.requestBody as JsonObject;
      const shown = Object.values((body.content as JsonObject) ?? {}).some((m) => String(((m as JsonObject).schema as JsonObject)?.$ref ?? "").endsWith("/NotShownBody") === false);
      if (!shown) continue; // a body the seed does not show cannot be refused field by field
      expect(errorCodesOf(op).get("400"), op.operationId).toContain("invalid_request");
      bodies++;
    }
    expect(bodies).toBeGreaterThan(0);
  });

  it("OAUTH-17: a malformed revocation is refused in the OAuth form; an unknown token is not an error", () => {
    expect(codes("revokeToken", "400")).toEqual(["invalid_request"]);
    expect(Object.keys(operationById("revokeToken").op.responses as JsonObject)).toContain("200");
  });
});
