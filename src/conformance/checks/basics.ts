// Who the key is, every route of the summary table, the refusal ladder, where a key is
// accepted, and the envelope's request id and languages.
import { operations, scopes } from "../../contract/index.ts";
import { notRouted } from "../broken-rule.ts";
import { errorCodeOf } from "../describe.ts";
import { randomToken, unknownKeyLike, type Check, type CheckContext } from "../context.ts";
import { KEY_ROLES, type KeyRole } from "../options.ts";
import { KeyRefused } from "../stops.ts";


/** A concrete path for a template: placeholders the server cannot know. */
export function concrete(path: string): string {
  return path.replace(/\{([^}]+)\}/g, (_m, name: string) => (name === "index" ? "0" : name === "kind" ? "image" : `conformance-${name}-0000000000000000`));
}

export const discovery: Check = {
  name: "who the key is",
  rules: ["AUTH-1", "ACC-2", "AUTH-5", "ACC-1", "LIM-6"],
  needs: { stateful: false },
  async run(c) {
    const who = await c.get("/v1/whoami", "ACC-2");
    const code = errorCodeOf(who.json);
    if ((who.status === 401 || who.status === 403) && code !== undefined) {
      c.fail("AUTH-1", `the API key was refused: ${who.status} ${code}`, who);
      throw new KeyRefused(`GET /v1/whoami answered ${who.status} ${code}: the API key is not usable, nothing else can be checked`);
    }
    // Anything else (a route the server does not have, a crash) says nothing about the
    // key: the answer's own faults are charged where it was observed, and the run goes on.
    if (who.status === 200) {
      c.pass("AUTH-1");
      c.shared.whoami = who.json;
    } else c.skip(["AUTH-1", "ACC-2", "AUTH-5"], `GET /v1/whoami answered ${who.status}${code ? ` ${code}` : ""}: who the key is was not learnt`);
    if (who.status === 200 && !c.settings.staticMock) {
      c.expect(who.json?.channel !== "oauth", "ACC-2", `an API key resolved to channel ${JSON.stringify(who.json?.channel)}; \`oauth\` is for OAuth tokens`, who);
      const held: unknown[] = Array.isArray(who.json?.scopes) ? who.json.scopes : [];
      const unknown = held.filter((s) => !scopes.includes(String(s)));
      c.expect(unknown.length === 0, "AUTH-5", `scopes outside the vocabulary: ${unknown.join(", ")}`, who);
    }

    const me = await c.get("/v1/me", "ACC-1");
    if (me.status === 200) {
      c.shared.me = me.json;
      const limits = me.json?.limits;
      c.expect(Boolean(limits && typeof limits === "object" && "submissions" in limits && "concurrency" in limits), "LIM-6", "GET /v1/me has no limits.submissions and limits.concurrency to read the quotas from", me);
    }

    const models = await c.get("/v1/models", "CAT-1");
    if (models.status === 200 && Array.isArray(models.json?.data)) c.shared.models = models.json.data;

    const own = await c.get("/v1/generations?limit=100", "GEN-1");
    if (own.status === 200 && Array.isArray(own.json?.data)) c.shared.own = own.json.data;

    const otherKey = c.otherKey;
    if (otherKey && !c.settings.staticMock) {
      const whoOther = await c.get("/v1/whoami", "ACC-2", { key: otherKey });
      if (whoOther.status === 200 && whoOther.json?.user_id !== undefined && whoOther.json.user_id !== who.json?.user_id) {
        c.shared.otherIsOtherAccount = true;
        const list = await c.get("/v1/generations?limit=100", "GEN-1", { key: otherKey });
        if (list.status === 200 && Array.isArray(list.json?.data)) c.shared.other = list.json.data;
      } else {
        c.log(`  the other key is not usable as a second account (whoami ${whoOther.status}, user ${JSON.stringify(whoOther.json?.user_id)})`);
      }
    }
  },
};

/**
 * Whether the server translates at all, judged over the run: the seed lets `user_message`
 * equal `message` where no translation exists, but a server whose refusals asked for in
 * Russian never carry Russian has no translations, and Russian is what `Accept-Language:
 * ru` asks for.
 */
export const localisation: Check = {
  name: "Russian wording over the run",
  rules: ["ENV-3"],
  async run(c) {
    const asked = c.seen.localisation;
    if (asked.length === 0) {
      c.skip(["ENV-3"], "no refusal was asked for in Russian");
      return;
    }
    const codes = (list: typeof asked) => [...new Set(list.map((a) => a.code))].sort();
    const russian = codes(asked.filter((a) => a.russian));
    if (russian.length === 0) {
      c.fail("ENV-3", `under Accept-Language: ru, none of the ${asked.length} refusals (${codes(asked).join(", ")}) carried a Russian user_message: the server never localises`);
      return;
    }
    c.pass("ENV-3");
    const plain = codes(asked).filter((code) => !russian.includes(code));
    if (plain.length > 0) c.note("ENV-3", `no Russian wording for ${plain.join(", ")}: user_message equals message`);
  },
};

