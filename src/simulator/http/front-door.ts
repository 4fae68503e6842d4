// The front door: what a request meets in the HTTP server before a hub's pipeline
// (pipeline/dispatch.ts), in order, each a named step that lets the request on, refuses it
// in the API's envelope (the journal of the hub it reached records it under the step's
// name) or answers it itself. The same shape as the refusal ladder's rungs
// (pipeline/ladder.ts) and the mounts' guards (pipeline/guard.ts).
//
//   host header      400 invalid_request: an HTTP/1.1 request without Host (RFC 9112)
//   host allow-list  403 origin_mismatch: a Host that is not this machine's (DNS rebinding)
//   sandbox          which hub answers (sandboxes.ts): the default one, or a sandbox named
//                    by its key, base path, header or cookie; 401/404/410 when the
//                    sandbox named is not there or the key is another sandbox's
//   control off      404 not_found: /_sim/ on a --host other than loopback without --expose-control
//   cors             a preflight: 204 where --cors opens the route to the origin, else 404 saying why
//   docs             /docs/: the reference site's files (and a page while it is first built)
//
// Steps read a `Door`, one object the server reuses from request to request: the default
// hub's requests pass every step without an allocation of the front door's.
import type { IncomingMessage } from "node:http";
import { refuse, type Refusal } from "../domain/refusal.ts";
import type { Hub } from "../hub.ts";
import type { BodyAnswer } from "../pipeline/exchange.ts";
import type { AdapterCheck } from "../pipeline/journal.ts";
import { isRouteRefused, SANDBOX_HEADER, type Sandboxes } from "../sandboxes.ts";
import { corsOpens } from "./cors.ts";
import { docsFile, docsHeaders } from "./docs.ts";
import { hostnameOf } from "./hosts.ts";

/** One request at the front door. */
export interface Door {
  request: IncomingMessage;
  /** The URL's path without its query; once the sandbox step routed it by a base path, the path after it. */
  path: string;
  /** The hub that answers: the default one, until the sandbox step routes the request elsewhere. */
  hub: Hub;
  /** The path and query the hub sees when the request came by a sandbox's base path; undefined: the raw URL. */
  url: string | undefined;
  /** That base path (`/sandboxes/sbx_…`), else undefined. */
  basePath: string | undefined;
}

/** What stops a request at a step: a refusal in the envelope, or the server's own answer (a preflight, a docs file). */
export type Stop = Refusal | BodyAnswer;

export interface FrontStep {
  readonly name: AdapterCheck;
  readonly check: (door: Door) => Stop | undefined;
}

export interface FrontDoorOptions {
  /** Whether a Host is one of this machine's names (http/hosts.ts). */
  allowsHost: (host: string) => boolean;
  /** Why /_sim/ is off, when it is. */
  controlOff: string | undefined;
  cors: boolean | readonly string[];
  docsDir: string | undefined;
  docsBuilding: (() => boolean) | undefined;
}

/** The request headers a --cors preflight allows: the API's, and the sandbox routing header. */
export const ALLOWED_HEADERS = "Authorization, Content-Type, Idempotency-Key, X-Request-Id, Last-Event-ID, Accept-Language, If-None-Match, Hub-Sandbox";

/** Whether --cors opens `path` to `origin`. */
export function corsAllows(option: FrontDoorOptions["cors"], origin: string | undefined, path: string): origin is string {
  if (!origin || option === false || !corsOpens(path)) return false;
  return option === true || option.includes(origin);
}

