// The refusal ladder on GET /v1/whoami: a malformed key, an unknown one, and each role
// key given (--key ROLE=KEY) answered with its rung's code; a key without generations:write
// refused a submit by the scope rung.
import { checkChallenge } from "../../kit/challenge.ts";
import { randomToken, unknownKeyLike } from "../../kit/ids.ts";
import { KEY_ROLES, type KeyRole } from "../../facts/given.ts";
import { type Check } from "../../facts/check.ts";

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
