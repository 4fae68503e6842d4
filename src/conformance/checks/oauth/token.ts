// What an OAuth access token may do on /v1: the one given (`--oauth-token`, read-only), and
// those the code flow obtains.
import { operationById } from "../../../contract/index.ts";
import { errorCodeOf } from "../../target/exchange.ts";
import { type Check, type CheckContext } from "../../facts/check.ts";

const TOKEN_RULES = ["AUTH-2", "AUTH-6", "W-11"];

/**
 * What an access token may do on /v1: it opens the routes of its scopes, `whoami` says
 * `oauth` and the scopes; a route of another scope answers 403 naming the scope; never in
 * the query; with writes, the session-only routes refuse it even with billing:read.
 */
export async function tokenChecks(c: CheckContext, token: string, granted: string[], label: string): Promise<void> {
  const who = await c.get("/v1/whoami", "AUTH-2", { key: token, label });
  if (!c.expect(who.status === 200, "AUTH-2", `GET /v1/whoami with the access token answered ${who.status} ${errorCodeOf(who.json) ?? ""}`, who)) return;
  c.expect(who.json?.channel === "oauth", "ACC-2", `an OAuth access token resolved to channel ${JSON.stringify(who.json?.channel)}, not oauth`, who);
  const held: string[] = Array.isArray(who.json?.scopes) ? who.json.scopes.map(String) : [];
  if (granted.length > 0) c.expect(held.slice().sort().join(" ") === granted.slice().sort().join(" "), "AUTH-2", `whoami says the token holds [${held.join(" ")}]; the token reply granted [${granted.join(" ")}]`, who);
  const scopes = granted.length > 0 ? granted : held;

  const reads: [string, string][] = [["/v1/models", "listModels"], ["/v1/library/folders", "listLibraryFolders"], ["/v1/billing/transactions?limit=1", "listCreditTransactions"], ["/v1/generations?limit=1", "listGenerations"], ["/v1/me", "readAccount"]];
  const inside = reads.find(([, op]) => scopes.includes(operationById(op).scope ?? ""));
  const outside = reads.find(([, op]) => !scopes.includes(operationById(op).scope ?? "") && operationById(op).scope);
  if (inside) {
    const ex = await c.get(inside[0], "AUTH-2", { key: token, label });
    c.expect(ex.status === 200 || ex.status === 304, "AUTH-2", `GET ${inside[0]} (scope ${operationById(inside[1]).scope}, granted) with the token answered ${ex.status} ${errorCodeOf(ex.json) ?? ""}`, ex);
  }
  if (outside) {
    const need = operationById(outside[1]).scope!;
    const ex = await c.get(outside[0], "AUTH-6", { key: token, label });
    if (c.refusal(ex, "insufficient_scope", "AUTH-6", `GET ${outside[0]} with a token without ${need}`)) {
      const challenge = ex.headers.get("www-authenticate") ?? "";
      c.expect(new RegExp(`scope="?[^"]*\\b${need.replace(":", "\\:")}\\b`).test(challenge), "AUTH-6", `WWW-Authenticate ${JSON.stringify(challenge)} does not name the missing scope ${need}`, ex);
      c.pass("AUTH-2", "a route outside the token's scopes is refused");
    }
  } else c.skip(["AUTH-6"], "the token holds every scope the suite could probe: insufficient_scope for a token not tried");
  const query = await c.get(`/v1/whoami?access_token=${encodeURIComponent(token)}`, "AUTH-4", { key: null });
  c.target.deliberate(query);
  c.expect(query.status === 401 && errorCodeOf(query.json) === "unauthorized", "AUTH-4", `an access token in the query was not refused as no credential: ${query.status} ${errorCodeOf(query.json) ?? ""}`, query);
  if (c.settings.writes) {
    for (const path of ["/v1/subscription/cancel", "/v1/subscription/resume"]) {
      const ex = await c.post(path, path.endsWith("cancel") ? {} : undefined, "W-11", { key: token, label });
      c.target.deliberate(ex);
      c.refusal(ex, "insufficient_scope", "W-11", `POST ${path} with an OAuth token${scopes.includes("billing:read") ? " holding billing:read" : ""}`);
    }
  } else c.skip(["W-11"], "the session-only routes with an OAuth token not tried (needs --allow-writes)");
}

export const oauthToken: Check = {
  name: "OAuth: a given access token on /v1",
  rules: TOKEN_RULES,
  async run(c) {
    const token = c.settings.options.oauthToken;
    if (!token) {
      if (!c.settings.options.oauth?.autoConsent) c.skip(["AUTH-2"], "no OAuth access token given (--oauth-token), and none obtained (--oauth-auto-consent)");
      return;
    }
    await tokenChecks(c, token, [], "oauth token");
  },
};
