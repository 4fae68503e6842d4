// Single faults put in front of the simulator (through the rewriting proxy) that the
// rule-by-rule doubles of doubles.ts do not cover: routes a small server never mounted,
// answered the way express does; a server that never localises; a server that puts a
// stack trace beside the envelope's fields; and faults only generated inputs find (a
// bound not checked, a crash or a hang on an unknown field, a Content-Type not read, and
// the negative inputs: a type coerced, null taken for absent, a field of another
// variant dropped, a crash on a body that is JSON null).
import { chosenBranch, deref, schema, validateChosen, type JsonObject } from "../../../src/contract/index.ts";
import { bodyRewrite, editJson, pathOnly, queryRewrite, type ProxiedAnswer, type ProxiedRequest, type Rewrite } from "./proxy.ts";

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

/** A server that clamps `limit` of the knowledge search into its bounds instead of refusing it (the hand-written checks page generations only). */
export function clampsKnowledgeLimit(): Rewrite {
  return queryRewrite("GET", /^\/v1\/knowledge$/, (q) => {
    const limit = Number(q.get("limit"));
    // One limit only (a limit given twice is another bug: the double does not read it).
    if (q.getAll("limit").length !== 1 || !Number.isInteger(limit)) return false;
    q.set("limit", String(Math.min(100, Math.max(1, limit))));
    return true;
  });
}

/** A request's JSON body, or undefined. */
export function jsonBody(req: ProxiedRequest): any {
  try {
    return JSON.parse(req.body.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** A server whose price estimate crashes (500 internal_error, in the envelope) on a field the body's variant does not have. */
export function crashesOnUnknownField(): Rewrite {
  return {
    answer(req, a) {
      if (req.method !== "POST" || pathOnly(req) !== "/v1/pricing/estimate") return a;
      const body = jsonBody(req);
      if (!body || !validateChosen("SubmitRequest", body).some((d) => d.reason === "unknown_field")) return a;
      return internalError(req, a);
    },
  };
}

/** The answer turned into a crash: 500 `internal_error`, in the envelope. */
export function internalError(req: ProxiedRequest, a: ProxiedAnswer): ProxiedAnswer {
  return editJson({ ...a, status: 500 }, (b) => ({ error: { code: "internal_error", message: "Unexpected server error.", user_message: "Unexpected server error.", request_id: b?.error?.request_id ?? req.headers["x-request-id"] } }));
}

const ESTIMATE = "/v1/pricing/estimate";

/** A submit body's variant (`VideoSubmit`), as the contract chooses it by `type`. */
function variantOf(body: unknown): string | undefined {
  return body && typeof body === "object" && !Array.isArray(body) ? chosenBranch("SubmitRequest", body as Record<string, unknown>) : undefined;
}

/** What a lenient parser makes of a value of the wrong type: a number from a numeric string, a boolean from "true" or "false", a one-item array's item. */
function converted(v: unknown): unknown {
  if (typeof v === "string" && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  if (v === "true" || v === "false") return v === "true";
  if (Array.isArray(v) && v.length === 1) return v[0];
  return v;
}

/**
 * A price estimate that converts a value of the wrong type before it validates (a
 * lenient parser): `"2"` is taken for 2, `"true"` for true, `["a"]` for "a", where the
 * contract refuses them. Other wrong types (`12345` for a string) it still refuses.
 */
export function coercesTypes(): Rewrite {
  return bodyRewrite("POST", ESTIMATE, (body) => {
    if (!variantOf(body)) return undefined;
    const wrong = validateChosen("SubmitRequest", body).filter((d) => d.reason === "wrong_type" && d.field);
    for (const d of wrong) {
      const path = d.field!.split(".");
      const parent = path.slice(0, -1).reduce<any>((node, k) => node?.[k], body);
      if (parent && typeof parent === "object") parent[path.at(-1)!] = converted(parent[path.at(-1)!]);
    }
    return wrong.length > 0 ? body : undefined;
  });
}

/** `body` without the object properties that are null, at any depth. */
function withoutNulls(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(withoutNulls);
  if (!body || typeof body !== "object") return body;
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null).map(([k, v]) => [k, withoutNulls(v)]));
}

/** A server that takes a property given as null for one left out (an `Optional` field of a model class), on `POST path`. */
export function nullAsAbsent(path: string): Rewrite {
  return bodyRewrite("POST", path, (body) => withoutNulls(body));
}

/**
 * A price estimate read by one model of every variant's fields (the union, not the
 * variant `type` chose): a field of another variant is dropped, not refused.
 */
export function takesOtherVariantsFields(): Rewrite {
  const branches = schema("SubmitRequest").oneOf as JsonObject[];
  const union = new Set(branches.flatMap((b) => Object.keys((deref<JsonObject>(b).properties as JsonObject | undefined) ?? {})));
  return bodyRewrite("POST", ESTIMATE, (body) => {
    const variant = variantOf(body);
    if (!variant) return undefined;
    const own = (deref<JsonObject>(schema(variant)).properties as JsonObject | undefined) ?? {};
    const kept = Object.entries(body).filter(([k]) => k in own || !union.has(k));
    return kept.length < Object.keys(body).length ? Object.fromEntries(kept) : undefined;
  });
}

/** A server that crashes (500) on a body that is JSON `null` on `POST path` (it reads a property of the body first). */
export function crashesOnNullBody(path: string): Rewrite {
  return {
    answer(req, a) {
      return req.method === "POST" && pathOnly(req) === path && req.body.toString("utf8").trim() === "null" ? internalError(req, a) : a;
    },
  };
}

/** A server that reads any body of the price estimate as JSON, whatever its Content-Type says. */
export function ignoresContentType(): Rewrite {
  return {
    request(req) {
      if (req.method !== "POST" || pathOnly(req) !== "/v1/pricing/estimate") return req;
      return { ...req, headers: { ...req.headers, "content-type": "application/json" } };
    },
  };
}

/** A server whose price estimate never answers a body with a field its variant does not have (a hang). */
export function hangsOnUnknownField(): Rewrite {
  return {
    hang(req) {
      const body = req.method === "POST" && pathOnly(req) === "/v1/pricing/estimate" ? jsonBody(req) : undefined;
      return Boolean(body && validateChosen("SubmitRequest", body).some((d) => d.reason === "unknown_field"));
    },
  };
}
