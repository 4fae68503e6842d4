// The suite's only way to the server. Every answer is handed to the judge the runner gives
// (the answer checks of answer-checks/: the contract, the envelope, the request id, the
// RateLimit pair, ...). Requests are sequential; before each one the RateLimit pair of
// the credential's last answer is read and the suite waits for the window to reset rather
// than spend the caller's last requests.
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { matchOperation, type Operation } from "../../contract/index.ts";
import { errorCodeOf, operationLabel } from "../kit/describe.ts";
import type { ExchangeRecord, SentRequest } from "./record.ts";
import type { Cited } from "../judge/results.ts";
import { EventStream, type Frame, type StreamHooks } from "./stream.ts";
import { AnswerTooLarge, NoAnswer, QuotaStop, ServerSilent, ServerUnreachable, SILENT_LIMIT, unreachableCause } from "./stops.ts";

export interface Exchange {
  method: string;
  /** Path and query as sent. */
  path: string;
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body when it is JSON. */
  json: any;
  /** The body as bytes, when the request asked for them (`binary`). */
  bytes?: Uint8Array;
  operation?: Operation;
  /** Which credential was used (`main`, `other`, a role, or `none`). */
  label: string;
  sentRequestId?: string;
  /** The request as sent and the answer, for a reproduction (curl, HAR). */
  record: ExchangeRecord;
  cite: Cited;
}

export interface RequestSpec {
  method?: string;
  /** Path with query, e.g. `/v1/generations?limit=2`. */
  path: string;
  /** The credential: a key secret, `null` for none; default the main key. */
  key?: string | null;
  /** Label of the credential for the request count (default from the key). */
  label?: string;
  /** A raw Authorization header (overrides `key`). */
  authorization?: string;
  headers?: Record<string, string>;
  /** A JSON body. */
  json?: unknown;
  /** A body sent as is. */
  raw?: string;
  /** The rule the request exercises; departures no rule owns are charged to it. */
  rule: string;
  /** `false`: send no X-Request-Id (default: a fresh one). A string: send that one. */
  requestId?: string | false;
  /** Read only the status and headers (result files). */
  headersOnly?: boolean;
  /** Do not wait and resend after a 429. */
  noRetry?: boolean;
  /** Not an API request (a CORS preflight): counted, not checked against the contract. */
  bare?: boolean;
  /** Never through the proxy (Prism answers a body that is not JSON itself). */
  direct?: boolean;
  /**
   * An absolute address outside the API (an upload ticket's storage `url`): sent there
   * as is, never through the proxy; `path` then only names it in the report. Use with
   * `bare` (such an answer is not an API answer).
   */
  url?: string;
  /** A binary body sent as is (an uploaded file). */
  bytes?: Uint8Array;
  /** Keep the answer's body as bytes (`Exchange.bytes`): a file to compare. */
  binary?: boolean;
  /**
   * Header lines sent besides the others, each a line of its own (two `Authorization`
   * headers): fetch joins a header given twice into one, so these requests go through
   * node:http, and never through a proxy (it may join them too).
   */
  lines?: [string, string][];
  /**
   * Send the path byte for byte (through node:http): fetch resolves dot segments
   * (`/v1/x/../whoami`) before sending, as a URL parser does.
   */
  verbatim?: boolean;
}

export interface PrismFinding {
  request: string;
  requestId?: string;
  location: string[];
  severity: string;
  code: string | number;
  message: string;
  /** The suite sent an invalid request on purpose (a refusal check). */
  deliberate: boolean;
}

/** What the suite does with every answer and frame (answer-checks/), and the windows it remembers. */
export interface Judge {
  answer(ex: Exchange, how: { rule: string; acceptLanguage?: string; elapsedSeconds: number }): void;
  frame(frame: Frame, opened: Exchange): void;
  /** A stream that `opened` opened sent a frame larger than the suite reads: a failure of `rule`. */
  overflow(opened: Exchange, rule: string, message: string): void;
  /** The RateLimit window each credential's last answer described (answer-checks/rate-limit.ts keeps it). */
  readonly seen: { readonly windows: Map<string, { policy: string; remaining: number; reset: number; at: number; elapsed: number }> };
}

