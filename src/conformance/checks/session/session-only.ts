// The subscription actions are the site session's only: an API key gets `insufficient_scope`
// on each of them (`--allow-writes`: served, they would change the subscription).
import { type Check } from "../../facts/check.ts";

/** The session-only routes with a body each would take (none where the seed shows none). */
const SESSION_ONLY: [string, unknown][] = [
  ["/v1/subscription/resume", undefined],
  ["/v1/subscription/cancel", {}],
  ["/v1/subscription/card-change", undefined],
  ["/v1/subscription/card-change/complete", { payment_id: "conformance-none" }],
];

export const sessionOnly: Check = {
  name: "session-only subscription actions",
  rules: ["W-11"],
  needs: { writes: true },
  async run(c) {
    for (const [path, body] of SESSION_ONLY) {
      const ex = await c.post(path, body, "W-11");
      c.target.deliberate(ex);
      c.refusal(ex, "insufficient_scope", "W-11", `POST ${path} with an API key`);
    }
  },
};
