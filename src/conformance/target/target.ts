// The suite's only way to the server. Every request, whether a plain one, an event stream
// or one fetch would change (node:http), takes one path (`#send`): the credential's rate
// window is waited for rather than spending the caller's last requests, the request is
// counted under its credential's label, the masker learns what it carries, it is sent
// with the timeout, at most `--max-answer-bytes` of its answer are read, and the answer
// (and every frame of a stream) is handed to the run's sink. A server that cannot be
// reached, or stays silent SILENT_LIMIT times in a row, stops the run; one request left
// unanswered is a finding of the check that sent it. Requests are sequential.
import { isLoopbackHost } from "../../common/loopback.ts";
import { errorCodeOf, exchangeOf, isV1, said, type Exchange, type RequestSpec } from "./exchange.ts";
import { pairWindow, rateLimitPair, type Window } from "./rate-window.ts";
import type { SentRequest } from "./record.ts";
import type { Delivery, ExchangeSink } from "./sink.ts";
import { AnswerTooLarge, NoAnswer, QuotaStop, ServerSilent, ServerUnreachable, SILENT_LIMIT, unreachableCause } from "./stops.ts";
import { EventStream, type StreamHooks } from "./stream.ts";
import { sendFetch, sendHttp, TOO_LARGE, WireError, type Received } from "./wire.ts";

export interface TargetOptions {
  baseUrl: string;
  /** Requests (not streams) go here instead (a `prism proxy` in front of the server). */
  viaUrl?: string;
  apiKey: string;
  labels: Map<string, string>;
  /** Where every exchange and frame goes (the run's judge, Prism's second opinion, ...). */
  sink: ExchangeSink;
  /** Learns the credentials every request and answer carry (tokens obtained, codes, cookies), to mask them everywhere. */
  masker: { learn(sent: SentRequest, answer?: { headers: Iterable<[string, string]>; json?: unknown }): void };
  /** The target is a static mock: its RateLimit headers are examples, not windows to wait for. */
  staticMock: boolean;
  /** Requests to keep in every window (wait for the reset below this). */
  reserve: number;
  /** Most seconds the suite may wait in total for rate windows. */
  maxWaitSeconds: number;
  requestTimeoutMs: number;
  /** Most bytes of one answer read (of one frame of a stream); beyond, `AnswerTooLarge`. */
  maxAnswerBytes: number;
  wait: (seconds: number) => Promise<void>;
  /** `wait` moves the server's clock (the caller controls it) rather than sleeping: time costs nothing of --max-wait. */
  clockMoves: boolean;
  log?: (line: string) => void;
  /** Says what a long wait in real time is for (absent when waits are not in real time). */
  progress?: (line: string) => void;
}

/** A wait at least this long (seconds) is said as it starts ... */
const LONG_WAIT = 5;
/** ... and again every so many seconds while it lasts. */
const WAIT_TICK = 15;

/** The window a credential's last answer described, and when. */
interface WindowSeen extends Window {
  /** When it was seen (ms since the epoch). */
  at: number;
  /** The run's `elapsedSeconds` when it was seen. */
  elapsed: number;
}

/** What `openStream` takes: the stream's own parts of a request. */
export interface StreamSpec {
  key?: string | null;
  label?: string;
  lastEventId?: string;
  /** The query, with its `?`. */
  query?: string;
  rule: string;
  headers?: Record<string, string>;
}

let runSeq = 0;

export class Target {
  readonly counts = new Map<string, number>();
  waitedSeconds = 0;
  /** Seconds the suite waited or moved the target's clock, for any reason. */
  elapsedSeconds = 0;
  openStreams = new Set<EventStream>();
  /** Answers received (of any status): none means the server was never reached. */
  answered = 0;
  /** Requests in a row that got no answer within the timeout. */
  #silent = 0;
  #seq = 0;
  #run = `${Date.now().toString(36)}${(runSeq++).toString(36)}`;
  /** The window each credential's last answer described, by label: what `#throttle` waits for. */
  readonly #windows = new Map<string, WindowSeen>();

  constructor(readonly options: TargetOptions) {}

  get requestCount(): number {
    let n = 0;
    for (const v of this.counts.values()) n += v;
    return n;
  }

  nextRequestId(): string {
    return `conformance-${this.#run}-${String(++this.#seq).padStart(4, "0")}`;
  }