/** The steps of a server, in order. */
export function frontDoor(options: FrontDoorOptions, sandboxes: Sandboxes): readonly FrontStep[] {
  return [
    {
      name: "host header",
      check: ({ request }) =>
        request.headers.host === undefined && request.httpVersion === "1.1"
          ? refuse("invalid_request", { message: "An HTTP/1.1 request must carry a Host header.", details: [{ field: "Host", reason: "required", message: "Host is required" }] })
          : undefined,
    },
    {
      name: "host allow-list",
      check: ({ request }) => {
        const host = request.headers.host;
        return host !== undefined && !options.allowsHost(host) ? refuse("origin_mismatch", { message: hostRefused(host) }) : undefined;
      },
    },
    {
      name: "sandbox",
      check: (door) => {
        const headers = door.request.headers;
        const route = sandboxes.route(door.path, door.request.url ?? "/", headers.authorization, headers[SANDBOX_HEADER], headers.cookie);
        if (route === undefined) return undefined;
        door.hub = route.hub;
        if (isRouteRefused(route)) return route.refusal;
        if (route.url !== undefined) {
          door.url = route.url;
          door.basePath = route.basePath;
          const q = route.url.indexOf("?");
          door.path = q < 0 ? route.url : route.url.slice(0, q);
        }
        return undefined;
      },
    },
    {
      name: "control off",
      check: ({ path }) => (options.controlOff !== undefined && (path === "/_sim" || path.startsWith("/_sim/")) ? refuse("not_found", { message: options.controlOff }) : undefined),
    },
    {
      name: "cors",
      check: ({ request, path }) => {
        const origin = request.headers.origin;
        if (request.method !== "OPTIONS" || origin === undefined || request.headers["access-control-request-method"] === undefined) return undefined;
        // Closed as on the real hub; the answer (visible in the browser's network panel) says why and what to do.
        if (!corsAllows(options.cors, origin, path)) return refuse("not_found", { message: closedCors(origin, path) });
        return {
          kind: "body",
          status: 204,
          headers: {
            "access-control-allow-origin": origin,
            "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE",
            "access-control-allow-headers": ALLOWED_HEADERS,
            "access-control-max-age": "600",
            vary: "Origin",
          },
        };
      },
    },
    {
      name: "docs",
      check: ({ request, path, basePath }): Stop | undefined => {
        const docsDir = options.docsDir;
        if (!docsDir || !path.startsWith("/docs") || (request.method !== "GET" && request.method !== "HEAD")) return undefined;
        const file = path === "/docs" || path.startsWith("/docs/") ? docsFile(docsDir, path) : undefined;
        if (file) {
          if (path === "/docs") return { kind: "body", status: 301, headers: { location: `${basePath ?? ""}/docs/` } };
          return { kind: "body", status: 200, headers: docsHeaders(path, file), body: file.bytes };
        }
        if (options.docsBuilding?.()) {
          return {
            kind: "body",
            status: 503,
            headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "retry-after": "1", "x-content-type-options": "nosniff", "content-security-policy": "default-src 'none'; frame-ancestors 'none'" },
            body: DOCS_BUILDING_PAGE,
          };
        }
        return undefined;
      },
    },
  ];
}

/** What /docs answers while the site is first built (a few seconds on a fresh install). */
const DOCS_BUILDING_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="1"><title>Building the reference docs</title></head>
<body style="font-family: system-ui, sans-serif; margin: 3rem">
<h1>Building the reference docs</h1>
<p>The simulator is building the docs from the contract. This page reloads itself when they are ready; the API under <code>/v1</code> already answers.</p>
</body></html>
`;

/** Why a Host is refused, and the flag that allows it. */
function hostRefused(host: string): string {
  const name = hostnameOf(host) ?? host;
  return `The Host ${JSON.stringify(host.slice(0, 200))} is not a name of this simulator: a page of another site may have pointed its own name at this machine (DNS rebinding), so only loopback names (localhost, *.localhost), IP addresses and the names it was given are answered. To reach it by this name, start it with --allowed-hosts ${JSON.stringify(name.slice(0, 200))} (or SIM_ALLOWED_HOSTS).`;
}

/** Why a preflight is refused, and what to do instead. */
function closedCors(origin: string, path: string): string {
  const shown = JSON.stringify(origin.slice(0, 200));
  if (!corsOpens(path)) {
    return `No cross-origin access to ${path.slice(0, 200)} for ${origin.slice(0, 200)}: CORS never opens here (the control interface /_sim/, the site's pages and forms, /oauth/authorize and the docs are for the simulator's own pages and tools). --cors opens /v1, the storage upload PUT and the OAuth routes a browser app calls.`;
  }
  return `No cross-origin access for ${origin.slice(0, 200)}: browsers cannot send API keys or tokens to /v1 (CORS for Authorization is closed, as on the real hub). Call the API through your dev server's proxy, or start the simulator with --cors ${shown} for local work.`;
}
