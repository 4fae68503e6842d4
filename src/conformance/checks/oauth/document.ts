// A client ID metadata document the caller published (`--oauth-client-document`).
import { authorize, Flow, OAUTH_FACTS } from "../../kit/oauth.ts";
import { SUITE_REDIRECT_URI } from "../../facts/given.ts";
import { errorCodeOf } from "../../target/exchange.ts";
import { type Check } from "../../facts/check.ts";

/**
 * A client ID metadata document the caller published (`--oauth-client-document`): the
 * server reads it at the authorization request (read-only: without a session the answer
 * is a sign-in page, not a refusal) and, with auto-consent declared and writes allowed,
 * the code flow runs with the document's address as `client_id`.
 */
export const oauthDocument: Check = {
  name: "OAuth: a client ID metadata document",
  rules: ["OAUTH-4"],
  needs: { uses: OAUTH_FACTS },
  async run(c) {
    const o = c.settings.options.oauth;
    const url = o?.clientDocument;
    const redirectUri = o?.redirectUri ?? SUITE_REDIRECT_URI;
    if (!url) {
      c.skip(["OAUTH-4"], `no client ID metadata document given (--oauth-client-document URL: an https address where the caller published a document listing ${redirectUri})`);
      return;
    }
    const client = { clientId: url, redirectUri, registered: false };
    if (!o?.autoConsent) {
      const { ex } = await authorize(c, client, "models:read", "OAUTH-4");
      c.expect(ex.status < 400, "OAUTH-4", `an authorization request with the document's address as client_id answered ${ex.status}: the document was not accepted`, ex);
      c.skip(["OAUTH-4"], "the code flow with the document client not run (needs --oauth-auto-consent)");
      return;
    }
    if (!c.settings.writes) {
      c.skip(["OAUTH-4"], "needs --allow-writes (with auto-consent an authorization request is a new consent)");
      return;
    }
    const flow = new Flow(c, client);
    try {
      const t = await flow.exchange(await flow.code("OAUTH-4", {}, "OAUTH-4"), "OAUTH-4");
      if (!t) return;
      const who = await flow.whoami(t, "OAUTH-4");
      c.expect(who.status === 200, "OAUTH-4", `the access token of the document client answered ${who.status} ${errorCodeOf(who.json) ?? ""}`, who);
      c.pass("OAUTH-4", "the document's address worked as client_id through authorization, exchange and /v1");
      c.skip(["OAUTH-4"], "documents the server must refuse not tried: the caller publishes the document");
    } finally {
      await flow.cleanup();
    }
  },
};
