// What the run made go is gone from every route that could show it (the default run's
// use-after-free): the generation a moderation report revoked (reports), the folder the
// library check deleted, and, where the caller can cancel or delete generations
// (`control`), those. Every route that takes the id answers 404 `not_found` (a batch
// read leaves it out), and the list of its kind no longer holds it.
import { sweepGone } from "../../kit/gone.ts";
import { type Check } from "../../facts/check.ts";

export const GONE_RULES = ["REP-3", "LIB-5"];

export const goneSweep: Check = {
  name: "across calls: what was revoked or deleted is gone from every route",
  rules: GONE_RULES,
  needs: { writes: true, uses: ["gone"] },
  async run(c) {
    const gone = c.known("gone");
    if (!gone.some((g) => g.kind === "generations")) c.skip(["REP-3"], "no generation was revoked in this run (a moderation report on one it created needs --allow-spend): its routes not swept");
    if (!gone.some((g) => g.kind === "library/folders")) c.skip(["LIB-5"], "no folder of the run was deleted: its routes not swept");
    for (const g of gone) await sweepGone(c, g);
  },
};
