// The challenge of a 401 (`WWW-Authenticate`), as the refusal ladder and every route's
// ladder hold it.
import { type Exchange } from "../target/exchange.ts";
import { type CheckContext } from "../facts/check.ts";

/** `WWW-Authenticate` of a 401: `resource_metadata` names the protected-resource document. */
export function checkChallenge(c: CheckContext, ex: Exchange, tokenPresented: boolean): void {
  const challenge = ex.headers.get("www-authenticate") ?? "";
  const m = /resource_metadata="?([^",\s]+)"?/.exec(challenge);
  if (!m) return; // checkAnswer already charged AUTH-8 for a missing or malformed header
  c.expect(/\/\.well-known\/oauth-protected-resource\/v1$/.test(m[1]!), "AUTH-8", `resource_metadata ${JSON.stringify(m[1])} is not the protected-resource document (/.well-known/oauth-protected-resource/v1)`, ex);
  if (tokenPresented) c.expect(/error="?invalid_token"?/.test(challenge), "AUTH-8", `a 401 for an unusable token without error="invalid_token": ${JSON.stringify(challenge)}`, ex);
}