  labelOf(key: string | null | undefined): string {
    if (key === null) return "none";
    return this.options.labels.get(key ?? this.options.apiKey) ?? "given";
  }

  /** Resolves a link the server gave (absolute or relative) to a path on the target. */
  pathOf(link: string): string | undefined {
    try {
      const u = new URL(link, this.options.baseUrl);
      const base = new URL(this.options.baseUrl);
      const via = this.options.viaUrl ? new URL(this.options.viaUrl) : undefined;
      const sameHost = (a: URL, b: URL) => a.protocol === b.protocol && a.port === b.port && (a.hostname === b.hostname || (isLoopbackHost(a.hostname) && isLoopbackHost(b.hostname)));
      if (!sameHost(u, base) && !(via && sameHost(u, via))) return undefined;
      return u.pathname + u.search;
    } catch {
      return undefined;
    }
  }

  /** Sends a request; a 429 `rate_limited` is waited out and sent once more (unless `noRetry`). */
  async request(spec: RequestSpec): Promise<Exchange> {
    const first = (await this.#send(spec)).ex;
    if (first.status === 429 && errorCodeOf(first.json) === "rate_limited" && !spec.noRetry && !this.options.staticMock) {
      const retry = Number(first.headers.get("retry-after"));
      await this.#spendWait(Number.isFinite(retry) && retry >= 0 ? Math.max(1, Math.ceil(retry)) : 5, `the server answered 429 rate_limited`);
      return (await this.#send(spec)).ex;
    }
    return first;
  }

  /** Opens `GET /v1/events` (never through a proxy: Prism buffers event streams); `stream` when it opened. */
  async openStream(spec: StreamSpec, hooks: StreamHooks): Promise<{ stream?: EventStream; exchange: Exchange }> {
    const headers: Record<string, string> = { ...spec.headers, accept: "text/event-stream", ...(spec.lastEventId !== undefined ? { "last-event-id": spec.lastEventId } : {}) };
    const { ex, open } = await this.#send({ method: "GET", path: `/v1/events${spec.query ?? ""}`, key: spec.key, label: spec.label, headers, rule: spec.rule, direct: true, noRetry: true, stream: true });
    if (!open) return { exchange: ex };
    const sink = this.options.sink;
    const checking: StreamHooks = {
      onFrame: (frame, s) => {
        sink.frame?.(frame, ex);
        hooks.onFrame?.(frame, s);
      },
      onOverflow: (bytes) => sink.overflow?.(ex, spec.rule, `${ex.method} ${ex.path}: a frame too large: more than ${bytes} bytes without a frame's end (--max-answer-bytes); the stream was closed`),
    };
    const stream = new EventStream(open.response, open.controller, ex, checking, () => this.openStreams.delete(stream), this.options.maxAnswerBytes);
    this.openStreams.add(stream);
    return { stream, exchange: ex };
  }

  /** Marks `ex`'s request as invalid on purpose (a refusal check): Prism's request findings on it are expected. */
  deliberate(ex: Exchange): void {
    this.options.sink.deliberate?.(ex);
  }

  closeAll(): void {
    for (const s of [...this.openStreams]) s.close();
  }

  /**
   * Waits for `work`, which may take up to `seconds`: a long wait in real time is said on
   * the progress channel as it starts (`waiting <what>`) and every WAIT_TICK seconds after.
   */
  async waiting<T>(what: string, seconds: number, work: Promise<T>): Promise<T> {
    if (!this.#long(seconds)) return work;
    const started = Date.now();
    this.options.progress!(`waiting ${what}`);
    const tick = setInterval(() => this.options.progress!(`  still waiting (${Math.round((Date.now() - started) / 1000)} s of up to ${seconds} s)`), WAIT_TICK * 1000);
    try {
      return await work;
    } finally {
      clearInterval(tick);
    }
  }

  /** Lets `seconds` pass on the target (sleeping, or moving a clock the caller controls). */
  async elapse(seconds: number): Promise<void> {
    this.elapsedSeconds += seconds;
    await this.options.wait(seconds);
  }

  /** Whether `seconds` can pass: a clock move, or a wait within what is left of --max-wait. */
  canLetPass(seconds: number): boolean {
    return this.options.clockMoves || this.canWait(seconds);
  }

  /** Whether `seconds` of real time fit in what is left of --max-wait. */
  canWait(seconds: number): boolean {
    return this.waitedSeconds + seconds <= this.options.maxWaitSeconds;
  }

  /**
   * Waits in real time for `work`, which may take up to `seconds` (a server's own timer,
   * which no clock move hastens: the heartbeat), counting what it took against --max-wait.
   */
  async waitReal<T>(seconds: number, what: string, work: Promise<T>): Promise<T> {
    const started = Date.now();
    try {
      return await this.waiting(what, seconds, work);
    } finally {
      this.waitedSeconds += Math.ceil((Date.now() - started) / 1000);
    }
  }

  /**
   * Lets `seconds` pass for a rule that only shows over time (`what` it is for): the
   * server's clock moved when the caller controls it; else a wait in real time within what
   * is left of --max-wait, counted there as the rate windows' waits are. False, having
   * waited nothing, when that is not enough.
   */
  async letPass(seconds: number, what: string): Promise<boolean> {
    if (!this.canLetPass(seconds)) return false;
    if (!this.options.clockMoves) this.waitedSeconds += seconds;
    await this.waiting(`${seconds} s ${what} (${this.waitedSeconds} s of --max-wait ${this.options.maxWaitSeconds} s)`, seconds, this.elapse(seconds));
    return true;
  }

  /** The one way a request goes: throttled, counted, masked, sent, read within the limit, handed to the sink. */
  async #send(spec: RequestSpec): Promise<{ ex: Exchange; open?: Received["open"] }> {
    const method = (spec.method ?? "GET").toUpperCase();
    const label = spec.label ?? this.labelOf(spec.key);
    if (!spec.spendAll) await this.#throttle(label);
    const { headers, sent: sentRequestId } = this.#headers(spec);
    let body: string | Uint8Array | undefined;
    if (spec.bytes !== undefined) body = spec.bytes;
    else if (spec.raw !== undefined) body = spec.raw;
    else if (spec.json !== undefined) {
      body = JSON.stringify(spec.json);
      headers["content-type"] ??= "application/json";
    }
    // Reproduced at the server's own address, not through a proxy the suite put in front.
    const sent: SentRequest = { method, url: spec.url ?? this.options.baseUrl + spec.path, headers, ...(spec.lines ? { lines: spec.lines } : {}), ...(body !== undefined ? { body } : {}) };
    const described = `${method} ${spec.path}`;
    const raw = Boolean(spec.lines || spec.verbatim);
    // Repeated header lines and a path as written never go through a proxy (it may join the lines, resolve the path).
    const url = spec.url ?? (spec.direct || raw ? this.options.baseUrl : (this.options.viaUrl ?? this.options.baseUrl)) + spec.path;
    this.options.masker.learn(sent);
    const started = Date.now();
    let answer: Received | undefined;
    // One more attempt when the connection broke before any answer (a kept-alive socket
    // the server closed meanwhile); a timeout is not retried.
    for (let attempt = 0; !answer; attempt++) {
      this.#count(label);
      try {
        const wire = { url, timeoutMs: this.options.requestTimeoutMs, limit: this.options.maxAnswerBytes, headersOnly: spec.headersOnly, binary: spec.binary, asWritten: raw };
        answer = await (spec.stream && !raw ? sendFetch(sent, wire) : sendHttp(sent, wire));
      } catch (error) {
        if (error === TOO_LARGE) throw this.#unanswered(sent, this.#tooLarge(described, sent, spec.rule));
        const cause = error instanceof WireError ? error.cause : error;
        const timedOut = error instanceof WireError && error.timedOut;
        if (attempt > 0 || timedOut || unreachableCause(cause)) throw this.#unanswered(sent, this.#stop(described, cause, sent, timedOut, spec.url === undefined, spec.rule));
        this.options.log?.(`  ${described}: connection lost before an answer, sending again`);
      }
    }
    this.#heard();
    const ex = exchangeOf(sent, answer, { path: spec.path, label, sentRequestId, startedAt: started, ms: Date.now() - started });
    this.options.masker.learn(sent, { headers: ex.record.headers, json: ex.json });
    this.options.log?.(`  ${described}${spec.lines ? ` (${spec.lines.length} repeated header lines)` : ""} -> ${said(ex)}${answer.open ? " (stream)" : ""}`);
    const bare = Boolean(spec.bare);
    if (!bare && isV1(ex)) this.#sawWindow(ex);
    const delivery: Delivery = { rule: spec.rule, bare, elapsedSeconds: this.elapsedSeconds };
    this.options.sink.exchange(ex, delivery);
    return { ex, open: answer.open };
  }

  #headers(spec: { key?: string | null; authorization?: string; headers?: Record<string, string>; requestId?: string | false }): { headers: Record<string, string>; sent?: string } {
    const headers: Record<string, string> = {};
    const key = spec.key === undefined ? this.options.apiKey : spec.key;
    if (spec.authorization !== undefined) headers.authorization = spec.authorization;
    else if (key !== null) headers.authorization = `Bearer ${key}`;
    let sent: string | undefined;
    if (spec.requestId !== false) {
      sent = spec.requestId ?? this.nextRequestId();
      headers["x-request-id"] = sent;
    }
    Object.assign(headers, spec.headers);
    return { headers, sent };
  }

  #count(label: string): void {
    this.counts.set(label, (this.counts.get(label) ?? 0) + 1);
  }

