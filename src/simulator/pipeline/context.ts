// One request on its way through the pipeline, and the answers handlers build from it.
// Every `/v1` answer carries X-Request-Id, `Cache-Control: private, no-store` and
// `Vary: Authorization, Cookie, Origin` (seed rule 10), plus the RateLimit pair once
// the request reached the limiter.
import type { Operation } from "../../contract/document.ts";
import type { Credential } from "../domain/credentials.ts";
import type { WindowState } from "../domain/ratelimit.ts";
import type { Reader } from "../domain/references.ts";
import { ownOrigins } from "../domain/references.ts";
import { envelope, Refusal, refuse, type Lang } from "../domain/refusal.ts";
import type { Account } from "../state/accounts.ts";
import type { BodyAnswer, SimRequest, SimResponse } from "./exchange.ts";
import type { HubServices } from "./services.ts";

export interface Ctx {
  hub: HubServices;
  req: SimRequest;
  path: string;
  query: URLSearchParams;
  requestId: string;
  lang: Lang;
  /** The address the caller reached the hub at: `--public-url` or the request's, with a sandbox's base path when it came by one. */
  baseUrl: string;
  /** A sandbox's base path when the request came by it (`/sandboxes/sbx_…`), else "": put before the paths of the hub's own links and forms. */
  basePath: string;
  operation?: Operation;
  params: Record<string, string>;
  credential?: Credential;
  account?: Account;
  rate?: WindowState;
  /** What the request journal notes (pipeline/journal.ts): the route outside the contract that answered (`POST /_sim/clock/advance`, `/storage/`), */
  route?: string;
  /** the rung that refused it (of the ladder or a guard; `fault` for an injected error), */
  refusedBy?: string;
  /** the refusal answered, */
  refusal?: Refusal;
  /** the fault that acted on it (`flt_1 latency`), */
  fault?: string;
  /** and false when the journal keeps out of it (the inspector's own reads). */
  journal?: false;
}

export type Handler = (ctx: Ctx) => SimResponse | Refusal;

export const NO_STORE = "private, no-store";
export const REVALIDATE = "private, max-age=0, must-revalidate";
export const VARY = "Authorization, Cookie, Origin";

export function baseHeaders(ctx: Ctx): Record<string, string> {
  const h: Record<string, string> = { "x-request-id": ctx.requestId };
  if (ctx.path.startsWith("/v1/") || ctx.path === "/v1") {
    h["cache-control"] = NO_STORE;
    h.vary = VARY;
  }
  const rate = ctx.rate;
  if (rate) {
    // The RateLimit pair of the binding window (seed, Limits).
    h.ratelimit = `"${rate.policy}";r=${rate.remaining};t=${rate.reset}`;
    h["ratelimit-policy"] = policyText(rate);
  }
  return h;
}

// The policy header repeats on every answer of a window: the last one is kept.
let lastPolicy = { policy: "", quota: NaN, window: NaN, text: "" };
function policyText(rate: WindowState): string {
  const p = lastPolicy;
  if (p.policy === rate.policy && p.quota === rate.quota && p.window === rate.window) return p.text;
  lastPolicy = { policy: rate.policy, quota: rate.quota, window: rate.window, text: `"${rate.policy}";q=${rate.quota};w=${rate.window}` };
  return lastPolicy.text;
}

export function json(ctx: Ctx, status: number, body: unknown, extra?: Record<string, string>): BodyAnswer {
  return jsonText(ctx, status, JSON.stringify(body), extra);
}

/** For bodies serialised already (cached record JSON). */
export function jsonText(ctx: Ctx, status: number, text: string, extra?: Record<string, string>): BodyAnswer {
  const headers = baseHeaders(ctx);
  headers["content-type"] = "application/json; charset=utf-8";
  if (extra) Object.assign(headers, extra);
  return { kind: "body", status, headers, body: text };
}

export function refusalAnswer(ctx: Ctx, refusal: Refusal): BodyAnswer {
  ctx.refusal = refusal;
  const extra: Record<string, string> = { ...refusal.options.headers };
  if (refusal.options.retryAfter !== undefined) extra["retry-after"] = String(refusal.options.retryAfter);
  return json(ctx, refusal.status, envelope(refusal, ctx.requestId, ctx.lang), extra);
}

export function isRefusal(value: unknown): value is Refusal {
  return value instanceof Refusal;
}

/** The JSON body of the request, or the refusal that names what is wrong with it. */
export function readJson(ctx: Ctx): { value: unknown; text: string } | Refusal {
  const body = ctx.req.body;
  const type = headerOf(ctx, "content-type");
  if (!body || body.length === 0) {
    return refuse("invalid_request", { details: [{ reason: "required", message: "a JSON body is required" }] });
  }
  if (!type) {
    return refuse("invalid_request", { details: [{ field: "Content-Type", reason: "required", message: "Content-Type application/json is required" }] });
  }
  if (!isJsonType(type)) {
    return refuse("invalid_request", { details: [{ field: "Content-Type", reason: "not_allowed", message: `the body must be application/json (UTF-8), not ${JSON.stringify(type.slice(0, 100))}` }] });
  }
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return refuse("invalid_request", { details: [{ reason: "invalid", message: "the body is not valid UTF-8" }] });
  }
  try {
    return { value: JSON.parse(text), text };
  } catch {
    return refuse("invalid_request", { details: [{ reason: "invalid", message: "the body is not valid JSON" }] });
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The one media type the contract declares for JSON bodies: `application/json`, at most
 * with `charset=utf-8` (JSON is UTF-8, RFC 8259). Other `+json` types, other charsets and
 * stray parameters are refused, not guessed at.
 */
const JSON_TYPE = /^application\/json[ \t]*(?:;[ \t]*charset[ \t]*=[ \t]*(?:utf-8|"utf-8")[ \t]*)?$/i;

export function isJsonType(type: string): boolean {
  return type === "application/json" || JSON_TYPE.test(type);
}

/** Who reads the files a request names: its account, on the addresses its links start with. */
export function readerOf(ctx: Ctx): Reader {
  return { accountId: ctx.account!.id, origins: ownOrigins(ctx.baseUrl, ctx.hub.publicUrl) };
}

export function headerOf(ctx: Ctx, name: string): string | undefined {
  const v = ctx.req.headers[name];
  return Array.isArray(v) ? v.join(", ") : v;
}
