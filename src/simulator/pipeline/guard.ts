// Guards of the mounts outside the contract: rungs (pipeline/ladder.ts) a request climbs
// before the mount's handler. A tool listening on 127.0.0.1 is still reachable from
// every page its user visits; the HTTP adapter already refuses a Host that is not this
// machine's (DNS rebinding) and keeps CORS closed here, and these rungs refuse what a
// page of another site can still send without asking (a form post, a `no-cors` fetch, an
// image or a script tag).
//
// CONTROL_GUARD, for every route and page under /_sim/ (each of them hands out secrets
// or changes the whole hub):
//   cross-site   403 origin_mismatch: `Sec-Fetch-Site: cross-site`, unless a top-level
//                navigation (a link to the page followed in the browser)
//   origin       403 origin_mismatch: a change (POST, PUT, PATCH, DELETE) with an Origin
//                that is neither the simulator's own nor a loopback origin (`null` included)
//   json body    400 invalid_request: a body that is not JSON, or a POST without
//                `Content-Type: application/json` (with or without a body): the types a
//                page may send across origins unasked are refused
//
// SITE_GUARD, for the site's forms (/site/: sign-in, sign-out, the consent form): a change
// whose Origin the session cookie's allowlist does not admit (the simulator's own address,
// loopback origins, or --session-origins) is refused, so a page of another site cannot
// sign its visitor in as an account of its choosing.
import { changes, isLoopbackOrigin, originOf } from "../domain/origins.ts";
import { refuse } from "../domain/refusal.ts";
import { headerOf, isJsonType, type Ctx } from "./context.ts";
import type { Rung } from "./ladder.ts";

const crossSite: Rung = {
  name: "cross-site",
  check: (ctx) => {
    if (headerOf(ctx, "sec-fetch-site") !== "cross-site") return undefined;
    const navigation = ctx.req.method === "GET" && headerOf(ctx, "sec-fetch-mode") === "navigate" && headerOf(ctx, "sec-fetch-dest") === "document";
    if (navigation) return undefined;
    return refuse("origin_mismatch", { message: "A page of another site may not use the simulator's control interface (Sec-Fetch-Site: cross-site). Call it from a tool (curl, a test, the dev tools), from the simulator's own pages, or through your dev server's proxy." });
  },
};

/**
 * The Origin of a change must pass `allowed`; a change without Origin comes from a tool
 * (browsers send Origin on every POST, PUT, PATCH and DELETE).
 */
function originRung(allowed: (origin: string, ctx: Ctx) => boolean, refused: string): Rung {
  return {
    name: "origin",
    check: (ctx) => {
      if (!changes(ctx.req.method)) return undefined;
      const origin = headerOf(ctx, "origin");
      if (origin === undefined || allowed(origin, ctx)) return undefined;
      return refuse("origin_mismatch", { message: `The Origin ${JSON.stringify(origin.slice(0, 200))} is refused: ${refused}.` });
    },
  };
}

/** The simulator's own origin: the address the request came in on, or --public-url. */
function isOwnOrigin(origin: string, ctx: Ctx): boolean {
  return origin === originOf(ctx.req.baseUrl) || origin === originOf(ctx.baseUrl);
}

const jsonBody: Rung = {
  name: "json body",
  check: (ctx) => {
    const type = headerOf(ctx, "content-type");
    const hasBody = (ctx.req.body?.length ?? 0) > 0;
    if (!hasBody && ctx.req.method !== "POST") return undefined;
    if (type !== undefined && isJsonType(type)) return undefined;
    const message = type === undefined
      ? "a POST to the control interface carries Content-Type: application/json, with or without a body (curl --json '{}' <url>)"
      : `the control interface takes JSON only (Content-Type: application/json), not ${JSON.stringify(type.slice(0, 100))}`;
    return refuse("invalid_request", { details: [{ field: "Content-Type", reason: type === undefined ? "required" : "not_allowed", message }] });
  },
};

/** What every route and page under /_sim/ climbs before its handler (handlers/control/mount.ts). */
export const CONTROL_GUARD: readonly Rung[] = [
  crossSite,
  originRung((origin, ctx) => isOwnOrigin(origin, ctx) || isLoopbackOrigin(origin), "the control interface takes changes from the simulator's own pages, a loopback origin or a tool (no Origin) only"),
  jsonBody,
];

/** What the site's forms under /site/ climb (sign-in, sign-out, the consent form). */
export const SITE_GUARD: readonly Rung[] = [
  originRung((origin, ctx) => ctx.hub.sessions.originAllowed(origin, ctx.baseUrl) || isOwnOrigin(origin, ctx), "the site's forms take posts from the simulator's own pages and the origins the session allowlist admits (loopback ones unless --session-origins says otherwise)"),
];
