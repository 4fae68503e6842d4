// A refusal for busy slots spends no submit quota (seed, Limits: "a refusal for busy slots
// does not either"). The account's slots are filled with the cheapest body the server
// prices (at most MAX_SUBMITS generations, `--allow-spend`) until a submit is refused with
// `rate_limited` and reason `concurrency`; one more such refusal then leaves the submit
// counter of `limits.submissions` (learnt by the sequence around a submit) as it was, and
// creates nothing. It runs last of the submits, so that no later check meets the full
// slots; on a clock the caller moves, the generations are then let finish.
import { accountState, newGenerations, submitsSpent } from "../../kit/money.ts";
import { windowOf } from "../../target/rate-window.ts";
import { randomToken } from "../../kit/ids.ts";
import { errorCodeOf, type Exchange } from "../../target/exchange.ts";
import { type Check, type CheckContext } from "../../facts/check.ts";
import { FINAL } from "../../kit/streams.ts";

/** The most generations the sequence starts to fill the slots. */
export const MAX_SUBMITS = 10;

const busy = (ex: Exchange) => ex.status === 429 && errorCodeOf(ex.json) === "rate_limited" && Array.isArray(ex.json?.error?.details) && ex.json.error.details.some((d: any) => d?.reason === "concurrency");

export const busySlots: Check = {
  name: "across calls: a refusal for busy slots spends no submit quota",
  rules: ["LIM-5"],
  needs: { spend: true, facts: ["submitCounter", "priced"] },
  // Last of the submits: it fills the account's generation slots.
  when: "last",
  async run(c) {
    c.skip(["LIM-5"], "a rejected request that already required reference processing (it does spend submit quota) not provoked: the seed names no reference a server rejects only after reading it");
    const counter = c.fact("submitCounter");
    const body = c.fact("priced")[0]!.body;
    const submit = () => c.post("/v1/generations", { ...body, prompt: `${String(body.prompt ?? "")} (busy slots, ${randomToken()})` }, "LIM-5", { noRetry: true, headers: { "idempotency-key": `conformance-busy-${randomToken()}` } });
    // Room in the request window for the whole sequence first: a wait for its reset in the
    // middle would let the generations finish and free the slots.
    const window = windowOf((await c.get("/v1/me", "LIM-5")).headers);
    if (window && window.remaining < MAX_SUBMITS + 12 + c.settings.reserve) await c.wait(window.reset + 1);
    const started: string[] = [];
    const elapsed = c.target.elapsedSeconds;
    try {
      let refused: Exchange | undefined;
      while (!refused && started.length < MAX_SUBMITS) {
        const ex = await submit();
        if (ex.status >= 200 && ex.status < 300 && typeof ex.json?.id === "string") started.push(ex.json.id);
        else if (busy(ex)) refused = ex;
        else {
          c.skip(["LIM-5"], `a refusal for busy slots not reached: submit ${started.length + 1} answered ${ex.status} ${errorCodeOf(ex.json) ?? ""}`);
          return;
        }
      }
      if (c.target.elapsedSeconds !== elapsed) {
        c.skip(["LIM-5"], "a refusal for busy slots not held: the suite waited for the request window while it filled the slots");
        return;
      }
      if (!refused) {
        c.skip(["LIM-5"], `a refusal for busy slots not reached in ${MAX_SUBMITS} submits (the account has more slots)`);
        return;
      }
      const before = await accountState(c, "LIM-5", { ledger: false });
      const again = await submit();
      if (!busy(again)) {
        c.skip(["LIM-5"], `a second refusal for busy slots not met (a slot freed: ${again.status}); what it spends not read`);
        if (typeof again.json?.id === "string") started.push(again.json.id);
        return;
      }
      const after = await accountState(c, "LIM-5", { ledger: false });
      const spent = submitsSpent(counter, before, after);
      c.expect(spent.length === 0, "LIM-5", `a refusal for busy slots (429 rate_limited, reason concurrency) spent submit quota: ${spent.join(", ")}`, after.me);
      const made = newGenerations(before, after);
      c.expect(made.length === 0, "LIM-5", `a refusal for busy slots created generation(s): ${made.join(", ")}`, after.generationsAnswer ?? again);
      c.note("LIM-5", `the slots filled after ${started.length} generation(s)`);
    } finally {
      await letFinish(c, started);
    }
  },
};

/** On a clock the caller moves, the generations that filled the slots are let finish (elsewhere they finish on their own). */
async function letFinish(c: CheckContext, ids: string[]): Promise<void> {
  if (!c.clockMoves || ids.length === 0) return;
  for (let waited = 0; waited <= c.settings.settleSeconds; waited += 10) {
    await c.wait(10);
    const ex = await c.post("/v1/generations/status", { ids }, "LIM-5");
    const data: any[] = Array.isArray(ex.json?.data) ? ex.json.data : [];
    if (data.every((r) => FINAL.has(String(r?.status)))) return;
  }
}
