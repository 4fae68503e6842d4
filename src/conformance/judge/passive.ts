// Judging traffic the suite did not send (a client's, through the passive proxy, or a
// recorded HAR file): every API exchange goes to the same sinks an active run feeds (the
// answer checks' judge and every invariant's watch), and only what the trace proves is a
// finding:
//   - The client is not judged. Only answers are held to the contract, never requests:
//     a request the client got wrong that the server rightly refused answers a
//     well-formed refusal, and that is a pass. A request the contract refuses whatever the
//     state that the server took (2xx) is the server's finding (the `refused` check the
//     judge is given: run/passive/refused-input.ts).
//   - A finding that needs a premise the trace does not give is not made: a window's
//     countdown between two requests of one credential that overlapped (the server may
//     have counted them in either order), a Russian wording for an Accept-Language that
//     names Russian after another language, the echo of an X-Request-Id a header cannot
//     carry as sent. Each such case is counted under its reason (UNPROVED), not reported.
//   - The answer checks hold what is true whatever the account's state (the envelope, the
//     headers, a code's status, the schema of a record): a 402, 403 or 404 for an account
//     the proxy knows nothing of is judged on those alone, never on whether the account
//     deserved it (the probes that know the state, checks/, do not run here).
//   - No rule is "exercised" by a request here: a departure that no rule of its own owns
//     (an undeclared status, a header the contract does not name a rule for) is charged
//     to EP-4, the rule whose contract location is the document's paths (every operation
//     with its responses), and the failure names the operation.
// A finding cites the exchange that shows it (an invariant's, the exchanges it cites).
// What is kept is bounded: the exchanges cited in full (MAX_KEPT_EXCHANGES; later findings
// keep their curl line), the failures per rule (the results' own cap), the credentials
// named (MAX_CREDENTIALS), and every count is a number.
import type { Cited, Exchange } from "../target/exchange.ts";
import type { ExchangeRecord } from "../target/record.ts";
import type { Masker } from "../target/secrets.ts";
import type { ExchangeSink } from "../target/sink.ts";
import type { Frame } from "../target/stream.ts";
import type { Seen, TrafficSink } from "../target/passive/traffic.ts";
import type { AnswersSeen } from "./answer-checks/check.ts";
import { Results } from "./results.ts";

/** The rule a departure no rule owns is charged to in passive mode (no request exercised a rule). */
export const PASSIVE_CHARGE = "EP-4";

/** Exchanges the findings cite that are kept whole (request, answer: each a bounded prefix); later findings keep their curl line only. */
export const MAX_KEPT_EXCHANGES = 200;
/** Credentials whose rate window the countdown follows at once (the least recently seen is forgotten). */
export const MAX_CREDENTIALS = 10_000;
/** Findings per rule said as they happen (the results keep as many). */
const SAID_PER_RULE = 20;

/**
 * The simulator's control routes that move its clock or start it anew (`/_sim/clock`,
 * `/_sim/clock/advance`, `/_sim/reset`, `/_sim/scenario`, a sandbox's too): seen in the
 * trace, every rate window may have started again, so no countdown compares across them.
 * (A server's windows are otherwise taken to run on the wall clock.)
 */
const CLOCK_MOVE = /^POST (?:\/sandboxes\/[^/]+)?\/_sim\/(?:clock(?:\/advance)?|reset|scenario)(?:\?|$)/;

/** A finding the trace cannot prove, and why: counted under its reason, not reported. */
interface Unproved {
  reason: string;
  rules: readonly string[];
  holds(record: ExchangeRecord): boolean;
}

const PRINTABLE = /^[\x20-\x7e]*$/;

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return undefined;
  }
}

export const UNPROVED: readonly Unproved[] = [
  {
    reason: "the request's Accept-Language names Russian after another language (which of them a server answers in is its choice)",
    rules: ["ENV-3"],
    holds: (r) => {
      const accept = r.sent.headers["accept-language"] ?? "";
      return /\bru\b/i.test(accept) && !/^\s*ru\b/i.test(accept);
    },
  },
  {
    reason: "the server refused the Host it was sent, a name not its own (the client's, forwarded as it came; --rewrite-links sends the server its own)",
    rules: ["EP-4"],
    holds: (r) => r.status === 403 && r.sent.headers.host !== undefined && hostOf(r.sent.url) !== r.sent.headers.host.toLowerCase(),
  },
  {
    reason: "the client's X-Request-Id holds characters a header does not carry as they were sent (a server may replace it)",
    rules: ["EP-2", "ENV-4"],
    holds: (r) => !PRINTABLE.test(r.sent.headers["x-request-id"] ?? ""),
  },
];

/** A request the contract refuses whatever the state, answered 2xx: the rule it is charged to and why. */
export interface RefusedInput {
  rule: string;
  message: string;
}

/** What the passive judge saw, for the report. */
export interface PassiveTally {
  /** API exchanges judged. */
  judged: number;
  /** Exchanges passed to the trace only (preflights, storage, pages, the simulator's control). */
  bare: number;
  /** API answers whose body was not judged, by why. */
  bodyUnknown: Record<string, number>;
  /** Event-stream frames judged. */
  frames: number;
  /** Findings not made because the trace does not prove them, by reason. */
  unproved: Record<string, number>;
  /** Failures per rule, all of them (the report lists the first of each). */
  failures: Record<string, number>;
}