  /** The window a /v1 answer described, remembered for its credential's next request. */
  #sawWindow(ex: Exchange): void {
    const w = pairWindow(rateLimitPair(ex.headers));
    if (w) this.#windows.set(ex.label, { ...w, at: Date.now(), elapsed: this.elapsedSeconds });
  }

  async #throttle(label: string): Promise<void> {
    const w = this.#windows.get(label);
    // A static mock's RateLimit headers are examples, not a window.
    if (!w || this.options.staticMock) return;
    const elapsed = (Date.now() - w.at) / 1000 + (this.elapsedSeconds - w.elapsed);
    if (w.remaining > this.options.reserve || elapsed >= w.reset) return;
    const seconds = Math.max(1, Math.ceil(w.reset - elapsed));
    await this.#spendWait(seconds, `the ${w.policy} window has ${w.remaining} requests left`);
    this.#windows.delete(label);
  }

  async #spendWait(seconds: number, why: string): Promise<void> {
    if (this.waitedSeconds + seconds > this.options.maxWaitSeconds) {
      throw new QuotaStop(`stopped to spare the caller's quota: ${why} and waiting ${seconds} s more would pass --max-wait ${this.options.maxWaitSeconds} s`);
    }
    this.waitedSeconds += seconds;
    const said = this.waiting(`${seconds} s for a rate window: ${why} (${this.waitedSeconds} s of --max-wait ${this.options.maxWaitSeconds} s)`, seconds, this.elapse(seconds));
    if (!this.#long(seconds)) this.options.log?.(`  waiting ${seconds} s: ${why}`);
    await said;
  }

  #long(seconds: number): boolean {
    return this.options.progress !== undefined && seconds >= LONG_WAIT;
  }

  /** An answer came, larger than the suite reads: a finding of the request's rule. */
  #tooLarge(described: string, sent: SentRequest, rule: string): AnswerTooLarge {
    this.#heard();
    return new AnswerTooLarge(described, this.options.maxAnswerBytes, sent, rule);
  }

  /** An answer came: the server is there. */
  #heard(): void {
    this.answered++;
    this.#silent = 0;
  }

  /** A request without an answer goes to the sink too, with what it stops. */
  #unanswered(sent: SentRequest, why: Error): Error {
    this.options.sink.unanswered?.(sent, why);
    return why;
  }

  /**
   * What a request that got no answer stops: the run, when the server cannot be reached
   * (`toTarget`: not a storage address an answer gave) or stayed silent `SILENT_LIMIT`
   * times in a row; else only the check that sent it.
   */
  #stop(described: string, error: unknown, sent: SentRequest, timedOut: boolean, toTarget: boolean, rule: string): Error {
    const origin = new URL(sent.url).origin;
    const cause = toTarget ? unreachableCause(error) : undefined;
    if (cause) return new ServerUnreachable(`${origin} cannot be reached: ${cause}`);
    if (timedOut && ++this.#silent >= SILENT_LIMIT) {
      return new ServerSilent(`${origin} stopped answering: ${this.#silent} requests in a row got no answer within ${this.options.requestTimeoutMs} ms (--timeout), the last ${described}`);
    }
    return new NoAnswer(described, error, sent, rule);
  }
}
