// Broken servers whose one bug lives on some routes and not on the others (a check made on
// one route and not repeated on the rest): each is caught only by a property the suite
// applies to every route, parameter or input (src/conformance/properties/). Spread into
// DOUBLES (doubles.ts); their tests are test/conformance/properties-*.test.ts.
import { matchOperation } from "../../../src/contract/index.ts";
import type { Double } from "./doubles.ts";
import { editJson, pathOnly, type ProxiedRequest, type Rewrite } from "./proxy.ts";

const MAIN = "Bearer ghk_demo_full";

function bearer(req: ProxiedRequest): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(String(req.headers.authorization ?? ""))?.[1];
}

function jsonOf(req: ProxiedRequest): any {
  try {
    return JSON.parse(req.body.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** Requests that `when` picks go upstream as the main key's (the server let them through its credential checks). */
function servedAsMain(when: (req: ProxiedRequest) => boolean, strip?: (req: ProxiedRequest) => ProxiedRequest): Rewrite {
  return {
    request(req) {
      if (!when(req)) return req;
      const r = strip ? strip(req) : req;
      return { ...r, headers: { ...r.headers, authorization: MAIN } };
    },
  };
}

export const ROUTE_DOUBLES: Double[] = [
  {
    rule: "AUTH-7",
    area: "auth ladder",
    found: "default",
    title: "checks a key's expiry on every route but the library's (an expired key reads and writes the library)",
    make: () => servedAsMain((req) => pathOnly(req).startsWith("/v1/library/") && bearer(req) === "ghk_demo_expired"),
  },
  {
    rule: "AUTH-8",
    area: "auth ladder",
    found: "default",
    title: 'refuses an unusable OAuth token on the library routes without error="invalid_token" in WWW-Authenticate',
    make: (): Rewrite => ({
      answer(req, a) {
        const challenge = a.headers["www-authenticate"];
        if (a.status !== 401 || !challenge || !pathOnly(req).startsWith("/v1/library/")) return a;
        return { ...a, headers: { ...a.headers, "www-authenticate": challenge.replace(/,?\s*error="invalid_token"/, "") } };
      },
    }),
  },
  {
    rule: "AUTH-7",
    // The catalog's answer served at /v1/models/ (not a route) keeps the catalog's Cache-Control.
    also: ["W-13"],
    area: "auth ladder",
    found: "default",
    title: "compares the raw path with the routes it guards: a trailing slash is served without a credential (the router ignores it)",
    make: () =>
      servedAsMain(
        (req) => req.headers.authorization === undefined && pathOnly(req).startsWith("/v1/") && pathOnly(req).endsWith("/"),
        (req) => ({ ...req, path: req.path.replace(/\/(?=\?|$)/, "") }),
      ),
  },
  {
    rule: "AUTH-4",
    area: "auth ladder",
    found: "default",
    title: "takes the key from ?api_key= on every route but GET /v1/whoami",
    make: (): Rewrite => ({
      request(req) {
        const url = new URL(req.path, "http://x");
        const key = url.searchParams.get("api_key");
        if (req.headers.authorization !== undefined || !key || url.pathname === "/v1/whoami") return req;
        url.searchParams.delete("api_key");
        return { ...req, path: url.pathname + url.search, headers: { ...req.headers, authorization: `Bearer ${key}` } };
      },
    }),
  },
  {
    rule: "SUB-V",
    area: "generated inputs",
    found: "default",
    title: "refuses a video duration at its maximum (30) as out_of_range: its bound is off by one",
    make: (): Rewrite => ({
      answer(req, a) {
        const body = req.method === "POST" && pathOnly(req) === "/v1/pricing/estimate" ? jsonOf(req) : undefined;
        if (body?.type !== "video" || body.duration !== 30) return a;
        return editJson({ ...a, status: 400 }, (b) => ({ error: { code: "invalid_request", message: "Parameters not valid; see `details`.", user_message: "Parameters not valid; see `details`.", request_id: b?.error?.request_id ?? req.headers["x-request-id"], details: [{ field: "duration", reason: "out_of_range", message: "duration must be 2..29" }] } }));
      },
    }),
  },
  {
    rule: "PRICE-7",
    area: "generated inputs",
    found: "default",
    title: "does not check the length of audio_urls items (a 2049-character reference is priced)",
    make: (): Rewrite => ({
      request(req) {
        const body = req.method === "POST" && pathOnly(req) === "/v1/pricing/estimate" ? jsonOf(req) : undefined;
        if (!Array.isArray(body?.audio_urls) || !body.audio_urls.some((u: unknown) => typeof u === "string" && u.length > 2048)) return req;
        const { audio_urls: _dropped, ...rest } = body;
        return { ...req, body: Buffer.from(JSON.stringify(rest)) };
      },
    }),
  },
  {
    rule: "W-5",
    also: ["EP-1"],
    area: "envelope",
    found: "default",
    title: "answers a method a path does not take with the framework's HTML 405 page",
    make: (): Rewrite => ({
      answer(req, a) {
        const path = pathOnly(req);
        if (a.status !== 404 || !path.startsWith("/v1/") || matchOperation(req.method, path)) return a;
        const other = ["GET", "POST", "PUT", "PATCH", "DELETE"].some((m) => matchOperation(m, path));
        if (!other) return a;
        return { status: 405, headers: { ...a.headers, "content-type": "text/html; charset=utf-8" }, body: `<html><body><h1>405 Method Not Allowed</h1><p>${req.method} ${path}</p></body></html>` };
      },
    }),
  },
  {
    rule: "ENV-6",
    area: "envelope",
    found: "default",
    title: "answers a body that is not JSON with the JSON parser's message, on every route but the price estimate",
    make: (): Rewrite => ({
      answer(req, a) {
        if (a.status !== 400 || req.body.length === 0 || pathOnly(req) === "/v1/pricing/estimate" || jsonOf(req) !== undefined) return a;
        if (!/json/.test(String(req.headers["content-type"] ?? ""))) return a;
        return editJson(a, (b) => ({ error: { ...b.error, message: "Unexpected end of JSON input", user_message: "Unexpected end of JSON input", details: undefined } }));
      },
    }),
  },
  {
    rule: "EP-3",
    area: "headers",
    found: "default",
    with: ["GEN-9"],
    title: "drops RateLimit and RateLimit-Policy from its 404 answers",
    make: (): Rewrite => ({
      answer(_req, a) {
        if (a.status !== 404) return a;
        const { ratelimit: _r, "ratelimit-policy": _p, ...headers } = a.headers;
        return { ...a, headers };
      },
    }),
  },
];
