// Test harness: a simulator on a free port with a frozen clock, and a client that
// checks every answer it receives against the contract (checkAnswer) and fails the
// test on any violation.
import { expect } from "vitest";
import { EventStream as Stream, type Frame } from "../../../src/conformance/target/stream.ts";
import { checkAnswer, matchOperation, schemaValidator } from "../../../src/contract/index.ts";
import { startSimulator, type RunningSimulator, type SimulatorOptions } from "../../../src/simulator/index.ts";

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
  bytes: Uint8Array;
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  /** Sent as is (no JSON encoding). */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
  idempotencyKey?: string;
}

export const FULL = "ghk_demo_full";
export const OTHER = "ghk_demo_other";

const envelopeValid = schemaValidator("ErrorEnvelope");

/** Every answer the tests receive passes through here. */
export function expectConforming(method: string, url: string, status: number, headers: Headers, text: string): void {
  const path = new URL(url).pathname;
  const match = matchOperation(method, path);
  if (match) {
    const violations = checkAnswer(match.operation, { status, headers, body: text });
    expect(violations, `${method} ${path} -> ${status}: ${text.slice(0, 300)}`).toEqual([]);
  } else {
    // No operation (unknown route, control interface): a failure is still the envelope.
    if (status >= 400) {
      const body = JSON.parse(text);
      expect(envelopeValid(body), `${method} ${path}: ${text}`).toBe(true);
    }
    expect(headers.get("x-request-id")).toBeTruthy();
  }
}

export class Sim {
  constructor(readonly running: RunningSimulator) {}

  get url(): string {
    return this.running.url;
  }

  get hub() {
    return this.running.hub;
  }

  async call(method: string, path: string, options: CallOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? FULL : options.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    if (options.idempotencyKey) headers["idempotency-key"] = options.idempotencyKey;
    let body: string | Uint8Array | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    const url = this.url + path;
    const res = await fetch(url, { method, headers, body: body as BodyInit | undefined });
    const bytes = new Uint8Array(await res.arrayBuffer());
    const text = new TextDecoder().decode(bytes);
    expectConforming(method, url, res.status, res.headers, text);
    let json: unknown;
    if ((res.headers.get("content-type") ?? "").includes("json") && text) json = JSON.parse(text);
    return { status: res.status, headers: res.headers, text, json, bytes };
  }

  get(path: string, options?: CallOptions) {
    return this.call("GET", path, options);
  }

  post(path: string, body?: unknown, options: CallOptions = {}) {
    return this.call("POST", path, { ...options, body });
  }

  /** A submit with a fresh Idempotency-Key unless one is given. */
  submit(body: unknown, options: CallOptions = {}) {
    return this.call("POST", "/v1/generations", { idempotencyKey: `k-${Math.random().toString(36).slice(2)}`, ...options, body });
  }

  /** A control route; a change declares JSON even without a body (the control interface takes nothing else). */
  control(method: string, path: string, body?: unknown): Promise<Reply> {
    return this.call(method, `/_sim/${path}`, { key: null, body, headers: method === "GET" ? {} : { "content-type": "application/json" } });
  }

  /** Moves the simulated clock forward (and runs what falls due). */
  advance(seconds: number): Promise<Reply> {
    return this.control("POST", "clock/advance", { seconds });
  }

  async open(options: StreamOptions = {}): Promise<EventStream> {
    return EventStream.open(this.url, options);
  }

  close(): Promise<void> {
    return this.running.close();
  }
}

export async function startSim(options: SimulatorOptions = {}): Promise<Sim> {
  return new Sim(await startSimulator({ port: 0, clockSpeed: 0, demoData: false, ...options }));
}

export interface StreamOptions {
  key?: string;
  lastEventId?: string;
  query?: string;
  headers?: Record<string, string>;
}

const frameValid = schemaValidator("EventFrame");

/**
 * An open event stream: the conformance suite's reader (src/conformance/sse.ts) with every
 * frame held to EventFrame; a frame that is not is thrown by the next wait, not lost.
 */
export class EventStream {
  readonly #stream: Stream;
  #fault: Error | undefined;

  private constructor(res: Response, controller: AbortController) {
    this.#stream = new Stream(res, controller, { cite: {} }, {
      onFrame: (f) => {
        if (f.data === undefined || !frameValid({ event: f.event, id: f.id, data: f.data })) this.#fault ??= new Error(`a frame outside EventFrame: ${f.event} ${f.raw}`);
      },
    }, () => undefined);
  }

  static async open(base: string, options: StreamOptions): Promise<EventStream> {
    const controller = new AbortController();
    const headers: Record<string, string> = { authorization: `Bearer ${options.key ?? FULL}`, ...options.headers };
    if (options.lastEventId !== undefined) headers["last-event-id"] = options.lastEventId;
    const url = `${base}/v1/events${options.query ?? ""}`;
    const res = await fetch(url, { headers, signal: controller.signal });
    if (res.status !== 200) {
      const text = await res.text();
      expectConforming("GET", url, res.status, res.headers, text);
      throw Object.assign(new Error(`stream refused: ${res.status} ${text}`), { status: res.status, body: JSON.parse(text), headers: res.headers });
    }
    expectConforming("GET", url, res.status, res.headers, "");
    return new EventStream(res, controller);
  }

  get frames(): Frame[] {
    return this.#stream.frames;
  }

  /** Heartbeat comments received so far. */
  get comments(): number {
    return this.#stream.commentTimes.length;
  }

  get ended(): boolean {
    return this.#stream.ended;
  }

  /** Waits until `predicate` holds (frames arrive asynchronously even on a frozen clock). */
  async until(predicate: (s: EventStream) => boolean, timeoutMs = 5000): Promise<void> {
    const held = await this.#stream.until(() => this.#fault !== undefined || predicate(this), timeoutMs);
    if (this.#fault) throw this.#fault;
    if (!held) throw new Error(`timed out${this.ended ? " (the stream ended)" : ""}; frames so far: ${JSON.stringify(this.frames.map(({ event, id, data }) => ({ event, id, data })))}`);
  }

  async untilFrames(n: number): Promise<Frame[]> {
    await this.until((s) => s.frames.length >= n);
    return this.frames;
  }

  get lastId(): string | undefined {
    return this.frames.filter((f) => f.id).at(-1)?.id;
  }

  /** Drops the connection from the client side. */
  drop(): void {
    this.#stream.close();
  }
}
