// The credential ladder on every route (the seed's "Credential checks and refusals"):
// each refusal a credential of the run reaches, on every operation that takes that kind
// of credential, not on `GET /v1/whoami` alone. A malformed key and a key nobody has
// (`invalid_api_key`), and each role key given (`--key expired=...`: `api_key_expired`,
// `api_key_revoked`, `api_access_not_granted`, `account_suspended`,
// `legal_consent_required`; `oauth-invalid`: `invalid_token` on the routes that take OAuth
// tokens). Every 401 carries `WWW-Authenticate` with `resource_metadata`, and for an
// unusable token `error="invalid_token"`. No credential is the `routes` check's rung (every
// route already); a scope missing is the scope sweep's (`fewer scopes`).
import { KEY_ROLES, type KeyRole } from "../../facts/given.ts";
import { absent, harmless, sendTo, v1Operations } from "../../kit/routes.ts";
import { checkChallenge } from "../../kit/challenge.ts";
import { unknownKeyLike } from "../../kit/ids.ts";
import { operationLabel } from "../../target/exchange.ts";
import { type Check, type CheckContext } from "../../facts/check.ts";

/** A credential that reaches one rung, and the refusal it must get. */
interface Rung {
  code: string;
  what: string;
  label: string;
  /** The security scheme of the operations it is tried on. */
  scheme: "api_key" | "oauth2";
  authorization: string;
}

/** Roles whose keys are refused by a later check than the credential ladder (the plan, the spend limit) or by the scope rung. */
const NOT_RUNGS: readonly KeyRole[] = ["free", "spend-capped", "read-only"];

/** The rungs this run can reach, in the seed's order. */
export function rungs(c: CheckContext): { reached: Rung[]; missing: string[] } {
  const reached: Rung[] = [
    { code: "invalid_api_key", what: "a malformed key", label: "malformed-key", scheme: "api_key", authorization: "Bearer %%conformance%%" },
    { code: "invalid_api_key", what: "an unknown key shaped like the given one", label: "unknown-key", scheme: "api_key", authorization: `Bearer ${unknownKeyLike(c.apiKey)}` },
  ];
  const missing: string[] = [];
  for (const [role, { code }] of Object.entries(KEY_ROLES) as [KeyRole, { code: string }][]) {
    if (NOT_RUNGS.includes(role)) continue;
    const key = c.role(role);
    if (!key) missing.push(`${code} (no --key ${role}=...)`);
    else reached.push({ code, what: `the ${role} key`, label: role, scheme: role === "oauth-invalid" ? "oauth2" : "api_key", authorization: `Bearer ${key}` });
  }
  return { reached, missing };
}

export const ladderEveryRoute: Check = {
  name: "the credential ladder on every route",
  rules: ["AUTH-7", "AUTH-8"],
  async run(c) {
    const { reached, missing } = rungs(c);
    for (const rung of reached) {
      const ops = v1Operations(rung.scheme);
      for (const op of ops) {
        const ex = await sendTo(c, op, { ...harmless(op, "AUTH-7"), authorization: rung.authorization, label: rung.label });
        c.target.deliberate(ex);
        // A route the server lacks is EP-4's; one it does not offer now says nothing of the ladder.
        if (absent(op, ex)) continue;
        c.refusal(ex, rung.code, "AUTH-7", `${operationLabel(op)} with ${rung.what}`);
        if (ex.status === 401) checkChallenge(c, ex, rung.scheme === "oauth2");
      }
    }
    const codes = [...new Set(reached.map((r) => r.code))];
    c.note("AUTH-7", `on every route that takes the credential (${v1Operations("api_key").length} operations for keys, ${v1Operations("oauth2").length} for OAuth tokens): ${codes.join(", ")}`);
    if (missing.length > 0) c.skip(["AUTH-7"], `rungs not tried on every route: ${missing.join("; ")}`);
    if (!c.role("oauth-invalid")) c.skip(["AUTH-8"], 'error="invalid_token" on every route not tried (no --key oauth-invalid=...)');
  },
};
