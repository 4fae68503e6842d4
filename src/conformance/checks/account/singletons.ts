// Singleton reads answer what is there (never 404): the live subscription, the folder list
// (all at once, never paged).
import { type Check } from "../../facts/check.ts";

export const singletons: Check = {
  name: "singleton reads and the folder list",
  rules: ["W-7", "BILL-3", "PAGE-6"],
  async run(c) {
    const sub = await c.get("/v1/billing/subscription", "BILL-3");
    if (!c.unavailable(sub, ["W-7", "BILL-3", "BILL-2"])) {
      c.expect(sub.status === 200, "W-7", `the live subscription answered ${sub.status}; no subscription is null, not 404`, sub);
      if (sub.status === 200) c.pass("BILL-3");
    }
    const folders = await c.get("/v1/library/folders", "PAGE-6");
    if (!c.unavailable(folders, ["PAGE-6", "LIB-2"]) && folders.status === 200) {
      c.expect(folders.json?.next_cursor === null, "PAGE-6", `next_cursor is ${JSON.stringify(folders.json?.next_cursor)}; all folders come at once`, folders);
    }
  },
};