export interface TargetOptions {
  baseUrl: string;
  /** Requests (not streams) go here instead (a `prism proxy` in front of the server). */
  viaUrl?: string;
  apiKey: string;
  labels: Map<string, string>;
  judge: Judge;
  /** Learns the credentials every request and answer carry (tokens obtained, codes, cookies), to mask them everywhere. */
  masker: { learn(sent: SentRequest, answer?: { headers: Iterable<[string, string]>; json?: unknown }): void };
  /** The target is a static mock: skip observations that need state (echo, counters). */
  staticMock: boolean;
  /** Requests to keep in every window (wait for the reset below this). */
  reserve: number;
  /** Most seconds the suite may wait in total for rate windows. */
  maxWaitSeconds: number;
  requestTimeoutMs: number;
  /** Most bytes of one answer read (of one frame of a stream); beyond, `AnswerTooLarge`. */
  maxAnswerBytes: number;
  wait: (seconds: number) => Promise<void>;
  log?: (line: string) => void;
  /** Says what a long wait in real time is for (absent when waits are not in real time). */
  progress?: (line: string) => void;
}

/** A wait at least this long (seconds) is said as it starts ... */
const LONG_WAIT = 5;
/** ... and again every so many seconds while it lasts. */
const WAIT_TICK = 15;

let runSeq = 0;

