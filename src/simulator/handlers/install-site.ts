// Part 2 of the simulator, site side: the session cookie (/site/ sign-in, the Origin
// allowlist, its one account-owned window), the four session-only subscription actions
// and the OAuth 2.1 authorization server, with their control routes under /_sim/.
import { controlRoute } from "./control/body.ts";
import type { Hub, Mount } from "../hub.ts";
import { installOAuth, type OAuthOptions } from "../domain/oauth/index.ts";
import { SessionSide, type SessionOptions } from "../domain/sessions.ts";
import { subscriptionControl, subscriptionHandlers } from "../domain/subscription-actions.ts";

export interface SiteOptions {
  session?: SessionOptions;
  oauth?: OAuthOptions;
}

/** Called once by the Hub, with its options. */
export function installSite(hub: Hub, options: SiteOptions = {}): { sessions: SessionSide } {
  const sessions = new SessionSide(hub, options.session);
  hub.resolvers.push(sessions.resolver());
  hub.use(subscriptionHandlers);
  const oauth = installOAuth(hub, options.oauth, sessions);
  // /site/oauth/ (the consent form) ahead of /site/ (sign-in and out).
  const mounts: Mount[] = [oauth.consentMount, { prefix: "/site/", handle: (ctx) => sessions.site(ctx) }];
  for (const m of mounts) hub.mount(m);
  hub.controlRoutes.push(
    controlRoute((ctx, parts, body) => sessions.control(ctx, parts, body)),
    controlRoute(subscriptionControl),
    controlRoute(oauth.control),
  );
  return { sessions };
}
