// The title changes spend no credits (seed: "PATCH /v1/generations/{id} and PATCH
// /v1/library/assets/{id}: Change the title. They spend no credits."). Their bodies are
// not shown, so the suite sends an empty JSON object, which names no field it would have
// to invent; where the server takes it (2xx), the balance and the ledger are as they were.
// The objects are the run's own: a generation it submitted, the file it uploaded.
import { moneyOf, sameMoney } from "../../kit/money.ts";
import { errorCodeOf, type Exchange } from "../../target/exchange.ts";
import { type Check } from "../../facts/check.ts";

export const titleChanges: Check = {
  name: "across calls: the title changes move no money",
  rules: ["GEN-10"],
  needs: { writes: true, uses: ["created", "uploads"] },
  async run(c) {
    // The first generation the spending checks made (a moderation report revokes the second).
    const generation = c.known("created")[0]?.id;
    const asset = c.known("uploads").find((u) => u.assetId)?.assetId;
    const paths = [...(generation ? [`/v1/generations/${encodeURIComponent(String(generation))}`] : []), ...(asset ? [`/v1/library/assets/${encodeURIComponent(asset)}`] : [])];
    if (paths.length === 0) {
      c.skip(["GEN-10"], "no generation or file of the run's own to change the title of (--allow-spend, --allow-writes)");
      return;
    }
    const before = await moneyOf(c, "GEN-10");
    const answers: Exchange[] = [];
    for (const path of paths) answers.push(await c.request({ method: "PATCH", path, json: {}, rule: "GEN-10" }));
    const taken = answers.filter((ex) => ex.status >= 200 && ex.status < 300);
    if (taken.length === 0) {
      c.skip(["GEN-10"], `the title changes refused an empty body (${answers.map((ex) => `${ex.status} ${errorCodeOf(ex.json) ?? ""}`.trim()).join(", ")}): the title's field is not shown, so no other body was tried`);
      return;
    }
    sameMoney(c, "GEN-10", before, await moneyOf(c, "GEN-10"), `${taken.length} title change(s) (an empty body)`, taken[0]);
  },
};