export class Target {
  readonly counts = new Map<string, number>();
  readonly prism: PrismFinding[] = [];
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
      const sameHost = (a: URL, b: URL) => a.protocol === b.protocol && a.port === b.port && (a.hostname === b.hostname || (isLoopback(a.hostname) && isLoopback(b.hostname)));
      if (!sameHost(u, base) && !(via && sameHost(u, via))) return undefined;
      return u.pathname + u.search;
    } catch {
      return undefined;
    }
  }

  async #throttle(label: string): Promise<void> {
    const w = this.options.judge.seen.windows.get(label);
    // A static mock's RateLimit headers are examples, not a window.
    if (!w || this.options.staticMock) return;
    const elapsed = (Date.now() - w.at) / 1000 + (this.elapsedSeconds - w.elapsed);
    if (w.remaining > this.options.reserve || elapsed >= w.reset) return;
    const seconds = Math.max(1, Math.ceil(w.reset - elapsed));
    await this.#spendWait(seconds, `the ${w.policy} window has ${w.remaining} requests left`);
    this.options.judge.seen.windows.delete(label);
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

  #count(label: string): void {
    this.counts.set(label, (this.counts.get(label) ?? 0) + 1);
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

  async request(spec: RequestSpec): Promise<Exchange> {
    const first = await this.#once(spec);
    if (first.status === 429 && errorCodeOf(first.json) === "rate_limited" && !spec.noRetry && !this.options.staticMock) {
      const retry = Number(first.headers.get("retry-after"));
      await this.#spendWait(Number.isFinite(retry) && retry >= 0 ? Math.max(1, Math.ceil(retry)) : 5, `the server answered 429 rate_limited`);
      return this.#once(spec);
    }
    return first;
  }

  async #once(spec: RequestSpec): Promise<Exchange> {
    const method = (spec.method ?? "GET").toUpperCase();
    const label = spec.label ?? this.labelOf(spec.key);
    await this.#throttle(label);
    const { headers, sent } = this.#headers(spec);
    let body: BodyInit | undefined;
    if (spec.bytes !== undefined) body = spec.bytes as Uint8Array<ArrayBuffer>;
    else if (spec.raw !== undefined) body = spec.raw;
    else if (spec.json !== undefined) {
      body = JSON.stringify(spec.json);
      headers["content-type"] ??= "application/json";
    }
    const url = spec.url ?? (spec.direct ? this.options.baseUrl : (this.options.viaUrl ?? this.options.baseUrl)) + spec.path;
    const described = `${method} ${spec.path}`;
    const started = Date.now();
    const sentBody = spec.bytes ?? (typeof body === "string" ? body : undefined);
    // Reproduced at the server's own address, not through a proxy the suite put in front.
    const request: SentRequest = { method, url: spec.url ?? this.options.baseUrl + spec.path, headers, ...(spec.lines ? { lines: spec.lines } : {}), ...(sentBody !== undefined ? { body: sentBody } : {}) };
    this.options.masker.learn(request);
    if (spec.lines || spec.verbatim) {
      this.#count(label);
      let answer: { status: number; headers: Headers; text: string };
      try {
        answer = await sendLines(request, this.options.requestTimeoutMs, this.options.maxAnswerBytes, spec.headersOnly);
      } catch (error) {
        if (error === TOO_LARGE) throw this.#tooLarge(described, request, spec.rule);
        throw this.#unanswered(described, error, request, /timed out after/.test(String((error as Error)?.message)), true, spec.rule);
      }
      this.#heard();
      const ex = this.#exchange(method, spec.path, answer.status, answer.headers, answer.text, label, sent, request, started);
      this.options.log?.(`  ${described}${spec.lines ? ` (${spec.lines.length} repeated header lines)` : ""} -> ${answer.status}${ex.json?.error?.code ? ` ${ex.json.error.code}` : ""}`);
      if (!spec.bare) this.#judge(ex, spec.rule, headers["accept-language"]);
      return ex;
    }
    let res: Response | undefined;
    let text = "";
    let bytes: Uint8Array | undefined;
    // One more attempt when the connection broke before any answer (a kept-alive socket
    // the server closed meanwhile); a timeout is not retried.
    for (let attempt = 0; !res; attempt++) {
      this.#count(label);
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new Error(`timed out after ${this.options.requestTimeoutMs} ms`)), this.options.requestTimeoutMs);
      try {
        const answer = await fetch(url, { method, headers, body, redirect: "manual", signal: controller.signal });
        if (spec.headersOnly && answer.ok) await answer.body?.cancel().catch(() => undefined);
        else {
          const read = await readCapped(answer, this.options.maxAnswerBytes);
          if (!spec.binary) text = new TextDecoder().decode(read);
          else {
            bytes = read;
            if (/json|text/.test(answer.headers.get("content-type") ?? "")) text = new TextDecoder().decode(bytes);
          }
        }
        res = answer;
      } catch (error) {
        if (error === TOO_LARGE) throw this.#tooLarge(described, request, spec.rule);
        if (attempt > 0 || controller.signal.aborted || unreachableCause(error)) throw this.#unanswered(described, error, request, controller.signal.aborted, spec.url === undefined, spec.rule);
        this.options.log?.(`  ${described}: connection lost before an answer, sending again`);
      } finally {
        clearTimeout(timer);
      }
    }
    this.#heard();
    const ex = this.#exchange(method, spec.path, res.status, res.headers, text, label, sent, request, started);
    if (bytes) ex.bytes = bytes;
    this.options.log?.(`  ${described} -> ${res.status}${ex.json?.error?.code ? ` ${ex.json.error.code}` : ""}`);
    if (!spec.bare) this.#judge(ex, spec.rule, headers["accept-language"]);
    return ex;
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

  /**
   * What a request that got no answer stops: the run, when the server cannot be reached
   * (`toTarget`: not a storage address an answer gave) or stayed silent `SILENT_LIMIT`
   * times in a row; else only the check that sent it.
   */
  #unanswered(described: string, error: unknown, sent: SentRequest, timedOut: boolean, toTarget: boolean, rule: string): Error {
    const origin = new URL(sent.url).origin;
    const cause = toTarget ? unreachableCause(error) : undefined;
    if (cause) return new ServerUnreachable(`${origin} cannot be reached: ${cause}`);
    if (timedOut && ++this.#silent >= SILENT_LIMIT) {
      return new ServerSilent(`${origin} stopped answering: ${this.#silent} requests in a row got no answer within ${this.options.requestTimeoutMs} ms (--timeout), the last ${described}`);
    }
    return new NoAnswer(described, error, sent, rule);
  }

  #exchange(method: string, path: string, status: number, headers: Headers, text: string, label: string, sent: string | undefined, request: SentRequest, started: number): Exchange {
    let json: unknown;
    if ((headers.get("content-type") ?? "").includes("json") && text.length > 0) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    const operation = matchOperation(method, path.split("?")[0]!)?.operation;
    const echoed = headers.get("x-request-id") ?? undefined;
    const bodyId = (json as { error?: { request_id?: unknown } } | undefined)?.error?.request_id;
    const requestId = echoed ?? (typeof bodyId === "string" ? bodyId : undefined) ?? sent;
    const record: ExchangeRecord = { sent: request, status, headers: [...headers], text, startedAt: new Date(started).toISOString(), ms: Date.now() - started };
    this.options.masker.learn(request, { headers: record.headers, json });
    return {
      method,
      path,
      status,
      headers,
      text,
      json,
      operation,
      label,
      sentRequestId: sent,
      record,
      cite: { requestId, request: `${method} ${path} -> ${status}`, ...(operation ? { operation: operationLabel(operation) } : {}), exchange: record },
    };
  }

  /** Marks the Prism findings of the last answer as expected (the request was invalid on purpose). */
  deliberate(ex: Exchange): void {
    for (const f of this.prism) if (f.requestId === ex.cite.requestId && f.location[0] === "request") f.deliberate = true;
  }

  /** Hands an answer to the judge (and notes what a `prism proxy` in front said of it). */
  #judge(ex: Exchange, rule: string, acceptLanguage?: string): void {
    this.#prismFindings(ex);
    this.options.judge.answer(ex, { rule, acceptLanguage, elapsedSeconds: this.elapsedSeconds });
  }

  #prismFindings(ex: Exchange): void {
    const raw = ex.headers.get("sl-violations");
    if (!raw) return;
    let list: unknown;
    try {
      list = JSON.parse(raw);
    } catch {
      return;
    }
    if (!Array.isArray(list)) return;
    for (const v of list as { location?: string[]; severity?: string; code?: string | number; message?: string }[]) {
      this.prism.push({
        request: ex.cite.request ?? `${ex.method} ${ex.path}`,
        requestId: ex.cite.requestId,
        location: Array.isArray(v.location) ? v.location.map(String) : [],
        severity: String(v.severity ?? ""),
        code: v.code ?? "",
        message: String(v.message ?? ""),
        deliberate: false,
      });
    }
  }

  /** Opens `GET /v1/events` (never through a proxy: Prism buffers event streams). */
  async openStream(spec: { key?: string | null; label?: string; lastEventId?: string; query?: string; rule: string; headers?: Record<string, string> }, hooks: StreamHooks): Promise<{ stream?: EventStream; exchange: Exchange }> {
    const label = spec.label ?? this.labelOf(spec.key);
    await this.#throttle(label);
    const { headers, sent } = this.#headers({ key: spec.key, headers: spec.headers });
    headers.accept = "text/event-stream";
    if (spec.lastEventId !== undefined) headers["last-event-id"] = spec.lastEventId;
    const path = `/v1/events${spec.query ?? ""}`;
    this.options.masker.learn({ method: "GET", url: this.options.baseUrl + path, headers });
    const started = Date.now();
    this.#count(label);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`timed out after ${this.options.requestTimeoutMs} ms`)), this.options.requestTimeoutMs);
    let res: Response;
    try {
      res = await fetch(this.options.baseUrl + path, { headers, signal: controller.signal });
    } catch (error) {
      clearTimeout(timer);
      throw this.#unanswered(`GET ${path}`, error, { method: "GET", url: this.options.baseUrl + path, headers }, controller.signal.aborted, true, spec.rule);
    }
    clearTimeout(timer);
    this.#heard();
    const isStream = res.status === 200 && (res.headers.get("content-type") ?? "").startsWith("text/event-stream");
    let text = "";
    if (!isStream) {
      try {
        text = new TextDecoder().decode(await readCapped(res, this.options.maxAnswerBytes));
      } catch (error) {
        if (error === TOO_LARGE) throw this.#tooLarge(`GET ${path}`, { method: "GET", url: this.options.baseUrl + path, headers }, spec.rule);
      }
    }
    const ex = this.#exchange("GET", path, res.status, res.headers, text, label, sent, { method: "GET", url: this.options.baseUrl + path, headers }, started);
    this.options.log?.(`  GET ${path} -> ${res.status}${ex.json?.error?.code ? ` ${ex.json.error.code}` : ""}${isStream ? " (stream)" : ""}`);
    this.#judge(ex, spec.rule);
    if (!isStream) return { exchange: ex };
    const checking: StreamHooks = {
      onFrame: (frame, s) => {
        this.options.judge.frame(frame, ex);
        hooks.onFrame?.(frame, s);
      },
      onOverflow: (bytes) => this.options.judge.overflow(ex, spec.rule, `GET ${path}: a frame too large: more than ${bytes} bytes without a frame's end (--max-answer-bytes); the stream was closed`),
    };
    const stream = new EventStream(res, controller, ex, checking, () => this.openStreams.delete(stream), this.options.maxAnswerBytes);
    this.openStreams.add(stream);
    return { stream, exchange: ex };
  }

  closeAll(): void {
    for (const s of [...this.openStreams]) s.close();
  }
}