export const routes: Check = {
  name: "every route of the summary table",
  rules: ["EP-4", "AUTH-7", "AUTH-8"],
  needs: { stateful: false },
  async run(c) {
    const missing: string[] = [];
    for (const op of operations()) {
      const path = concrete(op.path);
      const method = op.method.toUpperCase();
      const credentialed = op.schemes.length > 0;
      // A static mock answers an invalid request (an OAuth form without its fields) with a
      // status of its own, not the document's: only credentialed routes are asked there.
      if (c.settings.staticMock && !credentialed && method !== "GET") continue;
      const ex = await c.request({ method, path, key: null, rule: "EP-4", ...(method === "GET" || method === "DELETE" ? {} : { raw: "", headers: {} }) });
      c.target.deliberate(ex);
      const code = errorCodeOf(ex.json);
      if (ex.status === 404 || ex.status === 405) {
        missing.push(`${method} ${op.path}`);
        c.fail("EP-4", notRouted(op, ex), ex);
        continue;
      }
      if (ex.status === 503 && code === "service_unavailable") {
        c.skip(["EP-4"], `some routes answered 503 service_unavailable (not offered by this server now)`);
        continue;
      }
      if (credentialed && !c.settings.staticMock) {
        c.refusal(ex, "unauthorized", "AUTH-7", `${method} ${op.path} without a credential`);
      }
      if (ex.status === 401) checkChallenge(c, ex, false);
    }
    if (missing.length === 0) c.pass("EP-4");
  },
};

/** `WWW-Authenticate` of a 401: `resource_metadata` names the protected-resource document. */
export function checkChallenge(c: CheckContext, ex: import("../http.ts").Exchange, tokenPresented: boolean): void {
  const challenge = ex.headers.get("www-authenticate") ?? "";
  const m = /resource_metadata="?([^",\s]+)"?/.exec(challenge);
  if (!m) return; // checkAnswer already charged AUTH-8 for a missing or malformed header
  c.expect(/\/\.well-known\/oauth-protected-resource\/v1$/.test(m[1]!), "AUTH-8", `resource_metadata ${JSON.stringify(m[1])} is not the protected-resource document (/.well-known/oauth-protected-resource/v1)`, ex);
  if (tokenPresented) c.expect(/error="?invalid_token"?/.test(challenge), "AUTH-8", `a 401 for an unusable token without error="invalid_token": ${JSON.stringify(challenge)}`, ex);
}

export const ladder: Check = {
  name: "the refusal ladder",
  rules: ["AUTH-7", "AUTH-6", "AUTH-8"],
  async run(c) {
    const exercised = ["unauthorized"];
    const malformed = await c.get("/v1/whoami", "AUTH-7", { authorization: "Bearer %%conformance%%" });
    c.refusal(malformed, "invalid_api_key", "AUTH-7", "a malformed key");
    const unknown = await c.get("/v1/whoami", "AUTH-7", { key: unknownKeyLike(c.apiKey), label: "unknown-key" });
    c.refusal(unknown, "invalid_api_key", "AUTH-7", "an unknown key shaped like the given one");
    exercised.push("invalid_api_key");

    const notExercised = ["api_disabled (a caller cannot switch the API off)"];
    for (const [role, { code }] of Object.entries(KEY_ROLES) as [KeyRole, { code: string }][]) {
      if (role === "free" || role === "spend-capped") continue; // submit refusals, not rungs
      const key = c.role(role);
      if (!key) {
        notExercised.push(`${code} (no --key ${role}=...)`);
        continue;
      }
      exercised.push(code);
      if (role === "read-only") {
        // A body that can never create anything: only the scope rung can answer.
        const ex = await c.request({ method: "POST", path: "/v1/generations", key, json: {}, headers: { "idempotency-key": `conformance-${randomToken()}` }, rule: "AUTH-6" });
        c.target.deliberate(ex);
        c.refusal(ex, "insufficient_scope", "AUTH-6", "a submit with a key that lacks generations:write");
        c.refusal(ex, "insufficient_scope", "AUTH-7", "the scope rung (a key that lacks generations:write)");
        continue;
      }
      const ex = await c.get("/v1/whoami", "AUTH-7", { key });
      c.refusal(ex, code, "AUTH-7", `a key given as --key ${role}`);
      if (ex.status === 401) checkChallenge(c, ex, role === "oauth-invalid");
    }
    if (!c.role("read-only")) c.skip(["AUTH-6"], "no key without a scope was given (--key read-only=...)");
    c.note("AUTH-7", `rungs exercised: ${exercised.join(", ")}`);
    c.skip(["AUTH-7"], `rungs not exercised: ${notExercised.join("; ")}`);
    if (!c.role("oauth-invalid")) c.skip(["AUTH-8"], "error=\"invalid_token\" of an unusable OAuth token not exercised (no --key oauth-invalid=...)");
    for (const ex of [malformed, unknown]) if (ex.status === 401) checkChallenge(c, ex, false);
  },
};

