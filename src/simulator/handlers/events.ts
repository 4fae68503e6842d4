// GET /v1/events: the status-change stream of the caller's generations.
import { baseHeaders, headerOf, type Handler } from "../pipeline/context.ts";
import { refuse } from "../domain/refusal.ts";
import type { OpenStream } from "../domain/events.ts";
import { PUBLISHED_TYPES } from "../state/fixtures/catalog.ts";

/** Seconds a client is told to wait when its key holds every stream it may open. */
const STREAM_RETRY_SECONDS = 5;

const streamGenerationEvents: Handler = (ctx) => {
  const hub = ctx.hub;
  const credential = ctx.credential!;
  const raw = ctx.query.get("types");
  let types: Set<string> | null = null;
  if (raw !== null) {
    const list = raw.split(",").map((t) => t.trim());
    const unknown = list.filter((t) => !(PUBLISHED_TYPES as readonly string[]).includes(t));
    if (unknown.length > 0) {
      return refuse("invalid_request", {
        details: [{ field: "types", reason: "not_allowed", message: `unknown generation type(s): ${unknown.map((t) => JSON.stringify(t)).join(", ")}` }],
      });
    }
    types = new Set(list);
  }
  if (hub.events.streamsOfKey(credential.keyId) >= hub.maxStreamsPerKey) {
    return refuse("too_many_streams", {
      message: `This key already holds ${hub.maxStreamsPerKey} open event streams.`,
      retryAfter: STREAM_RETRY_SECONDS,
    });
  }
  const resume = hub.events.resumeOf(credential.accountId, headerOf(ctx, "last-event-id"));
  const headers = { ...baseHeaders(ctx), "content-type": "text/event-stream; charset=utf-8", "x-accel-buffering": "no" };
  return {
    kind: "stream",
    status: 200,
    headers,
    stream: (sink) => {
      const stream: OpenStream = {
        accountId: credential.accountId,
        keyId: credential.keyId,
        requestId: ctx.requestId,
        authorization: headerOf(ctx, "authorization"),
        cookie: headerOf(ctx, "cookie"),
        lang: ctx.lang,
        types,
        sink: null,
        heartbeat: null,
        closed: false,
      };
      hub.events.attach(stream, sink, resume);
      return () => hub.events.detach(stream);
    },
  };
};

export const eventsHandlers = { streamGenerationEvents };
