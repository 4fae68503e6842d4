// Who the key is (a refused key stops the run), and what the run learns first of the
// account: the catalog, its generations, a second account when a key of one is given.
import { scopes } from "../../../contract/index.ts";
import type { Check } from "../../facts/check.ts";
import type { FactName } from "../../facts/learnt.ts";
import { errorCodeOf, said, type Exchange } from "../../target/exchange.ts";
import { KeyRefused } from "../../target/stops.ts";
import { type CheckContext } from "../../facts/check.ts";

/** A read the run learns a fact from: not offered now (503 service_unavailable) is no fault; any other answer but a 200 list is. */
function learnList(c: CheckContext, fact: "models" | "ownGenerations", rule: string, ex: Exchange): void {
  if (ex.status === 200 && Array.isArray(ex.json?.data)) c.learn(fact, ex.json.data);
  else if (ex.status === 503 && errorCodeOf(ex.json) === "service_unavailable") c.notLearnt(fact, `${ex.method} ${ex.path} answered 503 service_unavailable (not offered by this server now)`);
  else c.cannotLearn(fact as FactName, rule, `${ex.method} ${ex.path} answered ${said(ex)}${ex.status === 200 ? " without a data list" : ""}`, ex);
}

export const discovery: Check = {
  name: "who the key is",
  rules: ["AUTH-1", "ACC-2", "AUTH-5", "ACC-1", "LIM-6"],
  needs: { stateful: false },
  provides: ["whoami", "models", "ownGenerations", "secondAccount"],
  when: "first",
  always: true,
  async run(c) {
    const who = await c.get("/v1/whoami", "ACC-2");
    const code = errorCodeOf(who.json);
    if ((who.status === 401 || who.status === 403) && code !== undefined) {
      c.fail("AUTH-1", `the API key was refused: ${who.status} ${code}`, who);
      throw new KeyRefused(`GET /v1/whoami answered ${who.status} ${code}: the API key is not usable, nothing else can be checked`);
    }
    // Anything else (a route the server does not have, a crash) says nothing about the
    // key: the answer's own faults are charged where it was observed, and the run goes on.
    if (who.status === 200) {
      c.pass("AUTH-1");
      c.learn("whoami", who.json);
    } else {
      c.skip(["AUTH-1", "AUTH-5"], `GET /v1/whoami answered ${said(who)}: who the key is was not learnt`);
      if (who.status === 503 && code === "service_unavailable") c.notLearnt("whoami", "GET /v1/whoami answered 503 service_unavailable (not offered by this server now)");
      else c.cannotLearn("whoami", "ACC-2", `GET /v1/whoami answered ${said(who)} for the main key`, who);
    }
    if (who.status === 200 && !c.settings.staticMock) {
      c.expect(who.json?.channel !== "oauth", "ACC-2", `an API key resolved to channel ${JSON.stringify(who.json?.channel)}; \`oauth\` is for OAuth tokens`, who);
      const held: unknown[] = Array.isArray(who.json?.scopes) ? who.json.scopes : [];
      const unknown = held.filter((s) => !scopes.includes(String(s)));
      c.expect(unknown.length === 0, "AUTH-5", `scopes outside the vocabulary: ${unknown.join(", ")}`, who);
    }

    const me = await c.get("/v1/me", "ACC-1");
    if (me.status === 200) {
      const limits = me.json?.limits;
      c.expect(Boolean(limits && typeof limits === "object" && "submissions" in limits && "concurrency" in limits), "LIM-6", "GET /v1/me has no limits.submissions and limits.concurrency to read the quotas from", me);
    }

    learnList(c, "models", "CAT-1", await c.get("/v1/models", "CAT-1"));
    learnList(c, "ownGenerations", "GEN-1", await c.get("/v1/generations?limit=100", "GEN-1"));

    const otherKey = c.otherKey;
    if (!otherKey) c.notLearnt("secondAccount", "no second account's key given (--other-api-key)");
    else if (c.settings.staticMock) c.notLearnt("secondAccount", "the target is a static mock (--static-mock)");
    else {
      const whoOther = await c.get("/v1/whoami", "ACC-2", { key: otherKey });
      if (whoOther.status === 200 && whoOther.json?.user_id !== undefined && whoOther.json.user_id !== who.json?.user_id) {
        const list = await c.get("/v1/generations?limit=100", "GEN-1", { key: otherKey });
        c.learn("secondAccount", { key: otherKey, generations: list.status === 200 && Array.isArray(list.json?.data) ? list.json.data : [] });
      } else {
        // The key given may not be what it was meant to be: no fault of the server's.
        const why = `the other key is not usable as a second account (whoami ${whoOther.status}, user ${JSON.stringify(whoOther.json?.user_id)})`;
        c.log(`  ${why}`);
        c.notLearnt("secondAccount", why);
      }
    }
  },
};

