// The pipeline's journal stage: the exchange the hub has just answered, recorded in the
// request journal (domain/journal.ts), masked on the way in. A stream is recorded when it
// opens and follows its frames as they go out; a deferred answer when it settles.
//
// What is masked where (domain/secrets.ts): Authorization and cookies always (a credential
// by what it is, never its value), the path and query, and a Referer. Bodies and answer headers are
// masked everywhere but /v1, whose bodies are what the caller sent and records the hub
// renders from its state, with the one /v1 answer that hands out a credential masked too
// (the upload ticket: its storage address carries a signature). So a list read's page is
// kept as it is, by reference, and recording it costs no scan of its text.
import { bearerToken, TOKEN_PREFIX } from "../domain/credentials.ts";
import type { CredentialNote, Journal, JournalEntry, JournalMessage, StreamLog } from "../domain/journal.ts";
import { maskedHeaders, maskOf, maskText, tokenName } from "../domain/secrets.ts";
import type { HubState } from "../state/hub-state.ts";
import { cookieValue } from "../domain/sessions.ts";
import { SESSION_COOKIE } from "../state/sessions.ts";
import type { Ctx } from "./context.ts";
import { unreachable, type BodyAnswer, type ConnectionSink, type SimResponse, type StreamAnswer } from "./exchange.ts";
import { isV1 } from "./ladder.ts";

/**
 * The checks an adapter makes before the hub (a request it refuses is recorded under the
 * check's name, `by` of hub.refuse), with what each is, in words.
 */
export const ADAPTER_CHECKS = {
  "host header": "the server: an HTTP/1.1 request without Host",
  "host allow-list": "the server's Host allow-list (a DNS rebinding guard; --allowed-hosts names more hosts)",
  sandbox: "the server's sandbox routing (a sandbox's key, its base path /sandboxes/{id}, the Hub-Sandbox header or the hub_sandbox cookie)",
  "control off": "the server: /_sim/ is off on a --host other than loopback (--expose-control)",
  cors: "the server: CORS is closed here (--cors opens /v1 and the routes a browser app calls, never /_sim/)",
  docs: "the server: the reference docs at /docs/",
  "body limit": "the server's body size limit (--body-limit)",
  "body reading": "the server: the body could not be read",
} as const;

export type AdapterCheck = keyof typeof ADAPTER_CHECKS;

/** The part of a body the journal keeps (the rest is counted, not kept). */
export const KEPT_CHARACTERS = 32 * 1024;

/** Operations of /v1 whose answers hand out a credential: the upload ticket (its url's signature). */
const HANDS_OUT_CREDENTIALS: ReadonlySet<string> = new Set(["createUpload"]);

const TEXT_TYPE = /^\s*(?:text\/|application\/(?:[\w.+-]*\+)?(?:json|x-www-form-urlencoded|javascript|xml))/i;
const decoder = new TextDecoder();

/** Records the exchange `answer` ends, unless the journal is off or the route keeps out of it; answers `answer` (a stream or a deferred one wrapped to follow it). */
export function journaled(ctx: Ctx, answer: SimResponse, started: number): SimResponse {
  const journal = ctx.hub.journal;
  if (!journal.on || ctx.journal === false) return answer;
  switch (answer.kind) {
    case "body":
      journal.record(entryOf(ctx, answer, started, null));
      return answer;
    case "dropped":
      journal.record(entryOf(ctx, undefined, started, null));
      return answer;
    case "deferred":
      return {
        kind: "deferred",
        deferred: answer.deferred.then((settled) => {
          journal.record(entryOf(ctx, settled.kind === "body" ? settled : undefined, started, null));
          return settled;
        }),
      };
    case "stream": {
      const log: StreamLog = { open: true, frames: 0, heartbeats: 0, recent: [], keepsFrames: isV1(ctx.path), end: null, endedAt: null };
      const entry = entryOf(ctx, answer, started, log);
      journal.record(entry);
      return following(journal, entry, answer);
    }
    default:
      return unreachable(answer);
  }
}

/** The stream with every frame it writes, and its end, told to the journal as they go out. */
function following(journal: Journal, entry: JournalEntry, answer: StreamAnswer): StreamAnswer {
  return {
    ...answer,
    stream: (sink) => {
      const told: ConnectionSink = {
        write(chunk) {
          journal.frame(entry, chunk);
          sink.write(chunk);
        },
        end() {
          journal.streamEnded(entry, "ended");
          sink.end();
        },
        abort() {
          journal.streamEnded(entry, "cut");
          sink.abort();
        },
      };
      const stop = answer.stream(told);
      return () => {
        journal.streamEnded(entry, "closed");
        stop();
      };
    },
  };
}

function entryOf(ctx: Ctx, answer: BodyAnswer | StreamAnswer | undefined, started: number, stream: StreamLog | null): JournalEntry {
  const hub = ctx.hub;
  const state = hub.state;
  const req = ctx.req;
  const operation = ctx.operation?.operationId ?? null;
  const masked = !isV1(ctx.path) || (operation !== null && HANDS_OUT_CREDENTIALS.has(operation));
  const refusal = ctx.refusal;
  return {
    seq: 0,
    requestId: ctx.requestId,
    at: Date.now(),
    clockAt: hub.clock.now(),
    method: req.method,
    url: maskText(req.url, state),
    baseUrl: ctx.baseUrl,
    operation,
    route: operation ?? ctx.route ?? "(no route)",
    status: answer ? answer.status : 0,
    code: refusal?.code ?? (answer && answer.status >= 400 ? protocolError(answer) : null),
    durationMs: performance.now() - started + (answer?.delayMs ?? 0),
    credential: credentialNote(ctx, state),
    refusal: refusal ? { by: ctx.refusedBy ?? "handler", message: refusal.options.message, details: refusal.options.details } : null,
    fault: ctx.fault ?? null,
    request: requestMessage(ctx, state, masked),
    response: answer ? responseMessage(answer, state, masked) : { headers: {}, body: null, size: 0, truncated: false },
    stream,
  };
}

