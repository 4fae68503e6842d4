// The suite's only way to the server. Every answer goes through `checkAnswer` (each
// departure is charged to the seed rule its contract location encodes) and through the
// observations that hold for every answer (request id echo, envelope, snake_case,
// centi-credits, RateLimit form). Requests are sequential; before each one the
// RateLimit pair of the previous answer is read and the suite waits for the window to
// reset rather than spend the caller's last requests.
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { parseList, Token, type Item } from "structured-headers";
import { checkAnswer, errorCodes, matchOperation, responseFor, schemaValidator, statusOf, type JsonObject, type Operation } from "../contract/index.ts";
import { bodyRuleOf, classify, envelopeRule, errorCodeOf, isCollection, isUnrouted, notRouted, operationLabel, PAGED_OPS, RECORD_OPS } from "./classify.ts";
import type { ExchangeRecord, SentRequest } from "./exchange-record.ts";
import type { Cited, Results } from "./results.ts";
import { EventStream, type Frame, type StreamHooks } from "./sse.ts";

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

export interface TargetOptions {
  baseUrl: string;
  /** Requests (not streams) go here instead (a `prism proxy` in front of the server). */
  viaUrl?: string;
  apiKey: string;
  labels: Map<string, string>;
  results: Results;
  /** The target is a static mock: skip observations that need state (echo, counters). */
  staticMock: boolean;
  /** Requests to keep in every window (wait for the reset below this). */
  reserve: number;
  /** Most seconds the suite may wait in total for rate windows. */
  maxWaitSeconds: number;
  requestTimeoutMs: number;
  wait: (seconds: number) => Promise<void>;
  log?: (line: string) => void;
  /** Runs on every answer after the observations here (the properties of every answer kept elsewhere). */
  watch?: (ex: Exchange) => void;
}

/** Thrown when continuing would exhaust the caller's quota beyond the allowed waiting. */
export class QuotaStop extends Error {}

/** A network failure or timeout: the server did not answer. */
export class NoAnswer extends Error {
  constructor(
    readonly request: string,
    cause: unknown,
    /** What was sent, for a reproduction. */
    readonly sent?: SentRequest,
  ) {
    super(`${request}: no answer (${cause instanceof Error ? cause.message : String(cause)})`);
  }
}

interface WindowSeen {
  policy: string;
  remaining: number;
  reset: number;
  quota?: number;
  window?: number;
  at: number;
  /** `elapsedSeconds` when it was seen (time the suite waited or moved the clock). */
  elapsed: number;
}

const envelopeValid = schemaValidator("ErrorEnvelope");
const frameValid = schemaValidator("EventFrame");
const CYRILLIC = /[\u0400-\u04FF]/;
const STACK = [
  /\n\s+at [^\n]+:\d+:\d+/,
  /\bat [\w$.<>]+ \([^)]*:\d+:\d+\)/,
  /node_modules\//,
  /Traceback \(most recent call last\)/,
  /\b(?:SyntaxError|TypeError|ReferenceError|RangeError):/,
  /\bFST_[A-Z_]+\b/,
  // V8's JSON.parse messages (Node 20: "... in JSON at position 5"; Node 22+: `"x" is not valid JSON`).
  /in JSON at position \d+|Unexpected end of JSON input|Unexpected token\b|"[^"]*" is not valid JSON|Expected property name or/,
  /\bException in thread\b|\bjava\.lang\./,
];
const SNAKE = /^[a-z0-9]+(?:_[a-z0-9]+)*$/;
/** Maps whose keys are not field names (HTTP header names of an upload ticket). */
const MAP_FIELDS = new Set(["headers"]);

let runSeq = 0;

export class Target {
  readonly counts = new Map<string, number>();
  readonly prism: PrismFinding[] = [];
  readonly policiesSeen = new Set<string>();
  readonly windowsSeen = new Map<string, number>();
  waitedSeconds = 0;
  /** Seconds the suite waited or moved the target's clock, for any reason. */
  elapsedSeconds = 0;
  openStreams = new Set<EventStream>();
  /** Answers seen per operation and status (the coverage table). */
  readonly statusesSeen = new Map<string, Map<number, number>>();
  /** Refusals asked for in Russian (`Accept-Language: ru`): their code and whether `user_message` was Russian. */
  readonly localisation: { code: string; russian: boolean }[] = [];
  #seq = 0;
  #run = `${Date.now().toString(36)}${(runSeq++).toString(36)}`;
  #windows = new Map<string, WindowSeen>();

