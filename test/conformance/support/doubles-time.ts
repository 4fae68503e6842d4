// Broken servers whose bug shows only once time has passed: each answer is right while
// the run is young, and only a check that lets time pass (the server's clock moved, as the
// simulator's control allows; else a wait within --max-wait) meets the fault. Each is the
// simulator behind the rewriting proxy, found by one check of the rules that take time and
// by no other check. doubles.ts spreads them into DOUBLES.
import type { RunningSimulator } from "../../../src/simulator/index.ts";
import type { Double } from "./doubles.ts";
import { pathOnly, type Rewrite } from "./proxy.ts";

/** A `reset` frame for a cursor whose history expired says `cursor_unknown` (the server forgot it issued it). */
function expiredAsUnknown(): Rewrite {
  return {
    stream(_req, chunk) {
      return chunk.replace(/"reason":"cursor_expired"/g, '"reason":"cursor_unknown"');
    },
  };
}

/**
 * An uploaded file's content answers 404 once the ticket it was written through has
 * expired (the server ties the file's life to the signature's): the read is sent on as a
 * read of an asset nobody has, so the simulator's own 404 answers it.
 */
function fileDiesWithSignature(sim: RunningSimulator): Rewrite {
  return {
    request(req) {
      const m = /^\/v1\/library\/assets\/([^/]+)\/content$/.exec(pathOnly(req));
      if (req.method !== "GET" || !m) return req;
      const library = sim.hub.state.library;
      const asset = library.assets.get(decodeURIComponent(m[1]!));
      const ticket = asset ? library.tickets.get(asset.reference) : undefined;
      if (!ticket || ticket.expires_at > sim.hub.clock.now()) return req;
      return { ...req, path: "/v1/library/assets/ast_conformance_expired_with_its_ticket/content" };
    },
  };
}

/** An OAuth access token past its expires_in still opens /v1 (the server never looks at its expiry). */
function tokenNeverExpires(sim: RunningSimulator): Rewrite {
  return {
    request(req) {
      const m = /^Bearer\s+(\S+)$/i.exec(String(req.headers.authorization ?? ""));
      const token = m ? sim.hub.state.oauth.access.get(m[1]!) : undefined;
      const now = sim.hub.clock.now();
      if (token && !token.revoked && token.expires_at <= now) token.expires_at = now + 3_600_000;
      return req;
    },
  };
}

/** RateLimit's `t` always the window's whole length (RateLimit-Policy's `w`): the reset never comes closer as the server's time passes. */
function resetStandsStill(): Rewrite {
  return {
    // Every answer's, an event stream's and a file's too.
    head(_req, headers) {
      const w = /;\s*w=(\d+)/.exec(headers["ratelimit-policy"] ?? "")?.[1];
      return headers.ratelimit && w ? { ...headers, ratelimit: headers.ratelimit.replace(/t=\d+/, `t=${w}`) } : headers;
    },
  };
}

export const TIME_DOUBLES: Double[] = [
  {
    rule: "EVT-12",
    area: "events",
    found: "default",
    title: "answers reset cursor_unknown, not cursor_expired, for a cursor older than the 7 days of history",
    make: () => expiredAsUnknown(),
  },
  {
    rule: "UPL-1",
    area: "uploads",
    found: "default",
    title: "forgets an uploaded file once the ticket it was written through has expired",
    make: (sim) => fileDiesWithSignature(sim),
  },
  {
    rule: "AUTH-7",
    area: "oauth",
    found: "default",
    // The OAuth client the suite registers (its consent gives the token).
    with: ["OAUTH-6"],
    title: "still accepts an OAuth access token after its expires_in",
    make: (sim) => tokenNeverExpires(sim),
  },
  {
    rule: "LIM-3",
    area: "limits",
    found: "default",
    // A generation followed to its end: the server's clock moves within a window.
    with: ["ST-1"],
    title: "says in RateLimit that the whole window is left before its reset, however much time has passed",
    make: () => resetStandsStill(),
  },
];
