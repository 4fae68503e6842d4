// Who the key is, every route of the summary table, the refusal ladder, where a key is
// accepted, and the envelope's request id and languages.
import { operations, scopes } from "../../../contract/index.ts";
import { notRouted } from "../../judge/broken-rule.ts";
import { type Check, type CheckContext } from "../../facts/context.ts";
import { KEY_ROLES, type KeyRole } from "../../facts/given.ts";
import { KeyRefused } from "../../target/stops.ts";
import { randomToken, unknownKeyLike } from "../../kit/ids.ts";
import { errorCodeOf } from "../../target/exchange.ts";


export const discovery: Check = {
  name: "who the key is",
  rules: ["AUTH-1", "ACC-2", "AUTH-5", "ACC-1", "LIM-6"],
  needs: { stateful: false },
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
      c.shared.whoami = who.json;
    } else c.skip(["AUTH-1", "ACC-2", "AUTH-5"], `GET /v1/whoami answered ${who.status}${code ? ` ${code}` : ""}: who the key is was not learnt`);
    if (who.status === 200 && !c.settings.staticMock) {
      c.expect(who.json?.channel !== "oauth", "ACC-2", `an API key resolved to channel ${JSON.stringify(who.json?.channel)}; \`oauth\` is for OAuth tokens`, who);
      const held: unknown[] = Array.isArray(who.json?.scopes) ? who.json.scopes : [];
      const unknown = held.filter((s) => !scopes.includes(String(s)));
      c.expect(unknown.length === 0, "AUTH-5", `scopes outside the vocabulary: ${unknown.join(", ")}`, who);
    }

    const me = await c.get("/v1/me", "ACC-1");
    if (me.status === 200) {
      c.shared.me = me.json;
      const limits = me.json?.limits;
      c.expect(Boolean(limits && typeof limits === "object" && "submissions" in limits && "concurrency" in limits), "LIM-6", "GET /v1/me has no limits.submissions and limits.concurrency to read the quotas from", me);
    }

    const models = await c.get("/v1/models", "CAT-1");
    if (models.status === 200 && Array.isArray(models.json?.data)) c.shared.models = models.json.data;

    const own = await c.get("/v1/generations?limit=100", "GEN-1");
    if (own.status === 200 && Array.isArray(own.json?.data)) c.shared.own = own.json.data;

    const otherKey = c.otherKey;
    if (otherKey && !c.settings.staticMock) {
      const whoOther = await c.get("/v1/whoami", "ACC-2", { key: otherKey });
      if (whoOther.status === 200 && whoOther.json?.user_id !== undefined && whoOther.json.user_id !== who.json?.user_id) {
        c.shared.otherIsOtherAccount = true;
        const list = await c.get("/v1/generations?limit=100", "GEN-1", { key: otherKey });
        if (list.status === 200 && Array.isArray(list.json?.data)) c.shared.other = list.json.data;
      } else {
        c.log(`  the other key is not usable as a second account (whoami ${whoOther.status}, user ${JSON.stringify(whoOther.json?.user_id)})`);
      }
    }
  },
};