export const keyPlacement: Check = {
  name: "where a key is accepted",
  rules: ["AUTH-4"],
  async run(c) {
    for (const param of ["api_key", "access_token"]) {
      const ex = await c.get(`/v1/whoami?${param}=${encodeURIComponent(c.apiKey)}`, "AUTH-4", { key: null });
      c.target.deliberate(ex);
      c.expect(ex.status === 401 && errorCodeOf(ex.json) === "unauthorized", "AUTH-4", `a key in the query (${param}) was not refused as no credential: ${ex.status} ${errorCodeOf(ex.json) ?? ""}`, ex);
    }
    const origin = "https://conformance.invalid";
    const pre = await c.request({
      method: "OPTIONS",
      path: "/v1/whoami",
      key: null,
      rule: "AUTH-4",
      bare: true,
      headers: { origin, "access-control-request-method": "GET", "access-control-request-headers": "authorization" },
    });
    const allowOrigin = pre.headers.get("access-control-allow-origin");
    const allowHeaders = (pre.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(",").map((h) => h.trim());
    const open = (allowOrigin === origin || allowOrigin === "*") && allowHeaders.includes("authorization");
    c.expect(!open, "AUTH-4", `a cross-origin preflight from ${origin} is allowed to send Authorization (Access-Control-Allow-Origin ${allowOrigin}, -Headers ${allowHeaders.join(", ")})`, pre);
  },
};

export const envelope: Check = {
  name: "the envelope and the request id",
  rules: ["EP-2", "ENV-3", "ENV-6", "EP-1", "PRICE-7"],
  async run(c) {
    // Generated when absent, on a success and on a refusal; the body repeats it.
    const plain = await c.get("/v1/whoami", "EP-2", { requestId: false });
    c.expect(Boolean(plain.headers.get("x-request-id")), "EP-2", "no X-Request-Id generated when none was sent", plain);
    const refused = await c.get("/v1/generations?limit=0", "EP-2", { requestId: false });
    c.target.deliberate(refused);
    const header = refused.headers.get("x-request-id");
    const body = refused.json?.error?.request_id;
    if (header && typeof body === "string") c.expect(header === body, "EP-2", `the generated X-Request-Id ${header} differs from error.request_id ${body}`, refused);

    // Russian only on request, English otherwise; message always English. Every answer is
    // held to it as it comes (Target.observe); a few refusals of different codes are asked
    // for in Russian here, so that `localisation` can tell a server that never translates.
    const ru = await c.get("/v1/generations?limit=0", "ENV-3", { headers: { "accept-language": "ru" } });
    c.target.deliberate(ru);
    const ruNoKey = await c.get("/v1/whoami", "ENV-3", { key: null, headers: { "accept-language": "ru" } });
    c.target.deliberate(ruNoKey);
    const ruNowhere = await c.get(`/v1/conformance-no-such-route-${randomToken()}`, "ENV-3", { headers: { "accept-language": "ru-RU, ru;q=0.9" } });
    c.target.deliberate(ruNowhere);
    const de = await c.get("/v1/generations?limit=0", "ENV-3", { headers: { "accept-language": "de-DE, de;q=0.9" } });
    c.target.deliberate(de);

    // A body that is not JSON: a clean envelope, no parser message.
    const broken = await c.request({ method: "POST", path: "/v1/pricing/estimate", raw: '{"type": "video", "model": ', headers: { "content-type": "application/json" }, rule: "ENV-6", direct: true });
    c.target.deliberate(broken);
    c.refusal(broken, "invalid_request", "PRICE-7", "an estimate whose body is not JSON");

    // An unknown route answers not_found in the envelope.
    const nowhere = await c.get(`/v1/conformance-no-such-route-${randomToken()}`, "EP-1");
    c.target.deliberate(nowhere);
    c.refusal(nowhere, "not_found", "EP-1", "an unknown /v1 route");
  },
};

