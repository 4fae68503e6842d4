// Every route of the summary table exists (no 404 or 405 where no object is addressed),
// and refuses a request without a credential where it needs one.
import { operations } from "../../../contract/index.ts";
import { notRouted } from "../../judge/broken-rule.ts";
import { checkChallenge } from "../../kit/challenge.ts";
import { concrete } from "../../kit/ids.ts";
import { errorCodeOf } from "../../target/exchange.ts";
import { type Check } from "../../facts/check.ts";

export const routes: Check = {
  name: "every route of the summary table",
  rules: ["EP-4", "AUTH-7", "AUTH-8"],
  needs: { stateful: false },
  async run(c) {
    const missing: string[] = [];
    for (const op of operations()) {
      const path = concrete(op.path);
      const method = op.method.toUpperCase();
      const credentialed = op.schemes.length > 0;
      // A static mock answers an invalid request (an OAuth form without its fields) with a
      // status of its own, not the document's: only credentialed routes are asked there.
      if (c.settings.staticMock && !credentialed && method !== "GET") continue;
      const ex = await c.request({ method, path, key: null, rule: "EP-4", ...(method === "GET" || method === "DELETE" ? {} : { raw: "", headers: {} }) });
      c.target.deliberate(ex);
      const code = errorCodeOf(ex.json);
      if (ex.status === 404 || ex.status === 405) {
        missing.push(`${method} ${op.path}`);
        c.fail("EP-4", notRouted(op, ex), ex);
        continue;
      }
      if (ex.status === 503 && code === "service_unavailable") {
        c.skip(["EP-4"], `some routes answered 503 service_unavailable (not offered by this server now)`);
        continue;
      }
      if (credentialed && !c.settings.staticMock) {
        c.refusal(ex, "unauthorized", "AUTH-7", `${method} ${op.path} without a credential`);
      }
      if (ex.status === 401) checkChallenge(c, ex, false);
    }
    if (missing.length === 0) c.pass("EP-4");
  },
};
