// What one request costs of the request window, read from the `RateLimit` pair of the
// account reads around it (reads only: every run). Between two reads of `GET /v1/me`
// with the main key, the window goes down by exactly the requests sent: an event stream
// opened (seed, Events: "Each open or reconnect costs one request of the shared request
// window"), a batch status read ("Every status-check HTTP request also spends request
// quota"), a price estimate ("spends one request of the shared request window"), and
// nothing for a request of another key of the account (`default` is one window per key;
// "two keys of one account do not share it").
import { spentBetween } from "../../kit/window.ts";
import { windowOf } from "../../target/rate-window.ts";
import { fakeIds } from "../../kit/ids.ts";
import { type Exchange } from "../../target/exchange.ts";
import { type Check, type CheckContext } from "../../facts/check.ts";

const RULES = ["EVT-12", "LIM-6", "PRICE-4", "LIM-1"];

export const requestCosts: Check = {
  name: "across calls: what a stream opening, a status read, an estimate and another key's request cost of the window",
  rules: RULES,
  needs: { uses: ["ownGenerations", "priced", "whoami"] },
  async run(c) {
    let before = await c.get("/v1/me", "LIM-6");
    const step = async (rule: string, what: string, send: () => Promise<unknown>, own: number) => {
      await send();
      const after = await c.get("/v1/me", rule);
      costs(c, rule, before, after, own + 1, what);
      before = after;
    };
    await step("EVT-12", "an event stream opened and closed", async () => (await c.target.openStream({ rule: "EVT-12" }, {})).stream?.close(), 1);
    const id = (c.known("ownGenerations") ?? []).find((g) => typeof g.id === "string")?.id ?? fakeIds(1)[0];
    await step("LIM-6", "a batch status read", () => c.post("/v1/generations/status", { ids: [id] }, "LIM-6"), 1);
    const priced = c.known("priced")?.[0]?.body;
    if (priced) await step("PRICE-4", "a price estimate", () => c.post("/v1/pricing/estimate", priced, "PRICE-4"), 1);
    else c.skip(["PRICE-4"], "no body the server prices: what an estimate costs of the window not read");
    await otherKey(c, (what, send) => step("LIM-1", what, send, 0));
  },
};

/** A request of another key of the main account (whoami says whose it is) costs the main key's `default` window nothing. */
async function otherKey(c: CheckContext, step: (what: string, send: () => Promise<unknown>) => Promise<void>): Promise<void> {
  const key = c.role("read-only") ?? c.settings.options.scopedKeys?.[0];
  const mine = c.known("whoami")?.user_id;
  if (!key || mine === undefined) {
    c.skip(["LIM-1"], "no second key of the main account (--key read-only=..., --scoped-key): the per-key window not compared");
    return;
  }
  let same = false;
  await step("a request of another key of the same account", async () => {
    const who = await c.get("/v1/whoami", "LIM-1", { key });
    same = who.status === 200 && who.json?.user_id === mine;
  });
  if (!same) c.note("LIM-1", "the second key given is not the main account's (whoami): its request was not held to the main key's window");
}

/** Between two reads of the main key's window, it went down by `expected` (the requests sent, the second read included). */
function costs(c: CheckContext, rule: string, before: Exchange, after: Exchange, expected: number, what: string): void {
  const spent = spentBetween(before, after);
  if (spent === undefined) {
    c.note(rule, `what ${what} costs of the window not read: the two reads around it describe another window (a reset or another policy in between)`);
    return;
  }
  // A window that does not count down at all is LIM-3's finding (its countdown), not a cost.
  if (spent === 0) return;
  const policy = windowOf(after.headers)!.policy;
  if (rule === "LIM-1" && policy === "account") {
    c.note(rule, `what ${what} costs the main key's own window not read: the account window was the binding one`);
    return;
  }
  c.expect(spent === expected, rule, `the ${policy} window went down by ${spent} between two reads of GET /v1/me with ${what} between them; ${expected} request(s) were sent (the second read included)`, after);
}
