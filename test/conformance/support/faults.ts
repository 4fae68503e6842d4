// Single faults put in front of the simulator (through the rewriting proxy) that the
// rule-by-rule doubles of doubles.ts do not cover: routes a small server never mounted,
// answered the way express does; a server that never localises; a server that puts a
// stack trace beside the envelope's fields.
import { editJson, pathOnly, type ProxiedAnswer, type ProxiedRequest, type Rewrite } from "./proxy.ts";

/** Express's default answer for a route nobody mounted (`finalhandler`). */
export function expressNotFound(req: ProxiedRequest): ProxiedAnswer {
  const body = `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot ${req.method} ${pathOnly(req)}</pre>\n</body>\n</html>\n`;
  return {
    status: 404,
    headers: { "content-type": "text/html; charset=utf-8", "x-powered-by": "Express", "content-security-policy": "default-src 'none'", "x-content-type-options": "nosniff" },
    body,
  };
}

/** A server where `routes` (`"GET /v1/whoami"`) were never mounted: express's HTML 404. */
export function missingRoutes(routes: readonly string[]): Rewrite {
  const missing = new Set(routes);
  return {
    intercept(req) {
      return missing.has(`${req.method} ${pathOnly(req)}`) ? expressNotFound(req) : undefined;
    },
  };
}

/** A server without translations: `user_message` is the English `message` whatever the request asks. */
export function neverLocalised(): Rewrite {
  return {
    answer(_req, a) {
      if (a.status < 400) return a;
      return editJson(a, (body) => {
        if (body?.error && typeof body.error.message === "string") body.error.user_message = body.error.message;
        return body;
      });
    },
  };
}

const TRACE = ["Error: validation failed", "    at validateBody (/srv/app/src/routes/generations.js:41:13)", "    at Layer.handle (/srv/app/node_modules/express/lib/router/layer.js:95:5)"];

/** A server that adds a stack trace to every error body: as a string in `error.stack`, or as lines in `error.trace`. */
export function stackTraces(field: "stack" | "trace"): Rewrite {
  return {
    answer(_req, a) {
      if (a.status < 400) return a;
      return editJson(a, (body) => {
        if (body?.error) body.error[field] = field === "stack" ? TRACE.join("\n") : TRACE.slice(1).map((l) => l.trim());
        return body;
      });
    },
  };
}
