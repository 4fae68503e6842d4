// The OAuth discovery documents: the protected resource and the authorization server's
// metadata, what they name (the issuer, the resource, the routes under /oauth/) and what
// they offer (S256 only, the two grants, no shared secret, the header only).
import { scopes } from "../../../contract/index.ts";
import type { Check } from "../../facts/check.ts";
import { said } from "../../target/exchange.ts";

export const discoveryDocuments: Check = {
  name: "OAuth discovery documents",
  rules: ["W-1", "OAUTH-1", "OAUTH-2", "OAUTH-3", "AUTH-4", "AUTH-5"],
  needs: { stateful: false },
  provides: ["oauthServer"],
  async run(c) {
    const pr = await c.get("/.well-known/oauth-protected-resource/v1", "OAUTH-2", { key: null });
    const as = await c.get("/.well-known/oauth-authorization-server", "OAUTH-2", { key: null });
    if (c.unavailable(pr, ["W-1", "OAUTH-1", "OAUTH-2", "OAUTH-3"]) || c.unavailable(as, ["W-1", "OAUTH-1", "OAUTH-2", "OAUTH-3"])) return c.notLearnt("oauthServer", `the discovery documents answered ${said(pr)} and ${said(as)} (not offered by this server now)`);
    if (pr.status !== 200 || as.status !== 200) return c.cannotLearn("oauthServer", "OAUTH-2", `the discovery documents answered ${pr.status} and ${as.status} without a token`, pr.status !== 200 ? pr : as);
    const issuer = String(as.json?.issuer ?? "").replace(/\/+$/, "");
    const resource = String(pr.json?.resource ?? "");
    c.learn("oauthServer", { ...(issuer ? { issuer: String(as.json.issuer) } : {}), ...(resource ? { resource } : {}) });
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
