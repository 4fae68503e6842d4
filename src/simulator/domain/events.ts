// The event hub: one log per account of `generation.status_changed` frames with opaque
// ids, and the open streams. A reconnect with `Last-Event-ID` gets every frame after it
// (no loss, no repeat); a cursor that cannot be resumed gets a `reset` frame first.
// History older than the retention window (on the simulator's clock; 7 days, the seed's)
// is dropped, and so are the oldest events beyond `retention.events` per account, so a
// busy account's log does not grow without end within those days.
import type { SimClock } from "../state/clock.ts";
import { entryOf, fnv, newSet } from "../state/util.ts";

/**
 * One logged event, itself the holder of its frame's data (one object per event: the log
 * keeps every event for the retention window). `seq` is given by the hub; `at` is the
 * event's time on the simulator's clock (retention counts from it). The frame's text is
 * not kept: made once per emit for the open streams, and again for a resume (kept, it
 * took about 600 bytes per event, most of a busy simulator's memory).
 */
export abstract class LoggedEvent {
  seq = 0;

  constructor(
    /** Generation type, for the stream's `types` filter. */
    readonly type: string,
    readonly at: number,
  ) {}

  /** The event name (`event:` line). */
  abstract get event(): string;

  /** The frame's `data:` value, as JSON. */
  abstract data(): unknown;
}

type Logged = LoggedEvent;

/** Where a stream's frames go (the adapter's response body). */
export interface StreamSink {
  write(chunk: string): void;
  end(): void;
}


interface AccountLog {
  events: Logged[];
  /** Index of the first retained event in `events` (dropped ones are compacted lazily). */
  start: number;
  /** Sequence number of the newest event; 0 before the first. */
  head: number;
  /** Highest sequence number dropped by retention; a cursor below it has lost history. */
  prunedThrough: number;
}

export interface OpenStream {
  readonly accountId: string;
  readonly keyId: string;
  readonly requestId: string;
  /** What the stream re-checks when access may have been withdrawn. */
  readonly authorization: string | undefined;
  readonly cookie: string | undefined;
  readonly lang: "en" | "ru";
  readonly types: ReadonlySet<string> | null;
  sink: StreamSink | null;
  heartbeat: ReturnType<typeof setInterval> | null;
  closed: boolean;
}

export type Resume = { kind: "live" } | { kind: "resume"; after: number } | { kind: "reset"; reason: "cursor_expired" | "cursor_unknown" };

const newLog = (): AccountLog => ({ events: [], start: 0, head: 0, prunedThrough: 0 });

export class EventHub {
  #logs = new Map<string, AccountLog>();
  #streams = new Set<OpenStream>();
  #byAccount = new Map<string, Set<OpenStream>>();
  #perKey = new Map<string, number>();

  /** Told after every event (the inspector's push channel, which then says the state changed). */
  onEmit: (() => void) | null = null;

  constructor(
    private readonly clock: SimClock,
    private epoch: string,
    public retentionMs: number,
    public heartbeatMs: number,
    /** Events kept per account at most (besides the retention window). */
    public maxEvents: number,
  ) {}

  /** Forgets history (state reset); open streams are ended by the caller first. */
  reset(epoch: string): void {
    this.epoch = epoch;
    this.#logs.clear();
  }

  #log(accountId: string): AccountLog {
    return entryOf(this.#logs, accountId, newLog);
  }

  /** `<seq base 36>.<checksum of epoch, account and seq>`: opaque to clients, tamper-evident here. */
  cursor(accountId: string, seq: number): string {
    const s = seq.toString(36);
    return `${s}.${fnv(`${this.epoch}|${accountId}|${s}`)}`;
  }

  /** The id that resumes at the current moment (the `reset` and `terminated` frames carry it). */
  headCursor(accountId: string): string {
    return this.cursor(accountId, this.#log(accountId).head);
  }

  #prune(log: AccountLog): void {
    const oldest = this.clock.now() - this.retentionMs;
    const keepFrom = log.events.length - this.maxEvents;
    while (log.start < log.events.length && (log.start < keepFrom || log.events[log.start]!.at < oldest)) {
      log.prunedThrough = log.events[log.start]!.seq;
      log.start++;
    }
    if (log.start > 1024 && log.start * 2 > log.events.length) {
      log.events = log.events.slice(log.start);
      log.start = 0;
    }
  }

  /** Appends a frame to the account's log and writes it to the account's open streams. */
  emit(accountId: string, logged: LoggedEvent): void {
    const log = this.#log(accountId);
    logged.seq = ++log.head;
    const type = logged.type;
    log.events.push(logged);
    this.#prune(log);
    this.onEmit?.();
    const open = this.#byAccount.get(accountId);
    if (!open || open.size === 0) return;
    const text = this.#text(accountId, logged);
    for (const stream of open) {
      if (stream.sink && (!stream.types || stream.types.has(type))) stream.sink.write(text);
    }
  }

