// Submits refused before anything is created: an account without a paid plan
// (`payment_required`), a key at its monthly spend limit (`key_spend_limit_reached`).
import { randomToken } from "../../kit/ids.ts";
import { type Check } from "../../facts/check.ts";

export const planRefusals: Check = {
  name: "submits refused for the plan or the spend limit",
  rules: ["SUB-4", "AUTH-9", "W-9"],
  needs: { writes: true, facts: ["priced"] },
  async run(c) {
    const body = c.fact("priced")[0]!.body;
    const free = c.role("free");
    if (free) {
      const ex = await c.post("/v1/generations", body, "SUB-4", { key: free, headers: { "idempotency-key": `conformance-${randomToken()}` } });
      c.refusal(ex, "payment_required", "SUB-4", "a submit by an account without a paid plan");
      c.refusal(ex, "payment_required", "W-9", "starting a generation without a paid plan");
      c.skip(["SUB-4"], "the exact replay of an accepted request after the plan ended is not exercised (it needs the plan to change)");
    } else c.skip(["SUB-4"], "no key of an account without a paid plan (--key free=...)");
    const capped = c.role("spend-capped");
    if (capped) {
      const ex = await c.post("/v1/generations", body, "AUTH-9", { key: capped, headers: { "idempotency-key": `conformance-${randomToken()}` } });
      c.refusal(ex, "key_spend_limit_reached", "AUTH-9", "a submit by a key at its monthly spend limit");
    } else c.skip(["AUTH-9"], "no key at its spend limit (--key spend-capped=...)");
    c.skip(["AUTH-9"], "grant_spend_limit_reached not provoked: it needs an OAuth application whose monthly spend limit the user set and reached");
  },
};
