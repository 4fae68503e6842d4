// OAuth refusals any client can provoke without a browser: an unknown client_id is not sent
// back to its redirect address, an unknown code answers the OAuth error form.
import { randomToken } from "../../kit/ids.ts";
import { bodyShown } from "../../kit/describe.ts";
import { type Check } from "../../facts/check.ts";

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
