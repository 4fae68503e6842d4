// Carrying out the fault the hub decides for a request (domain/faults.ts), once, at the
// phase its kind needs: before the handler, an error answer in the API's envelope takes
// the handler's place (the request is not handled), or the answer is marked for the
// adapter (a delay, a dropped connection); on the answer, a drop after processing, a
// truncated body, or an event stream wrapped to be cut or to fall silent. The adapters do
// what the marks say (node:http on the socket, Mock Service Worker with Response errors).
// Faults are asked at the handler's door, after the refusal ladder: a request refused
// before (a bad key, an exhausted window) gets that refusal, and a request that reached
// the rate limiter keeps its RateLimit pair on an injected error.
import { errorCodes } from "../../contract/tables.ts";
import type { FaultTarget } from "../domain/faults.ts";
import { requestRateRefusal } from "../domain/ratelimit.ts";
import { refuse, type Refusal } from "../domain/refusal.ts";
import type { Fault } from "../state/faults.ts";
import { refusalAnswer, type Ctx } from "./context.ts";
import { unreachable, type BodyAnswer, type ConnectionSink, type DroppedAnswer, type SimResponse, type StreamAnswer } from "./exchange.ts";

const DROPPED: DroppedAnswer = Object.freeze({ kind: "dropped" });
const utf8 = new TextEncoder();

/** Answers the request with `handle`, unless a fault in force acts on it. */
export function withFaults(ctx: Ctx, handle: () => SimResponse): SimResponse {
  const plan = ctx.hub.faults;
  if (plan.size === 0) return handle();
  const target: FaultTarget = { path: ctx.path, operation: ctx.operation };
  const before = plan.decide("before", target);
  if (!before) return spoiled(ctx, target, handle());
  ctx.fault = `${before.id} ${before.kind}`;
  switch (before.kind) {
    case "latency":
      return delayed(handle(), before.latency_ms);
    case "internal_error":
    case "service_unavailable":
      ctx.refusedBy = "fault";
      return refusalAnswer(ctx, refuse(before.kind, { message: injected(before, errorCodes.get(before.kind)?.meaning ?? before.kind) }));
    case "rate_limited":
      ctx.refusedBy = "fault";
      return refusalAnswer(ctx, limited(ctx, before));
    default:
      return DROPPED;
  }
}

/** The message of an injected error: the code's meaning, and which fault said so. */
function injected(fault: Fault, meaning: string): string {
  return `${meaning.replace(/\.$/, "")} (a fault injected by the simulator: ${fault.id}).`;
}

/**
 * 429 as the request limiter gives it: the binding window describes itself as exhausted
 * until Retry-After (the fault's seconds); a route without a window (OAuth registration,
 * the mounts) gets the bare reason.
 */
function limited(ctx: Ctx, fault: Fault & { kind: "rate_limited" }): Refusal {
  const seconds = fault.retry_after_seconds;
  const w = ctx.rate;
  if (!w) {
    return refuse("rate_limited", { message: injected(fault, "Too many requests"), details: [{ reason: "request_rate", message: "request window exhausted" }], retryAfter: seconds, retryAfterInBody: true });
  }
  ctx.rate = { ...w, remaining: 0, reset: seconds };
  return requestRateRefusal(ctx.rate);
}

/** The answer as it is, to be delivered `ms` later. */
function delayed(answer: SimResponse, ms: number): SimResponse {
  switch (answer.kind) {
    case "deferred":
      return { kind: "deferred", deferred: answer.deferred.then((settled) => (settled.kind === "dropped" ? settled : { ...settled, delayMs: ms })) };
    case "dropped":
      return answer;
    case "body":
    case "stream":
      return { ...answer, delayMs: ms };
    default:
      return unreachable(answer);
  }
}

/** The handler's answer, spoilt by the fault that acts on answers (if one does). */
function spoiled(ctx: Ctx, target: FaultTarget, answer: SimResponse): SimResponse {
  switch (answer.kind) {
    case "deferred":
      return { kind: "deferred", deferred: answer.deferred.then((settled) => spoiledBody(ctx, target, settled)) };
    case "dropped":
      return answer;
    case "body":
      return spoiledBody(ctx, target, answer);
    case "stream": {
      const fault = ctx.hub.faults.decide("answer", target, "stream");
      if (!fault) return answer;
      ctx.fault = `${fault.id} ${fault.kind}`;
      if (fault.kind === "stream_cut" || fault.kind === "stream_silent") return faultyStream(answer, fault.kind, fault.after_frames ?? 0);
      return DROPPED;
    }
    default:
      return unreachable(answer);
  }
}

function spoiledBody(ctx: Ctx, target: FaultTarget, answer: BodyAnswer | DroppedAnswer): BodyAnswer | DroppedAnswer {
  if (answer.kind === "dropped") return answer;
  const body = answer.body === undefined ? undefined : typeof answer.body === "string" ? utf8.encode(answer.body) : answer.body;
  const fault = ctx.hub.faults.decide("answer", target, body && body.length > 0 ? "body" : "empty");
  if (!fault) return answer;
  ctx.fault = `${fault.id} ${fault.kind}`;
  if (fault.kind !== "truncate" || !body) return DROPPED;
  // At least one byte short of the promise, whatever the fault asks for.
  return { ...answer, body, truncateAt: Math.min(fault.sent_bytes ?? Math.floor(body.length / 2), body.length - 1) };
}

/**
 * The event stream with a fault in it: after `frames` frames it is cut (the connection
 * ends without a proper end) or falls silent (no frame, no heartbeat; the connection
 * stays open until the client leaves or the hub ends the stream). Heartbeats are
 * comments, not frames: a cut stream keeps them until it is cut.
 */
function faultyStream(answer: StreamAnswer, kind: "stream_cut" | "stream_silent", frames: number): StreamAnswer {
  return {
    ...answer,
    stream: (sink: ConnectionSink) => {
      let written = 0;
      let cut = false;
      let stop: (() => void) | undefined;
      const silent = () => kind === "stream_silent" && written >= frames;
      const cutNow = () => {
        cut = true;
        stop?.();
        sink.abort();
      };
      const faulty: ConnectionSink = {
        write(chunk) {
          if (cut || silent()) return;
          if (!chunk.startsWith(":")) written++;
          sink.write(chunk);
          if (kind === "stream_cut" && written >= frames) cutNow();
        },
        end: () => !cut && sink.end(),
        abort: () => !cut && sink.abort(),
      };
      if (kind === "stream_cut" && frames === 0) {
        cutNow();
        return () => undefined;
      }
      stop = answer.stream(faulty);
      // Cut while it started (the frames it resumed with): the hub forgets it now.
      if (cut) stop();
      return stop;
    },
  };
}