  constructor(readonly o: TargetOptions) {}

  get results(): Results {
    return this.o.results;
  }

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
    return this.o.labels.get(key ?? this.o.apiKey) ?? "given";
  }

  /** Resolves a link the server gave (absolute or relative) to a path on the target. */
  pathOf(link: string): string | undefined {
    try {
      const u = new URL(link, this.o.baseUrl);
      const base = new URL(this.o.baseUrl);
      const via = this.o.viaUrl ? new URL(this.o.viaUrl) : undefined;
      const sameHost = (a: URL, b: URL) => a.protocol === b.protocol && a.port === b.port && (a.hostname === b.hostname || (isLoopback(a.hostname) && isLoopback(b.hostname)));
      if (!sameHost(u, base) && !(via && sameHost(u, via))) return undefined;
      return u.pathname + u.search;
    } catch {
      return undefined;
    }
  }

  async #throttle(label: string): Promise<void> {
    const w = this.#windows.get(label);
    // A static mock's RateLimit headers are examples, not a window.
    if (!w || this.o.staticMock) return;
    const elapsed = (Date.now() - w.at) / 1000 + (this.elapsedSeconds - w.elapsed);
    if (w.remaining > this.o.reserve || elapsed >= w.reset) return;
    const seconds = Math.max(1, Math.ceil(w.reset - elapsed));
    await this.#spendWait(seconds, `the ${w.policy} window has ${w.remaining} requests left`);
    this.#windows.delete(label);
  }

  async #spendWait(seconds: number, why: string): Promise<void> {
    if (this.waitedSeconds + seconds > this.o.maxWaitSeconds) {
      throw new QuotaStop(`stopped to spare the caller's quota: ${why} and waiting ${seconds} s more would pass --max-wait ${this.o.maxWaitSeconds} s`);
    }
    this.o.log?.(`  waiting ${seconds} s: ${why}`);
    this.waitedSeconds += seconds;
    await this.elapse(seconds);
  }

  /** Lets `seconds` pass on the target (sleeping, or moving a clock the caller controls). */
  async elapse(seconds: number): Promise<void> {
    this.elapsedSeconds += seconds;
    await this.o.wait(seconds);
  }

  #count(label: string): void {
    this.counts.set(label, (this.counts.get(label) ?? 0) + 1);
  }

  #headers(spec: { key?: string | null; authorization?: string; headers?: Record<string, string>; requestId?: string | false }): { headers: Record<string, string>; sent?: string } {
    const headers: Record<string, string> = {};
    const key = spec.key === undefined ? this.o.apiKey : spec.key;
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
    if (first.status === 429 && errorCodeOf(first.json) === "rate_limited" && !spec.noRetry && !this.o.staticMock) {
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
    const url = spec.url ?? (spec.direct ? this.o.baseUrl : (this.o.viaUrl ?? this.o.baseUrl)) + spec.path;
    const described = `${method} ${spec.path}`;
    const started = Date.now();
    const sentBody = spec.bytes ?? (typeof body === "string" ? body : undefined);
    // Reproduced at the server's own address, not through a proxy the suite put in front.
    const request: SentRequest = { method, url: spec.url ?? this.o.baseUrl + spec.path, headers, ...(spec.lines ? { lines: spec.lines } : {}), ...(sentBody !== undefined ? { body: sentBody } : {}) };
    if (spec.lines || spec.verbatim) {
      this.#count(label);
      let answer: { status: number; headers: Headers; text: string };
      try {
        answer = await sendLines(request, this.o.requestTimeoutMs, spec.headersOnly);
      } catch (error) {
        throw new NoAnswer(described, error, request);
      }
      const ex = this.#exchange(method, spec.path, answer.status, answer.headers, answer.text, label, sent, request, started);
      this.o.log?.(`  ${described}${spec.lines ? ` (${spec.lines.length} repeated header lines)` : ""} -> ${answer.status}${ex.json?.error?.code ? ` ${ex.json.error.code}` : ""}`);
      if (!spec.bare) this.observe(ex, spec.rule, { acceptLanguage: headers["accept-language"], deliberate: false });
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
      const timer = setTimeout(() => controller.abort(new Error(`timed out after ${this.o.requestTimeoutMs} ms`)), this.o.requestTimeoutMs);
      try {
        const answer = await fetch(url, { method, headers, body, redirect: "manual", signal: controller.signal });
        if (spec.headersOnly && answer.ok) await answer.body?.cancel().catch(() => undefined);
        else if (spec.binary) {
          bytes = new Uint8Array(await answer.arrayBuffer());
          if (/json|text/.test(answer.headers.get("content-type") ?? "")) text = new TextDecoder().decode(bytes);
        } else text = await answer.text();
        res = answer;
      } catch (error) {
        if (attempt > 0 || controller.signal.aborted) throw new NoAnswer(described, error, request);
        this.o.log?.(`  ${described}: connection lost before an answer, sending again`);
      } finally {
        clearTimeout(timer);
      }
    }
    const ex = this.#exchange(method, spec.path, res.status, res.headers, text, label, sent, request, started);
    if (bytes) ex.bytes = bytes;
    this.o.log?.(`  ${described} -> ${res.status}${ex.json?.error?.code ? ` ${ex.json.error.code}` : ""}`);
    if (!spec.bare) this.observe(ex, spec.rule, { acceptLanguage: headers["accept-language"], deliberate: false });
    return ex;
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

  /** Every observation that holds for any answer; departures fail their rule. */
  observe(ex: Exchange, context: string, how: { acceptLanguage?: string; deliberate: boolean }): void {
    const r = this.results;
    const isV1 = ex.path === "/v1" || ex.path.startsWith("/v1/") || ex.path.startsWith("/v1?");
    const failedHere = new Set<string>();
    const touched = new Set<string>();
    const fail = (rule: string, message: string) => {
      failedHere.add(rule);
      r.fail(rule, message, ex.cite);
      // Two rules of the seed say that every failure answers the envelope.
      if (rule === "W-5") {
        failedHere.add("EP-1");
        r.fail("EP-1", message, ex.cite);
      }
    };

    this.#prismFindings(ex);

    if (ex.operation) {
      const seen = this.statusesSeen.get(ex.operation.operationId) ?? new Map<number, number>();
      seen.set(ex.status, (seen.get(ex.status) ?? 0) + 1);
      this.statusesSeen.set(ex.operation.operationId, seen);
      const violations = checkAnswer(ex.operation, { status: ex.status, headers: ex.headers, body: ex.text });
      const unrouted = isUnrouted(ex.operation, ex.status);
      for (const v of violations) {
        // A route the server lacks is reported once, as such (EP-4), not as an undeclared
        // status of whichever rule's request met it.
        if (unrouted && /^status \d+ is not declared/.test(v.message)) continue;
        fail(classify(ex.operation, ex.status, v, ex.json, context), v.message);
      }
      if (unrouted) fail("EP-4", notRouted(ex.operation, ex));
      const op = ex.operation.operationId;
      if (ex.status < 300 && ex.json !== undefined) {
        const rule = bodyRuleOf(op);
        if (rule) touched.add(rule);
        if (isCollection(op)) touched.add("W-4");
        if (RECORD_OPS.has(op)) {
          touched.add("GEN-3");
          touched.add("GEN-4");
        }
      }
      if (PAGED_OPS.has(op)) touched.add("PAGE-5");
    }

    if (isV1) {
      touched.add("EP-2");
      const echoed = ex.headers.get("x-request-id");
      // A status the contract does not declare for the route (or a route it does not have)
      // was checked against no response: its headers are held to those every /v1 answer carries.
      if (!ex.operation || !responseFor(ex.operation, ex.status)) {
        const general = generalAnswerOf(ex);
        for (const v of checkAnswer(general, { status: ex.status, headers: ex.headers, body: "" })) {
          if (v.message.startsWith("header ")) fail(classify(general, ex.status, v, ex.json, context), v.message);
        }
      }
      if (!this.o.staticMock && ex.sentRequestId && echoed && echoed !== ex.sentRequestId) {
        fail("EP-2", `X-Request-Id ${JSON.stringify(echoed)} does not repeat the one sent (${JSON.stringify(ex.sentRequestId)})`);
      }
      const listModels = ex.operation?.operationId === "listModels" && (ex.status === 200 || ex.status === 304);
      if (!listModels) touched.add("W-13");
      if (ex.status === 401) touched.add("AUTH-8");
    }

    // Every failure is the envelope, except the OAuth protocol routes (RFC 6749 errors).
    if (ex.status >= 400 && !ex.path.startsWith("/oauth/")) this.#envelope(ex, fail, touched, how.acceptLanguage);

    if (ex.json !== undefined) {
      touched.add("W-3");
      const keys: string[] = [];
      const ccs: string[] = [];
      walk(ex.json, "", keys, ccs);
      if (keys.length > 0) fail("W-2", `field names not in snake_case: ${keys.slice(0, 5).join(", ")}`);
      else touched.add("W-2");
      if (ccs.length > 0) fail("W-6", `centi-credit fields that are not integers: ${ccs.slice(0, 5).join(", ")}`);
      else if (/_cc"\s*:/.test(ex.text)) touched.add("W-6");
    }

    if (isV1) this.#rateLimit(ex, fail, touched);

    for (const rule of touched) if (!failedHere.has(rule)) r.pass(rule);
    this.o.watch?.(ex);
  }

  #envelope(ex: Exchange, fail: (rule: string, m: string) => void, touched: Set<string>, acceptLanguage: string | undefined): void {
    const body = ex.json;
    touched.add("W-5");
    touched.add("EP-1");
    // checkAnswer validated the body when the status is declared; otherwise (an unknown
    // route, an undeclared status) the envelope is checked here.
    const declared = ex.operation !== undefined && responseFor(ex.operation, ex.status) !== undefined;
    if (body === undefined) {
      fail("W-5", `a failure whose body is not JSON: ${JSON.stringify(ex.text.slice(0, 100))}`);
      const leak = STACK.find((p) => p.test(ex.text));
      if (leak) fail("ENV-6", `a stack trace or framework message in the body: ${JSON.stringify(ex.text.slice(0, 120))}`);
      return;
    }
    if (!declared) {
      if (!envelopeValid(body)) {
        for (const e of envelopeValid.errors ?? []) {
          const message = `body${e.instancePath} ${e.message ?? "is not valid"}${e.keyword === "required" ? ` '${String((e.params as { missingProperty?: string }).missingProperty)}'` : ""}`;
          const missing = (e.params as { missingProperty?: string }).missingProperty;
          fail(envelopeRule([...e.instancePath.split("/").filter(Boolean), ...(missing ? [missing] : [])]), message);
        }
      }
    }
    const error = body?.error;
    if (!error || typeof error !== "object") return;
    const code = typeof error.code === "string" ? error.code : undefined;
    if (code && errorCodes.has(code)) {
      touched.add("ERR-2");
      touched.add("ENV-1");
      if (statusOf(code) !== ex.status) fail("ERR-2", `${code} answered with ${ex.status}; the error-code table says ${statusOf(code)}`);
    }
    if (Array.isArray(error.details) && error.details.length > 0) {
      touched.add("ENV-5");
      touched.add("ERR-4");
    }
    // Every text of the body, not only the envelope's own fields: a trace is often a field
    // of its own (`error.stack`, `error.trace` as a list of frames).
    touched.add("ENV-6");
    const leak = textsOf(body, "").find(([, t]) => STACK.some((p) => p.test(t)));
    if (leak) fail("ENV-6", `a stack trace or framework message in the body at ${leak[0]}: ${JSON.stringify(leak[1].slice(0, 120))}`);
    if (typeof error.message === "string") {
      touched.add("ENV-2");
      if (CYRILLIC.test(error.message)) fail("ENV-2", `error.message is not English: ${JSON.stringify(error.message.slice(0, 80))}`);
    }
    const russian = /^\s*ru\b/i.test(acceptLanguage ?? "");
    if (typeof error.user_message === "string" && !russian) {
      touched.add("ENV-3");
      if (CYRILLIC.test(error.user_message)) fail("ENV-3", "error.user_message is Russian although the request did not ask for Russian");
    }
    if (typeof error.user_message === "string" && russian) {
      // Russian, or the English message where no translation exists; whether the server
      // translates at all is judged over the run (see `localisation`).
      const inRussian = CYRILLIC.test(error.user_message);
      this.localisation.push({ code: code ?? String(error.code), russian: inRussian });
      if (!inRussian && error.user_message !== error.message) fail("ENV-3", "with Accept-Language: ru, user_message is neither Russian nor equal to message");
    }
    if (!this.o.staticMock && typeof error.request_id === "string" && ex.sentRequestId) {
      touched.add("ENV-4");
      if (error.request_id !== ex.sentRequestId) fail("ENV-4", `error.request_id ${JSON.stringify(error.request_id)} does not repeat the X-Request-Id sent (${JSON.stringify(ex.sentRequestId)})`);
    }
    if (ex.status === 429) touched.add("ERR-3");
  }

  #rateLimit(ex: Exchange, fail: (rule: string, m: string) => void, touched: Set<string>): void {
    const legacy = [...ex.headers.keys()].filter((h) => /^x-ratelimit-/i.test(h));
    const limit = ex.headers.get("ratelimit");
    const policy = ex.headers.get("ratelimit-policy");
    if (legacy.length > 0) fail("LIM-2", `legacy headers sent: ${legacy.join(", ")}`);
    if (limit === null && policy === null) return;
    touched.add("EP-3");
    touched.add("LIM-2");
    touched.add("LIM-3");
    if (limit === null || policy === null) {
      fail("EP-3", `only one of RateLimit and RateLimit-Policy was sent`);
      return;
    }
    const l = structured(limit);
    const p = structured(policy);
    if (!l || !p) {
      fail("LIM-2", `RateLimit ${JSON.stringify(limit)} / RateLimit-Policy ${JSON.stringify(policy)} are not structured fields`);
      return;
    }
    if (l.some((i) => i[1].has("pk")) || p.some((i) => i[1].has("pk"))) fail("LIM-2", "the `pk` parameter is sent");
    if (l.length !== 1 || p.length !== 1) {
      fail("LIM-3", `the pair describes ${l.length} and ${p.length} windows; exactly one (the binding one) is expected`);
      return;
    }
    const name = itemName(l[0]!);
    const pname = itemName(p[0]!);
    if (name === undefined || pname === undefined) return;
    if (name !== pname) fail("LIM-3", `RateLimit names ${JSON.stringify(name)} but RateLimit-Policy names ${JSON.stringify(pname)}`);
    const remaining = param(l[0]!, "r");
    const reset = param(l[0]!, "t");
    const quota = param(p[0]!, "q");
    const window = param(p[0]!, "w");
    this.policiesSeen.add(name);
    if (window !== undefined) this.windowsSeen.set(name, window);
    if (remaining !== undefined && quota !== undefined && remaining > quota) fail("LIM-3", `r=${remaining} is above the quota q=${quota}`);
    if (reset !== undefined && window !== undefined && reset > window) fail("LIM-3", `t=${reset} is beyond the window w=${window}`);
    // A refusal for busy slots, a full queue or the submit window is no request window's: the pair describes the binding one.
    const windowRefused = !(ex.json?.error?.details ?? []).some?.((d: any) => ["concurrency", "queue_full", "submit_rate"].includes(d?.reason));
    if (ex.status === 429 && errorCodeOf(ex.json) === "rate_limited" && windowRefused && remaining !== undefined && remaining !== 0) {
      fail("LIM-3", `a refusing window must describe itself: r=${remaining} on a 429`);
    }
    if (remaining === undefined || reset === undefined) return;
    const prev = this.#windows.get(ex.label);
    const now = Date.now();
    if (!this.o.staticMock && prev && prev.policy === name && ex.status !== 429) {
      // Within one window (the reset did not move further away), each request spends one.
      const passed = (now - prev.at) / 1000 + (this.elapsedSeconds - prev.elapsed);
      const sameWindow = reset <= prev.reset && passed < prev.reset;
      if (sameWindow && remaining >= prev.remaining) {
        fail("LIM-3", `remaining did not go down within the ${name} window (r=${prev.remaining} then r=${remaining})`);
      }
    }
    this.#windows.set(ex.label, { policy: name, remaining, reset, quota, window, at: now, elapsed: this.elapsedSeconds });
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
    const started = Date.now();
    this.#count(label);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`no answer after ${this.o.requestTimeoutMs} ms`)), this.o.requestTimeoutMs);
    let res: Response;
    try {
      res = await fetch(this.o.baseUrl + path, { headers, signal: controller.signal });
    } catch (error) {
      clearTimeout(timer);
      throw new NoAnswer(`GET ${path}`, error);
    }
    clearTimeout(timer);
    const isStream = res.status === 200 && (res.headers.get("content-type") ?? "").startsWith("text/event-stream");
    let text = "";
    if (!isStream) {
      text = await res.text().catch(() => "");
    }
    const ex = this.#exchange("GET", path, res.status, res.headers, text, label, sent, { method: "GET", url: this.o.baseUrl + path, headers }, started);
    this.o.log?.(`  GET ${path} -> ${res.status}${ex.json?.error?.code ? ` ${ex.json.error.code}` : ""}${isStream ? " (stream)" : ""}`);
    this.observe(ex, spec.rule, { deliberate: false });
    if (!isStream) return { exchange: ex };
    const checking: StreamHooks = {
      onFrame: (frame, s) => {
        this.#checkFrame(frame, ex);
        hooks.onFrame?.(frame, s);
      },
    };
    const stream = new EventStream(res, controller, ex, checking, () => this.openStreams.delete(stream));
    this.openStreams.add(stream);
    return { stream, exchange: ex };
  }

  /** Every frame against the contract's EventFrame, charged to the rule of its event. */
  #checkFrame(frame: Frame, opened: Exchange): void {
    const rule = frame.event === "generation.status_changed" ? "EVT-1" : frame.event === "reset" ? "EVT-2" : frame.event === "terminated" ? "EVT-7" : "EVT-5";
    const cite = { ...opened.cite, request: `frame ${frame.event} of ${opened.cite.request}` };
    if (frame.data === undefined) {
      this.results.fail("EVT-5", `the data of a ${frame.event} frame is not JSON: ${JSON.stringify(frame.raw.slice(0, 80))}`, cite);
      return;
    }
    if (frame.id === undefined || frame.id === "") {
      this.results.fail(frame.event === "reset" ? "EVT-6" : "EVT-5", `a ${frame.event} frame without an id`, cite);
      return;
    }
    if (frameValid({ event: frame.event, id: frame.id, data: frame.data })) {
      this.results.pass(rule);
      return;
    }
    const errors = (frameValid.errors ?? []).filter((e) => e.instancePath.startsWith("/data")).slice(0, 3);
    const what = errors.length ? errors.map((e) => `data${e.instancePath.slice(5)} ${e.message}`).join("; ") : `event ${JSON.stringify(frame.event)} is not a frame of the contract`;
    this.results.fail(rule, `${frame.event} frame: ${what}`, cite);
  }

  closeAll(): void {
    for (const s of [...this.openStreams]) s.close();
  }
}

