// A key's own request window is spent by that key's requests only (LIM-1: `default` is
// "one per key (two keys of one account do not share it)"; EVT-12: "frames of an open
// stream cost nothing"). Between two answers to one API key that describe its `default`
// window within one window (target/rate-window.ts's `sameWindow`, the remainder not
// higher), the remainder went down by at most the key's requests that may have been
// counted between them: each request of the key whose time overlaps the span from the
// first one's sending to the second one's answer, the second included. More is a
// finding: something else spent the key's window (another key's requests, a stream's
// frames, one request counted twice). That the remainder goes down at all is the
// countdown's answer check (LIM-3).
//
// Judged for API keys only, known as such from their whoami answer in the trace (channel
// not `oauth`): an OAuth grant's tokens share the grant's window and a session's window is
// the account's, so no other credential is one window on its own. A key is known by its
// token (the scheme's case aside), never kept or shown: a digest of it is.
import { isV1 } from "../../target/exchange.ts";
import { held } from "../answer-checks/check.ts";
import type { Invariant, InvariantFinding, InvariantWatch } from "./invariant.ts";
import { Remembered } from "./remembered.ts";
import { sameWindow, spanOf, type Span } from "../../target/rate-window.ts";
import { credentialOf, overlaps, readingOf, spentTooMuch, whoamiOf, type Reading } from "./window-readings.ts";

const RULE = "LIM-1";
/** Keys followed at once (a proxy may see many); the first seen is forgotten first. */
const KEYS_REMEMBERED = 2_000;
/** Requests of a key remembered (their times), to count those between two answers. */
const SPANS_PER_KEY = 32;
/** Pairs of answers of a key awaiting their judgement (a request in flight may still be counted). */
const PAIRS_PER_KEY = 16;

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

function watch(): InvariantWatch {
  const keys = new Remembered<KeyTrace>(KEYS_REMEMBERED);
  /** Each token's channel, from its whoami answer. */
  const channels = new Remembered<string>(KEYS_REMEMBERED * 5);
  /** Requests whose credential cannot be told (Authorization or Cookie sent twice): each may have been any key's. */
  const unclear: Span[] = [];
  const out: InvariantFinding[] = [];
  let judged = 0;

  function judge(pair: Pair, key: string): void {
    const channel = channels.get(key);
    if (channel === undefined || channel === "oauth") return;
    judged++;
    const could = pair.could + unclear.filter((s) => overlaps(s, pair.a.span.start, pair.b.span.end)).length;
    if (pair.spent <= could || out.length >= 20) return;
    out.push(spentTooMuch(RULE, "the key's default window", pair.a, pair.b, could, "that key", "something else spent the key's window (another key's requests, the frames of a stream, one request counted twice)"));
  }

  return {
    exchange(ex, how) {
      if (how.bare || !isV1(ex)) return;
      const span = spanOf(ex);
      const credential = credentialOf(ex);
      if (credential === "unclear") {
        unclear.push(span);
        if (unclear.length > 100) unclear.shift();
      }
      if (credential === undefined || credential === "unclear" || credential.cookie) return;
      const key = credential.digest;
      const who = whoamiOf(ex);
      if (who?.channel !== undefined) channels.set(key, who.channel);
      let trace = keys.get(key);
      if (!trace) keys.set(key, (trace = { spans: [], forgottenUntil: 0, pairs: [] }));
      // A request answered now may have been counted between the two answers of a pair already made.
      for (const p of trace.pairs) if (overlaps(span, p.a.span.start, p.b.span.end)) p.could++;
      if (trace.spans.length >= SPANS_PER_KEY) trace.forgottenUntil = Math.max(trace.forgottenUntil, trace.spans.shift()!.end);
      trace.spans.push(span);
      const b = readingOf(ex, how, span, "default");
      if (!b) return;
      const a = trace.last;
      trace.last = b;
      // A higher remainder is a window started anew; a request the key sent between them may be forgotten already: not judged.
      if (!a || !sameWindow(a, b) || b.remaining > a.remaining || trace.forgottenUntil > a.span.start) return;
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