/** The error of an answer outside the envelope: an OAuth protocol error (RFC 6749 bodies carry `error`). */
function protocolError(answer: BodyAnswer | StreamAnswer): string | null {
  const body = answer.kind === "body" ? answer.body : undefined;
  const text = typeof body === "string" ? body : body ? decoder.decode(body.subarray(0, 4096)) : "";
  if (!text.startsWith("{")) return null;
  try {
    const error = (JSON.parse(text) as { error?: unknown }).error;
    return typeof error === "string" ? error : null;
  } catch {
    return null;
  }
}

function isText(type: string | undefined): boolean {
  return type !== undefined && TEXT_TYPE.test(type);
}

/**
 * The mask of Authorization when the ladder resolved it to a key or token: made from what
 * it resolved to, without reading the value again (the scheme as sent, `Bearer`).
 */
function authorizationMask(ctx: Ctx): string | undefined {
  const c = ctx.credential;
  const given = ctx.req.headers.authorization;
  if (!c || typeof given !== "string") return undefined;
  if (c.channel === "api_key") return `${given.slice(0, 6)} ${maskOf("ghk_", c.keyId)}`;
  if (c.channel === "oauth") return `${given.slice(0, 6)} ${maskOf(TOKEN_PREFIX, tokenName(c.keyId))}`;
  return undefined;
}

function requestMessage(ctx: Ctx, state: HubState, masked: boolean): JournalMessage {
  const req = ctx.req;
  const headers = maskedHeaders(req.headers, state, masked, authorizationMask(ctx));
  const body = req.body;
  if (!body || body.length === 0) return { headers, body: null, size: 0, truncated: false };
  const type = req.headers["content-type"];
  if (!isText(typeof type === "string" ? type : undefined)) return { headers, body: null, size: body.length, truncated: false };
  const truncated = body.length > KEPT_CHARACTERS;
  // Kept as text, not bytes: a string holds no pointer for the garbage collector to follow, and is a copy.
  const text = decoder.decode(truncated ? body.subarray(0, KEPT_CHARACTERS) : body);
  return { headers, body: masked ? maskText(text, state) : text, size: body.length, truncated };
}

function responseMessage(answer: BodyAnswer | StreamAnswer, state: HubState, masked: boolean): JournalMessage {
  const headers = masked ? maskedHeaders(answer.headers, state, true) : answer.headers;
  if (answer.kind === "stream") return { headers, body: null, size: 0, truncated: false };
  const body = answer.body;
  if (body === undefined) return { headers, body: null, size: 0, truncated: false };
  if (typeof body !== "string") {
    if (!isText(answer.headers["content-type"])) return { headers, body: null, size: body.length, truncated: false };
    const truncated = body.length > KEPT_CHARACTERS;
    const text = decoder.decode(truncated ? body.subarray(0, KEPT_CHARACTERS) : body);
    return { headers, body: masked ? maskText(text, state) : text, size: body.length, truncated };
  }
  if (body.length <= KEPT_CHARACTERS) return { headers, body: masked ? maskText(body, state) : body, size: body.length, truncated: false };
  // A part of a long text would keep the whole alive (V8 slices share their parent): copy it.
  const part = decoder.decode(new TextEncoder().encode(body.slice(0, KEPT_CHARACTERS)));
  return { headers, body: masked ? maskText(part, state) : part, size: body.length, truncated: true };
}

/** The credential the request carried, by what it is: the one the ladder resolved, else what was presented. */
function credentialNote(ctx: Ctx, state: HubState): CredentialNote | null {
  const c = ctx.credential;
  if (c) return { channel: c.channel, id: c.keyId, accountId: c.accountId, note: null };
  const authorization = ctx.req.headers.authorization;
  if (Array.isArray(authorization)) return { channel: null, id: null, accountId: null, note: "Authorization given more than once" };
  if (authorization !== undefined && authorization.trim() !== "") return presented(authorization, state);
  const cookie = ctx.req.headers.cookie;
  const secret = cookieValue(Array.isArray(cookie) ? cookie.join("; ") : cookie, SESSION_COOKIE);
  if (secret === undefined) return null;
  const session = state.sessions.get(secret);
  return session ? { channel: "session", id: session.id, accountId: session.account_id, note: null } : { channel: "session", id: null, accountId: null, note: "an unknown or ended session" };
}

function presented(authorization: string, state: HubState): CredentialNote {
  const token = bearerToken(authorization);
  if (token === undefined) return { channel: null, id: null, accountId: null, note: "not a Bearer credential" };
  if (token.startsWith(TOKEN_PREFIX)) {
    const issued = state.oauth.access.get(token);
    const grant = issued && state.oauth.grants.get(issued.grant_id);
    return grant ? { channel: "oauth", id: grant.id, accountId: grant.account_id, note: null } : { channel: "oauth", id: null, accountId: null, note: "an unknown OAuth token" };
  }
  const key = state.keys.get(token);
  if (key) return { channel: "api_key", id: key.id, accountId: key.account_id, note: null };
  return { channel: "api_key", id: null, accountId: null, note: token.startsWith("ghk_") ? "an unknown API key" : "not a key of this simulator" };
}
