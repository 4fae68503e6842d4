// An access token lives `expires_in` seconds (the token reply's, OAUTH-14): after them it
// is an expired token, refused like an unknown one, 401 `invalid_token` with its challenge
// (AUTH-7, AUTH-8). The token comes from a new consent (auto-consent declared, writes
// allowed); its lifetime passes on a clock the caller moves, or within --max-wait, else
// the rule is n/a. The grant is revoked afterwards.
import { consentFlow, OAUTH_FACTS } from "../../kit/oauth.ts";
import { type Check } from "../../facts/check.ts";

export const tokenExpiry: Check = {
  name: "OAuth: an access token expires after its expires_in",
  rules: ["AUTH-7"],
  when: "after time passes",
  needs: { writes: true, uses: OAUTH_FACTS },
  async run(c) {
    const flow = consentFlow(c);
    if (!flow) {
      c.skip(["AUTH-7"], "an access token's expiry not tried: no token to let expire (needs --oauth-auto-consent and --allow-writes)");
      return;
    }
    try {
      const t = await flow.exchange(await flow.code("OAUTH-10"), "OAUTH-12");
      if (!t || !(t.expiresIn > 0)) {
        c.skip(["AUTH-7"], `an access token's expiry not tried: ${t ? `its expires_in is ${JSON.stringify(t.expiresIn)}` : "the code flow gave no token"} (OAUTH-14 judges the reply)`);
        return;
      }
      // Only what the time changes is judged: a token refused already is the flow's finding.
      const before = await flow.whoami(t, "AUTH-7");
      if (before.status !== 200) {
        c.skip(["AUTH-7"], `an access token's expiry not tried: the fresh token was refused already (GET /v1/whoami answered ${before.status})`);
        return;
      }
      if (!(await c.passTime(t.expiresIn + 1, ["AUTH-7"], `an access token's ${t.expiresIn} s (expires_in)`))) return;
      await flow.refused(t, "AUTH-7", `GET /v1/whoami with an access token ${t.expiresIn + 1} s after its token reply (expires_in ${t.expiresIn}): an expired token`);
    } finally {
      await flow.cleanup();
    }
  },
};