/** Thrown by the readers below when an answer passes the most bytes the suite reads. */
const TOO_LARGE = Symbol("answer too large");

/** The body of an answer, read up to `limit` bytes; beyond (or a Content-Length beyond), the rest is not read and `TOO_LARGE` is thrown. */
async function readCapped(res: Response, limit: number): Promise<Uint8Array> {
  if (Number(res.headers.get("content-length") ?? 0) > limit) {
    await res.body?.cancel().catch(() => undefined);
    throw TOO_LARGE;
  }
  const reader = res.body?.getReader();
  if (!reader) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw TOO_LARGE;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * Sends a request through node:http: its path as given (no dot segment resolved) and some
 * header lines repeated (an array value goes as one line each); at most `limit` bytes of
 * the answer are read.
 */
function sendLines(sent: SentRequest, timeoutMs: number, limit: number, headersOnly = false): Promise<{ status: number; headers: Headers; text: string }> {
  const headers: Record<string, string | string[]> = { ...sent.headers };
  for (const [name, value] of sent.lines ?? []) {
    const k = name.toLowerCase();
    const had = headers[k];
    headers[k] = had === undefined ? [value] : [...(Array.isArray(had) ? had : [had]), value];
  }
  const body = sent.body === undefined ? undefined : typeof sent.body === "string" ? Buffer.from(sent.body) : Buffer.from(sent.body);
  if (body) headers["content-length"] = String(body.length);
  const send = sent.url.startsWith("https:") ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const path = sent.url.slice(new URL(sent.url).origin.length) || "/";
    const req = send(sent.url, { method: sent.method, headers, path }, (res) => {
      const answered = (text: string) => {
        const answer = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) answer.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        resolve({ status: res.statusCode ?? 0, headers: answer, text });
      };
      // A success whose body is not wanted (it may be an event stream that never ends).
      if (headersOnly && (res.statusCode ?? 0) < 300) {
        res.destroy();
        answered("");
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size <= limit) chunks.push(c);
        else {
          req.destroy();
          reject(TOO_LARGE);
        }
      });
      res.on("end", () => answered(Buffer.concat(chunks).toString("utf8")));
      res.on("error", reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`timed out after ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(body);
  });
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]" || host === "::1";
}
