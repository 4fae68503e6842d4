// Singleton reads (never 404), the folder list, OAuth discovery documents, and the
// rate windows seen over the whole run.
import { scopes } from "../../contract/index.ts";
import { randomToken, type Check } from "../context.ts";
import { bodyShown } from "../describe.ts";

export const singletons: Check = {
  name: "singleton reads and the folder list",
  rules: ["W-7", "BILL-3", "PAGE-6"],
  async run(c) {
    const sub = await c.get("/v1/billing/subscription", "BILL-3");
    if (!c.unavailable(sub, ["W-7", "BILL-3", "BILL-2"])) {
      c.expect(sub.status === 200, "W-7", `the live subscription answered ${sub.status}; no subscription is null, not 404`, sub);
      if (sub.status === 200) c.pass("BILL-3");
    }
    const folders = await c.get("/v1/library/folders", "PAGE-6");
    if (!c.unavailable(folders, ["PAGE-6", "LIB-2"]) && folders.status === 200) {
      c.expect(folders.json?.next_cursor === null, "PAGE-6", `next_cursor is ${JSON.stringify(folders.json?.next_cursor)}; all folders come at once`, folders);
    }
  },
};

export const discoveryDocuments: Check = {
  name: "OAuth discovery documents",
  rules: ["W-1", "OAUTH-1", "OAUTH-2", "OAUTH-3", "AUTH-4", "AUTH-5"],
  needs: { stateful: false },
  async run(c) {
    const pr = await c.get("/.well-known/oauth-protected-resource/v1", "OAUTH-2", { key: null });
    const as = await c.get("/.well-known/oauth-authorization-server", "OAUTH-2", { key: null });
    if (c.unavailable(pr, ["W-1", "OAUTH-1", "OAUTH-2", "OAUTH-3"]) || c.unavailable(as, ["W-1", "OAUTH-1", "OAUTH-2", "OAUTH-3"])) return;
    if (pr.status !== 200 || as.status !== 200) {
      c.fail("OAUTH-2", `the discovery documents answered ${pr.status} and ${as.status} without a token`, pr.status !== 200 ? pr : as);
      return;
    }
    const issuer = String(as.json?.issuer ?? "").replace(/\/+$/, "");
    if (issuer) c.shared.issuer = String(as.json.issuer);
    const resource = String(pr.json?.resource ?? "");
    if (resource) c.shared.resource = resource;
    c.expect(resource === `${issuer}/v1`, "W-1", `the resource ${JSON.stringify(resource)} is not the issuer's base address ${JSON.stringify(issuer)} + /v1`, pr);
    const servers: unknown[] = Array.isArray(pr.json?.authorization_servers) ? pr.json.authorization_servers : [];
    c.expect(servers.some((s) => String(s).replace(/\/+$/, "") === issuer), "W-1", `authorization_servers ${JSON.stringify(servers)} does not name the issuer ${issuer}`, pr);
    for (const field of ["authorization_endpoint", "token_endpoint", "revocation_endpoint", "registration_endpoint"]) {
      const v = as.json?.[field];
      if (typeof v === "string") c.expect(v.startsWith(`${issuer}/oauth/`), "W-1", `${field} ${v} is not under ${issuer}/oauth/`, as);
    }
    const methods = as.json?.code_challenge_methods_supported;
    c.expect(Array.isArray(methods) && methods.length === 1 && methods[0] === "S256", "OAUTH-1", `code_challenge_methods_supported is ${JSON.stringify(methods)}; only S256`, as);
    const grants: unknown[] = as.json?.grant_types_supported ?? [];
    c.expect(grants.every((g) => g === "authorization_code" || g === "refresh_token"), "OAUTH-1", `grant_types_supported ${JSON.stringify(grants)} goes beyond authorization_code and refresh_token`, as);
    const responses: unknown[] = as.json?.response_types_supported ?? [];
    c.expect(responses.every((r) => r === "code"), "OAUTH-1", `response_types_supported ${JSON.stringify(responses)} goes beyond code`, as);
    const auth: unknown[] = as.json?.token_endpoint_auth_methods_supported ?? [];
    c.expect(auth.every((m) => m === "none" || m === "private_key_jwt"), "OAUTH-3", `token_endpoint_auth_methods_supported ${JSON.stringify(auth)} includes a shared-secret method`, as);
    const bearer: unknown[] = pr.json?.bearer_methods_supported ?? [];
    c.expect(bearer.length > 0 && bearer.every((m) => m === "header"), "AUTH-4", `bearer_methods_supported ${JSON.stringify(bearer)}; the Authorization header is the only place`, pr);
    const offered: unknown[] = pr.json?.scopes_supported ?? [];
    const unknown = offered.filter((s) => !scopes.includes(String(s)));
    c.expect(unknown.length === 0, "AUTH-5", `scopes_supported names scopes outside the vocabulary: ${unknown.join(", ")}`, pr);
  },
};

export const oauthRefusals: Check = {
  name: "OAuth refusals a client can provoke",
  rules: ["OAUTH-11", "OAUTH-16"],
  async run(c) {
    const client = `https://conformance.invalid/client-${randomToken()}.json`;
    const redirect = "https://conformance.invalid/callback";
    const query = new URLSearchParams({
      response_type: "code",
      client_id: client,
      redirect_uri: redirect,
      scope: "models:read",
      state: "conformance",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
    });
    const authorize = await c.get(`/oauth/authorize?${query}`, "OAUTH-11", { key: null });
    if (!c.unavailable(authorize, ["OAUTH-11"])) {
      const location = authorize.headers.get("location") ?? "";
      c.expect(!location.startsWith("https://conformance.invalid"), "OAUTH-11", `an unknown client_id was sent back to its redirect_uri (${authorize.status} Location ${location})`, authorize);
      c.expect(authorize.status >= 400 && authorize.status < 500, "OAUTH-11", `an unknown client_id answered ${authorize.status}; it is shown to the user as an error`, authorize);
    }
    const form = new URLSearchParams({ grant_type: "authorization_code", code: `conformance-${randomToken()}`, redirect_uri: redirect, code_verifier: "conformance-verifier-conformance-verifier-0123", client_id: client });
    const token = await c.request({ method: "POST", path: "/oauth/token", key: null, raw: form.toString(), headers: { "content-type": "application/x-www-form-urlencoded" }, rule: "OAUTH-16" });
    if (!c.unavailable(token, ["OAUTH-16"])) {
      const error = token.json?.error;
      c.expect(
        (token.status === 400 || token.status === 401) && (error === "invalid_grant" || error === "invalid_client"),
        "OAUTH-16",
        `a code exchange with an unknown code and client answered ${token.status} with ${bodyShown(token.text)}; expected the OAuth form with invalid_grant or invalid_client`,
        token,
      );
    }
  },
};

export const windows: Check = {
  name: "rate windows over the run",
  rules: ["LIM-1"],
  async run(c) {
    const seen = [...c.seen.policies];
    if (seen.length === 0) {
      c.skip(["LIM-1"], "no RateLimit pair seen");
      return;
    }
    const odd = seen.filter((p) => p !== "default" && p !== "account");
    c.expect(odd.length === 0, "LIM-1", `windows named ${odd.join(", ")}; the seed names default (per key) and account`);
    const d = c.seen.windowLengths.get("default");
    const a = c.seen.windowLengths.get("account");
    if (d !== undefined && a !== undefined) c.expect(d === a, "LIM-1", `the default window lasts ${d} s and the account window ${a} s; they are of equal length`);
    else c.skip(["LIM-1"], `only the ${seen.join(", ")} window was binding in this run: the two windows were not compared`);
  },
};
