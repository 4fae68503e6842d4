// The support thread reads whole (never paged), an empty one as an empty list, not 404.
import { type Check, type CheckContext } from "../../facts/check.ts";

export const supportThread: Check = {
  name: "support thread (reading marks it read)",
  rules: ["W-7", "SUP-2", "SUP-1"],
  needs: { writes: true },
  async run(c: CheckContext) {
    const ex = await c.get("/v1/support/messages", "SUP-2");
    if (c.unavailable(ex, ["W-7", "SUP-2", "SUP-1"])) return;
    c.expect(ex.status === 200 && Array.isArray(ex.json?.data), "W-7", `the support thread answered ${ex.status}; an empty thread is an empty list, not 404`, ex);
    if (ex.status === 200) c.expect(ex.json?.next_cursor === null, "SUP-2", `next_cursor is ${JSON.stringify(ex.json?.next_cursor)}; the thread is read whole`, ex);
  },
};