/**
 * Sends a request through node:http: its path as given (no dot segment resolved) and some
 * header lines repeated (an array value goes as one line each).
 */
function sendLines(sent: SentRequest, timeoutMs: number, headersOnly = false): Promise<{ status: number; headers: Headers; text: string }> {
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
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => answered(Buffer.concat(chunks).toString("utf8")));
      res.on("error", reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`timed out after ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * The route of an answer whose status (or route) the contract does not declare, with the
 * one response every `/v1` answer's headers can be held to: the contract's `NotFound`
 * (X-Request-Id, Cache-Control, Vary, as on every error of `/v1`).
 */
function generalAnswerOf(ex: Exchange): Operation {
  const responses: JsonObject = { [String(ex.status)]: { $ref: "#/components/responses/NotFound" } };
  const base = ex.operation ?? { method: ex.method.toLowerCase() as Operation["method"], path: ex.path.split("?")[0]!, operationId: "", parameters: [], scope: null, schemes: [], op: {} };
  return { ...base, op: { ...base.op, responses } };
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]" || host === "::1";
}

function structured(value: string): Item[] | undefined {
  try {
    const list = parseList(value);
    if (list.some((m) => Array.isArray(m[0]))) return undefined;
    return list as Item[];
  } catch {
    return undefined;
  }
}

function itemName(item: Item): string | undefined {
  const v = item[0];
  if (typeof v === "string") return v;
  if (v instanceof Token) return v.toString();
  return undefined;
}

function param(item: Item, key: string): number | undefined {
  const v = item[1].get(key);
  return typeof v === "number" ? v : undefined;
}

/** Every string in a JSON value with its dotted path (`error.trace.0`). */
function textsOf(value: unknown, path: string): [string, string][] {
  if (typeof value === "string") return [[path || "body", value]];
  if (!value || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) => textsOf(v, path ? `${path}.${k}` : k));
}

/** Collects field names that are not snake_case and `_cc` fields that are not integers. */
function walk(value: unknown, path: string, keys: string[], ccs: string[]): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => walk(v, `${path}[${i}]`, keys, ccs));
    return;
  }
  if (!value || typeof value !== "object") return;
  for (const [k, v] of Object.entries(value)) {
    const at = path ? `${path}.${k}` : k;
    // The seed's neutral vendor placeholders (`vendorA_model`) stand in for part of a name.
    if (!SNAKE.test(k.replace(/vendor[AB]/g, "vendor"))) keys.push(at);
    if (k.endsWith("_cc") && v !== null && !Number.isInteger(v)) ccs.push(at);
    if (MAP_FIELDS.has(k)) continue;
    walk(v, at, keys, ccs);
  }
}
