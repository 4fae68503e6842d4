// "The Authorization header is the only place a key or token is accepted" (AUTH-4), on
// every route that takes a key or a token: the main key in the query as `api_key` and as
// `access_token` (RFC 6750's query parameter), and the OAuth token given with
// --oauth-token as `access_token`, each without an Authorization header, is no credential
// at all: 401 `unauthorized`. The requests change nothing even if served.
import { absent, harmless, sendTo, v1Operations } from "../../kit/routes.ts";
import { operationLabel } from "../../target/exchange.ts";
import { type Check } from "../../facts/check.ts";

export const queryCredentials: Check = {
  name: "a credential in the query on every route",
  rules: ["AUTH-4"],
  async run(c) {
    const tries: { param: string; secret: string; what: string; scheme: string }[] = [
      { param: "api_key", secret: c.apiKey, what: "the API key", scheme: "api_key" },
      { param: "access_token", secret: c.apiKey, what: "the API key", scheme: "api_key" },
    ];
    const token = c.settings.options.oauthToken;
    if (token) tries.push({ param: "access_token", secret: token, what: "the OAuth token", scheme: "oauth2" });
    else c.skip(["AUTH-4"], "an OAuth token in the query on every route not tried (no --oauth-token)");
    for (const t of tries) {
      for (const op of v1Operations(t.scheme)) {
        const spec = harmless(op, "AUTH-4");
        const path = `${spec.path}${spec.path.includes("?") ? "&" : "?"}${t.param}=${encodeURIComponent(t.secret)}`;
        const ex = await sendTo(c, op, { ...spec, path, key: null });
        c.target.deliberate(ex);
        if (absent(op, ex)) continue;
        c.refusal(ex, "unauthorized", "AUTH-4", `${operationLabel(op)} with ${t.what} in the query (${t.param}) and no Authorization header`);
      }
    }
  },
};