  #text(accountId: string, e: Logged): string {
    return `event: ${e.event}\nid: ${this.cursor(accountId, e.seq)}\ndata: ${JSON.stringify(e.data())}\n\n`;
  }

  /** Where a stream presenting `lastEventId` starts. */
  resumeOf(accountId: string, lastEventId: string | undefined): Resume {
    if (lastEventId === undefined || lastEventId === "") return { kind: "live" };
    const unknown: Resume = { kind: "reset", reason: "cursor_unknown" };
    const m = /^([0-9a-z]{1,11})\.([0-9a-z]{7})$/.exec(lastEventId);
    // Another account's cursor, one of an earlier state or a corrupt one fails the checksum.
    if (!m || fnv(`${this.epoch}|${accountId}|${m[1]}`) !== m[2]) return unknown;
    const seq = parseInt(m[1]!, 36);
    const log = this.#log(accountId);
    if (!Number.isSafeInteger(seq) || seq > log.head) return unknown;
    this.#prune(log);
    if (seq < log.prunedThrough) return { kind: "reset", reason: "cursor_expired" };
    return { kind: "resume", after: seq };
  }

  /** The account's retained events from simulated time `since` on, oldest first (generations' timelines, for the inspector). */
  *history(accountId: string, since = -Infinity): Generator<LoggedEvent> {
    const log = this.#logs.get(accountId);
    if (!log) return;
    // Events are logged in time order: the first one at or after `since` by binary search.
    let lo = log.start;
    let hi = log.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (log.events[mid]!.at < since) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < log.events.length; i++) yield log.events[i]!;
  }

  streamsOfKey(keyId: string): number {
    return this.#perKey.get(keyId) ?? 0;
  }

  get openStreams(): ReadonlySet<OpenStream> {
    return this.#streams;
  }

  /**
   * Starts a stream: the reset frame or the missed frames first, then live frames.
   * Runs synchronously, so no frame emitted meanwhile can be lost or repeated.
   */
  attach(stream: OpenStream, sink: StreamSink, resume: Resume): void {
    stream.sink = sink;
    this.#streams.add(stream);
    entryOf(this.#byAccount, stream.accountId, newSet<OpenStream>).add(stream);
    this.#perKey.set(stream.keyId, this.streamsOfKey(stream.keyId) + 1);
    // A heartbeat comment first, so the answer's head leaves with a byte of body: a proxy
    // that holds a head until body bytes follow (Vite's dev server) would pass the stream's
    // opening on only with its first event, or the first heartbeat 15 s later.
    sink.write(":\n\n");
    if (resume.kind === "reset") {
      sink.write(`event: reset\nid: ${this.headCursor(stream.accountId)}\ndata: ${JSON.stringify({ reason: resume.reason, catch_up: "/v1/generations/status" })}\n\n`);
    } else if (resume.kind === "resume") {
      const log = this.#log(stream.accountId);
      // Binary search for the first event after the cursor.
      let lo = log.start;
      let hi = log.events.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (log.events[mid]!.seq <= resume.after) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < log.events.length; i++) {
        const e = log.events[i]!;
        if (!stream.types || stream.types.has(e.type)) sink.write(this.#text(stream.accountId, e));
      }
    }
    if (this.heartbeatMs > 0) {
      stream.heartbeat = setInterval(() => stream.sink?.write(":\n\n"), this.heartbeatMs);
      (stream.heartbeat as { unref?: () => void }).unref?.();
    }
  }

  /** Sends `terminated` with the refusal's envelope and ends the stream. */
  terminate(stream: OpenStream, envelope: unknown): void {
    if (stream.closed) return;
    stream.sink?.write(`event: terminated\nid: ${this.headCursor(stream.accountId)}\ndata: ${JSON.stringify(envelope)}\n\n`);
    const sink = stream.sink;
    this.detach(stream);
    sink?.end();
  }

  /** Ends a stream without a frame (shutdown or state reset). */
  end(stream: OpenStream): void {
    const sink = stream.sink;
    this.detach(stream);
    sink?.end();
  }

  /** Forgets a stream whose client went away; safe to call twice. */
  detach(stream: OpenStream): void {
    if (stream.closed) return;
    stream.closed = true;
    if (stream.heartbeat) clearInterval(stream.heartbeat);
    stream.heartbeat = null;
    stream.sink = null;
    if (!this.#streams.delete(stream)) return;
    this.#byAccount.get(stream.accountId)?.delete(stream);
    const n = this.streamsOfKey(stream.keyId) - 1;
    if (n > 0) this.#perKey.set(stream.keyId, n);
    else this.#perKey.delete(stream.keyId);
  }
}