/** The results of passive judging: what is not proved is left out, the rest is masked as it comes, said once, and kept within bounds. */
export class PassiveResults extends Results {
  readonly tally: PassiveTally = { judged: 0, bare: 0, bodyUnknown: {}, frames: 0, unproved: {}, failures: {} };
  readonly #said = new Map<string, Set<string>>();
  #kept = 0;

  constructor(
    masker: Masker,
    only: readonly string[] | undefined,
    /** Says a finding as it happens (masked), the first SAID_PER_RULE of each rule. */
    private readonly onFinding?: (rule: string, message: string, cited?: Cited) => void,
  ) {
    super(masker, only);
  }

  override fail(id: string, message: string, cited?: Cited): void {
    const record = cited?.exchange;
    const unproved = record ? UNPROVED.find((u) => u.rules.includes(id) && u.holds(record)) : undefined;
    if (unproved) {
      this.tally.unproved[unproved.reason] = (this.tally.unproved[unproved.reason] ?? 0) + 1;
      return;
    }
    if (!this.selected(id)) return;
    this.tally.failures[id] = (this.tally.failures[id] ?? 0) + 1;
    // The exchange's own credentials are masked wherever they show (the masker remembers a bounded number).
    for (const r of [record, ...(cited?.steps ?? []).map((s) => s.cited.exchange)]) if (r) this.masker.learn(r.sent, { headers: r.headers, json: jsonOf(r.body.text) });
    const masked = this.masker.text(message);
    const said = this.#said.get(id) ?? new Set<string>();
    this.#said.set(id, said);
    const key = `${masked}\n${cited?.request ?? ""}`;
    if (said.size < SAID_PER_RULE && !said.has(key)) {
      said.add(key);
      this.onFinding?.(id, masked, cited);
    }
    super.fail(id, masked, this.#bounded(cited));
  }

  /** A citation within the bound: past MAX_KEPT_EXCHANGES exchanges kept, its requests keep their reproduction only. */
  #bounded(cited: Cited | undefined): Cited | undefined {
    if (!cited) return cited;
    const wanted = (cited.exchange ? 1 : 0) + (cited.steps ?? []).filter((s) => s.cited.exchange).length;
    if (this.#kept + wanted <= MAX_KEPT_EXCHANGES) {
      this.#kept += wanted;
      return cited;
    }
    const strip = (c: Cited): Cited => {
      const { exchange, ...rest } = c;
      return exchange ? { ...rest, sent: exchange.sent } : rest;
    };
    return { ...strip(cited), ...(cited.steps ? { steps: cited.steps.map((s) => ({ step: s.step, cited: strip(s.cited) })) } : {}) };
  }

  /** Says, per rule that failed, how often it failed in all (the report lists the first). */
  countFailures(): void {
    for (const [id, n] of Object.entries(this.tally.failures)) if (n > 1) this.note(id, `failed ${n} times in the traffic judged (the first ${SAID_PER_RULE} different ones are listed)`);
  }
}

function jsonOf(text: string): unknown {
  const t = text.trimStart();
  if (!t.startsWith("{") && !t.startsWith("[")) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The sink of outside traffic: hands each exchange, as the answer checks and the
 * invariants take it (an active run's `Delivery`), to the run's sinks. An answer whose body
 * was not judged goes to the trace as bare. (Overlapping requests of one credential, which
 * the server may have counted in either order, are never compared: `sameWindow` asks that
 * one was sent after the other was answered.)
 */
export class PassiveJudge implements TrafficSink {
  constructor(
    private readonly sink: ExchangeSink,
    private readonly seen: AnswersSeen,
    private readonly results: PassiveResults,
    /** Input the contract refuses whatever the state, in an exchange answered 2xx (undefined: none). */
    private readonly refused: (ex: Exchange) => RefusedInput | undefined = () => undefined,
  ) {}

  exchange(ex: Exchange, seen: Seen): void {
    const tally = this.results.tally;
    const judged = !seen.bare && seen.bodyUnknown === undefined;
    if (seen.bare) tally.bare++;
    else if (seen.bodyUnknown) tally.bodyUnknown[seen.bodyUnknown] = (tally.bodyUnknown[seen.bodyUnknown] ?? 0) + 1;
    else tally.judged++;
    if (!judged && CLOCK_MOVE.test(`${ex.method} ${ex.path}`) && ex.status < 300) this.seen.windows.clear();
    this.sink.exchange(ex, { rule: PASSIVE_CHARGE, bare: !judged, elapsedSeconds: seen.elapsedSeconds });
    // The countdown check puts each credential's latest window last: the least recently seen goes.
    const windows = this.seen.windows;
    if (windows.size > MAX_CREDENTIALS) windows.delete(windows.keys().next().value!);
    // The one thing a request proves on its own: input the contract refuses whatever the state, taken.
    const refused = judged ? this.refused(ex) : undefined;
    if (refused) this.results.fail(refused.rule, refused.message, ex.cite);
    // Refusals asked for in Russian: only which codes carried Russian matters, not how often.
    if (this.seen.localisation.length > 1_000) {
      const distinct = new Map(this.seen.localisation.map((l) => [`${l.code} ${l.russian}`, l]));
      this.seen.localisation.splice(0, this.seen.localisation.length, ...distinct.values());
    }
  }

  frame(frame: Frame, opened: Exchange): void {
    this.results.tally.frames++;
    this.sink.frame?.(frame, opened);
  }

  overflow(opened: Exchange, bytes: number): void {
    this.sink.overflow?.(opened, "EVT-5", `${opened.method} ${opened.path}: a frame larger than ${bytes} bytes (--max-answer-bytes); the stream was read no further (it still reached the client)`);
  }
}
