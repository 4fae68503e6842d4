// What the invariants over the request windows (a key's, the account's) read from a
// trace: the credential a request was sent with, known by a digest (never the token or the
// cookie), the time its request took, and an answer's reading of one named window (when two
// readings describe the same window is target/rate-window.ts's `sameWindow`); and the finding
// when a window went down by more than the requests that may have spent it. The rules each
// window is held to live in its file.
import { createHash } from "node:crypto";
import type { Cited, Exchange } from "../../target/exchange.ts";
import { windowOf, type Span, type WindowSighting } from "../../target/rate-window.ts";
import type { Delivery } from "../../target/sink.ts";
import { broke } from "../answer-checks/check.ts";
import { citedLater, type InvariantFinding } from "./invariant.ts";

/** Does the span overlap the time from `from` to `to` (touching counts)? */
export const overlaps = (s: Span, from: number, to: number) => s.start <= to && s.end >= from;

/** A credential as a digest: the token of an Authorization header, else the Cookie header (a session). */
export interface Credential {
  digest: string;
  cookie: boolean;
}

const digest = (text: string) => createHash("sha256").update(text).digest("base64url").slice(0, 22);

/**
 * The credential an exchange was sent with (the Authorization token, the scheme's case
 * aside; else the Cookie header), `"unclear"` when it cannot be told (either header sent
 * twice, as lines of their own), undefined when it was sent with none.
 */
export function credentialOf(ex: Exchange): Credential | "unclear" | undefined {
  const sent = ex.record.sent;
  if (sent.lines?.some(([name]) => /^(?:authorization|cookie)$/i.test(name))) return "unclear";
  const header = (wanted: string) => {
    const name = Object.keys(sent.headers).find((h) => h.toLowerCase() === wanted);
    return name === undefined ? undefined : sent.headers[name]!;
  };
  const authorization = header("authorization");
  if (authorization !== undefined) {
    const token = /^\s*\S+\s+(\S+)\s*$/.exec(authorization)?.[1];
    return token === undefined ? undefined : { digest: digest(token), cookie: false };
  }
  const cookie = header("cookie");
  return cookie === undefined ? undefined : { digest: digest(`cookie ${cookie.trim()}`), cookie: true };
}

/** A successful whoami answer: what its credential resolved to. */
export function whoamiOf(ex: Exchange): { channel?: string; account?: string } | undefined {
  if (ex.status < 200 || ex.status >= 300 || ex.method !== "GET" || ex.path.split("?")[0] !== "/v1/whoami") return undefined;
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  return { channel: str(ex.json?.channel), account: str(ex.json?.user_id) };
}

/** An answer's reading of the window named `policy`. */
export interface Reading extends WindowSighting {
  remaining: number;
  cite: Cited;
}

export function readingOf(ex: Exchange, how: Delivery, span: Span, policy: string): Reading | undefined {
  const window = windowOf(ex.headers);
  if (window?.policy !== policy) return undefined;
  return { span, remaining: window.remaining, reset: window.reset, elapsed: how.elapsedSeconds, cite: citedLater(ex.cite) };
}

/** The two readings, as the steps that show a finding. */
export function pairCite(a: Reading, b: Reading): Cited {
  return { ...b.cite, steps: [{ step: `r=${a.remaining}`, cited: a.cite }, { step: `r=${b.remaining}`, cited: b.cite }] };
}

/** The finding of a window (`what`) that went down from `a` to `b` by more than the `could` requests of `whose` that may have been counted between them. */
export function spentTooMuch(rule: string, what: string, a: Reading, b: Reading, could: number, whose: string, why: string): InvariantFinding {
  const seconds = ((b.span.end - a.span.end) / 1000).toFixed(1);
  return {
    ...broke(rule, `${what} went down by ${a.remaining - b.remaining} between two of its answers (r=${a.remaining}, then r=${b.remaining} ${seconds} s later, the same window), but only ${could} request(s) of ${whose} may have been counted between them (the second included): ${why}`),
    cite: pairCite(a, b),
  };
}
