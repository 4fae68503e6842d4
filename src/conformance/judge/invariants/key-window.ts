// A key's own request window is spent by that key's requests only (LIM-1: `default` is
// "one per key (two keys of one account do not share it)"; EVT-12: "frames of an open
// stream cost nothing"). Between two answers to one API key that describe its `default`
// window within one window (no reset between: the remainder not higher, the reset no
// further away, less time passed than the first said was left), the remainder went down
// by at most the key's requests that may have been counted between them: each request of
// the key whose time overlaps the span from the first one's sending to the second one's
// answer, the second included. More is a finding: something else spent the key's window
// (another key's requests, a stream's frames, one request counted twice). That the
// remainder goes down at all is the countdown's answer check (LIM-3).
//
// Judged for API keys only, known as such from their whoami answer in the trace (channel
// not `oauth`): an OAuth grant's tokens share the grant's window and a session's window is
// the account's, so no other credential is one window on its own. A key is known by its
// token (the scheme's case aside), never kept or shown: a digest of it is.
import { createHash } from "node:crypto";
import type { Cited, Exchange } from "../../target/exchange.ts";
import { isV1, succeeded } from "../../target/exchange.ts";
import { windowOf } from "../../target/rate-window.ts";
import { broke, held } from "../answer-checks/check.ts";
import { citedLater, type Invariant, type InvariantFinding, type InvariantWatch } from "./invariant.ts";
import { Remembered } from "./remembered.ts";

const RULE = "LIM-1";
/** Keys followed at once (a proxy may see many); the first seen is forgotten first. */
const KEYS_REMEMBERED = 2_000;
/** Requests of a key remembered (their times), to count those between two answers. */
const SPANS_PER_KEY = 32;
/** Pairs of answers of a key awaiting their judgement (a request in flight may still be counted). */
const PAIRS_PER_KEY = 16;

interface Span {
  start: number;
  end: number;
}

/** An answer's reading of its key's `default` window. */
interface Reading {
  /** Its request among the key's spans. */
  span: Span;
  remaining: number;
  reset: number;
  /** Seconds the suite had let pass on the target (waited, or moved its clock). */
  elapsed: number;
  cite: Cited;
}

interface Pair {
  a: Reading;
  b: Reading;
  /** Requests the window went down by. */
  spent: number;
  /** The key's requests that may have been counted between the two (the second included). */
  could: number;
}

interface KeyTrace {
  spans: Span[];
  /** When the latest of the spans forgotten ended: requests before it can no longer be counted. */
  forgottenUntil: number;
  last?: Reading;
  pairs: Pair[];
}

/** A digest of the token an exchange was sent with (one Authorization header), or undefined. */
function keyOf(ex: Exchange): string | undefined {
  const sent = ex.record.sent;
  if (sent.lines?.some(([name]) => /^(?:authorization|cookie)$/i.test(name))) return undefined;
  const name = Object.keys(sent.headers).find((h) => h.toLowerCase() === "authorization");
  const token = name === undefined ? undefined : /^\s*\S+\s+(\S+)\s*$/.exec(sent.headers[name]!)?.[1];
  return token === undefined ? undefined : createHash("sha256").update(token).digest("base64url").slice(0, 22);
}

/** Does the span overlap the time from `from` to `to` (times in whole milliseconds: touching counts)? */
const overlaps = (s: Span, from: number, to: number) => s.start <= to && s.end >= from;

function watch(): InvariantWatch {
  const keys = new Remembered<KeyTrace>(KEYS_REMEMBERED);
  /** Each token's channel, from its whoami answer. */
  const channels = new Remembered<string>(KEYS_REMEMBERED * 5);
  /** Requests whose credential cannot be told (two Authorization lines): each may have been any key's. */
  const unclear: Span[] = [];
  const out: InvariantFinding[] = [];
  let judged = 0;

  function judge(pair: Pair, key: string): void {
    const channel = channels.get(key);
    if (channel === undefined || channel === "oauth") return;
    judged++;
    const could = pair.could + unclear.filter((s) => overlaps(s, pair.a.span.start, pair.b.span.end)).length;
    if (pair.spent <= could || out.length >= 20) return;
    out.push({
      ...broke(RULE, `the key's default window went down by ${pair.spent} between two of its answers (r=${pair.a.remaining}, then r=${pair.b.remaining} ${((pair.b.span.end - pair.a.span.end) / 1000).toFixed(1)} s later, the same window), but only ${could} request(s) of that key may have been counted between them (the second included): something else spent the key's window (another key's requests, the frames of a stream, one request counted twice)`),
      cite: { ...pair.b.cite, steps: [{ step: `r=${pair.a.remaining}`, cited: pair.a.cite }, { step: `r=${pair.b.remaining}`, cited: pair.b.cite }] },
    });
  }

  return {
    exchange(ex, how) {
      if (how.bare || !isV1(ex)) return;
      const start = Date.parse(ex.record.startedAt);
      const span = { start, end: start + ex.record.ms };
      const key = keyOf(ex);
      if (key === undefined) {
        if (ex.record.sent.lines) {
          unclear.push(span);
          if (unclear.length > 100) unclear.shift();
        }
        return;
      }
      if (succeeded(ex) && ex.method === "GET" && ex.path.split("?")[0] === "/v1/whoami" && typeof ex.json?.channel === "string") channels.set(key, ex.json.channel);
      let trace = keys.get(key);
      if (!trace) keys.set(key, (trace = { spans: [], forgottenUntil: 0, pairs: [] }));
      // A request answered now may have been counted between the two answers of a pair already made.
      for (const p of trace.pairs) if (overlaps(span, p.a.span.start, p.b.span.end)) p.could++;
      if (trace.spans.length >= SPANS_PER_KEY) trace.forgottenUntil = Math.max(trace.forgottenUntil, trace.spans.shift()!.end);
      trace.spans.push(span);
      const window = windowOf(ex.headers);
      if (window?.policy !== "default") return;
      const b: Reading = { span, remaining: window.remaining, reset: window.reset, elapsed: how.elapsedSeconds, cite: citedLater(ex.cite) };
      const a = trace.last;
      trace.last = b;
      // Only an answer sent after the one before it was answered: which came first is known.
      if (!a || a.span.end > span.start || b.remaining > a.remaining || b.reset > a.reset) return;
      const passed = (span.end - a.span.end) / 1000 + (b.elapsed - a.elapsed);
      // A request the key sent between them may be forgotten already: not judged.
      if (passed >= a.reset || trace.forgottenUntil > a.span.start) return;
      const could = trace.spans.filter((s) => s !== a.span && overlaps(s, a.span.start, span.end)).length;
      trace.pairs.push({ a, b, spent: a.remaining - b.remaining, could });
      if (trace.pairs.length > PAIRS_PER_KEY) judge(trace.pairs.shift()!, key);
    },
    findings() {
      // Judged at the end: a key's whoami may come after its answers, a request in flight after a pair.
      for (const [key, trace] of keys.entries()) for (const p of trace.pairs.splice(0)) judge(p, key);
      return out.length > 0 ? out : judged > 0 ? [held(RULE)] : [];
    },
  };
}

export const keyWindow: Invariant = { name: "a key's window is spent by its own requests", rules: [RULE], watch };
