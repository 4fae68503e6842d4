// The account's request window is one ceiling over all its keys (LIM-1: `account` is "a
// ceiling for the whole account, shared by all its keys"; Limits 3: "When the name is
// `account`, spreading load over new keys does not help"). The answers to an account's
// credentials that name `account` read one counter. Between two of them within one window
// (target/rate-window.ts's `sameWindow`), whichever credentials asked:
// - the remainder does not go up: a fresh key that sees a fuller account window is a
//   server keeping the account's counter per key, where new keys do help;
// - it goes down by at most the account's requests that may have been counted between
//   them: each request whose time overlaps the span from the first one's sending to the
//   second one's answer (the second included) of any credential the trace knows as the
//   account's (its keys, OAuth tokens and session cookie alike) or whose account it does
//   not know. Counting all of them is the safe upper bound: the seed calls the window a
//   ceiling for the whole account and does not say whether the session's "one
//   account-owned window" is the same counter, and a credential that never asked whoami
//   may be the account's. A request counted that did not spend the window can only let a
//   drop pass, never make one a finding.
//
// Read only from credentials sent as Authorization (keys and OAuth tokens: a request of
// either is checked against the two windows) whose account a whoami answer earlier in the
// trace gave (`user_id`); the rest are not judged. A session's answers are not read: its
// one window may be a counter of its own (the simulator keeps it so). A credential is known
// by a digest of its token or cookie, never kept or shown.
import { isV1 } from "../../target/exchange.ts";
import { broke, held } from "../answer-checks/check.ts";
import type { Invariant, InvariantFinding, InvariantWatch } from "./invariant.ts";
import { Remembered, resetsState } from "./remembered.ts";
import { sameWindow, spanOf, type Span } from "../../target/rate-window.ts";
import { credentialOf, overlaps, pairCite, readingOf, spentTooMuch, whoamiOf, type Reading } from "./window-readings.ts";

const RULE = "LIM-1";
/** Credentials whose account is remembered (a proxy may see many); the first seen is forgotten first. */
const CREDENTIALS_REMEMBERED = 10_000;
/** Accounts followed at once, each with its latest reading. */
const ACCOUNTS_REMEMBERED = 2_000;
/** The latest requests of every credential (their times), to count those between two answers. */
const REQUESTS_REMEMBERED = 1_000;
/** Pairs of answers awaiting their judgement (a request in flight may still be counted). */
const PAIRS_AWAITING = 256;

interface Request {
  span: Span;
  /** Its credential's digest; undefined when it cannot be told (each may have been any account's). */
  credential?: string;
}

interface Pair {
  account: string;
  a: Reading;
  b: Reading;
}

function watch(): InvariantWatch {
  /** Each credential's account, from its whoami answer. */
  const accounts = new Remembered<string>(CREDENTIALS_REMEMBERED);
  /** Each account's latest reading of its window. */
  const latest = new Remembered<Reading>(ACCOUNTS_REMEMBERED);
  /** The latest requests, in the order they were answered. */
  const requests: Request[] = [];
  /** When the latest of the requests forgotten ended: a pair before it can no longer be counted. */
  let forgottenUntil = -Infinity;
  const awaiting: Pair[] = [];
  const out: InvariantFinding[] = [];
  let judged = 0;

  /** Could `r` have spent `account`'s window: a request of one of its credentials, or of one whose account is not known? */
  const mayHaveSpent = (r: Request, account: string) => r.credential === undefined || (accounts.get(r.credential) ?? account) === account;

  function judge({ account, a, b }: Pair): void {
    judged++;
    const could = requests.filter((r) => r.span !== a.span && overlaps(r.span, a.span.start, b.span.end) && mayHaveSpent(r, account)).length;
    if (a.remaining - b.remaining <= could || out.length >= 20) return;
    out.push(spentTooMuch(RULE, `the account window of ${account}`, a, b, could, "the account's credentials (or ones whose account is not known)", "something else spent the account's ceiling (another account's requests, one request counted twice)"));
  }

  function remember(request: Request): void {
    if (requests.length >= REQUESTS_REMEMBERED) {
      const forgotten = requests.shift()!;
      // Judged before it is forgotten: every pair it may have been counted in.
      for (let i = 0; i < awaiting.length; ) {
        if (awaiting[i]!.a.span.start <= forgotten.span.end) judge(awaiting.splice(i, 1)[0]!);
        else i++;
      }
      forgottenUntil = Math.max(forgottenUntil, forgotten.span.end);
    }
    requests.push(request);
  }

  return {
    exchange(ex, how) {
      if (resetsState(ex)) {
        // The target's windows started anew: what was read of them before is not compared with what comes.
        for (const p of awaiting.splice(0)) judge(p);
        latest.clear();
        accounts.clear();
        return;
      }
      if (how.bare || !isV1(ex)) return;
      const credential = credentialOf(ex);
      // A request sent with no credential spends no account's window.
      if (credential === undefined) return;
      const span = spanOf(ex);
      remember({ span, credential: credential === "unclear" ? undefined : credential.digest });
      if (credential === "unclear") return;
      const who = whoamiOf(ex);
      if (who?.account !== undefined) accounts.set(credential.digest, who.account);
      const account = accounts.get(credential.digest);
      const b = credential.cookie || account === undefined ? undefined : readingOf(ex, how, span, "account");
      if (!b) return;
      const a = latest.get(account!);
      latest.set(account!, b);
      if (!a || !sameWindow(a, b)) return;
      if (b.remaining > a.remaining) {
        judged++;
        if (out.length < 20) {
          out.push({
            ...broke(RULE, `the account window of ${account} went up within one window, from r=${a.remaining} (t=${a.reset}) to r=${b.remaining} (t=${b.reset}) ${((b.span.end - a.span.end) / 1000).toFixed(1)} s later: the ceiling is shared by all the account's keys, so no credential sees more of it left than an earlier answer said (a counter per key, where spreading load over new keys helps)`),
            cite: pairCite(a, b),
          });
        }
        return;
      }
      // A request between them may be forgotten already: not judged.
      if (forgottenUntil >= a.span.start) return;
      awaiting.push({ account: account!, a, b });
      if (awaiting.length > PAIRS_AWAITING) judge(awaiting.shift()!);
    },
    findings() {
      // Judged at the end: a credential's whoami may come after its requests, a request in flight after a pair.
      for (const p of awaiting.splice(0)) judge(p);
      return out.length > 0 ? out : judged > 0 ? [held(RULE)] : [];
    },
  };
}

export const accountWindow: Invariant = { name: "the account's window is one ceiling over all its keys", rules: [RULE], watch };
