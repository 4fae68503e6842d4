// The rate windows seen over the whole run: only `default` (per key) and `account`, of
// equal length.
import { type Check } from "../../facts/check.ts";

export const windows: Check = {
  name: "rate windows over the run",
  rules: ["LIM-1"],
  when: "over the run",
  async run(c) {
    const seen = [...c.seen.policies];
    if (seen.length === 0) {
      c.skip(["LIM-1"], "no RateLimit pair seen");
      return;
    }
    const odd = seen.filter((p) => p !== "default" && p !== "account");
    c.expect(odd.length === 0, "LIM-1", `windows named ${odd.join(", ")}; the seed names default (per key) and account`);
    const d = c.seen.windowLengths.get("default");
    const a = c.seen.windowLengths.get("account");
    if (d !== undefined && a !== undefined) c.expect(d === a, "LIM-1", `the default window lasts ${d} s and the account window ${a} s; they are of equal length`);
    else c.skip(["LIM-1"], `only the ${seen.join(", ")} window was binding in this run: the two windows were not compared`);
  },
};
