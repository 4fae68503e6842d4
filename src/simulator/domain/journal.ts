// The request journal: the most recent exchanges the hub answered, in a ring of a set
// size, for the inspector at /_sim/ui/ and for tests (`control.requests()`). The
// pipeline's journal stage (pipeline/journal.ts) records each one already masked: a
// credential by what it is (a key's id, an OAuth grant, a session), never by its value.
// Recording is a few field copies; nothing is rendered until someone reads, and readers
// who watch (the inspector's push channel) are told, not sent, what changed.

/** Who a request said it was: the credential's kind and id, never its value. */
export interface CredentialNote {
  channel: "api_key" | "oauth" | "session" | null;
  /** The key's id, the OAuth grant's id or the session's id; null when the simulator knows no such credential. */
  id: string | null;
  accountId: string | null;
  /** What was presented when it named no credential ("an unknown API key", ...). */
  note: string | null;
}

/** Why a request was refused, as the pipeline saw it. */
export interface RefusalNote {
  /** The rung or stage that refused: a rung of the ladder or a guard, `handler` (the route's own checks), or the adapter's. */
  by: string;
  message: string | undefined;
  details: readonly { field?: string; reason: string; message: string }[] | undefined;
}

/** One side of an exchange, masked. */
export interface JournalMessage {
  headers: Readonly<Record<string, string>>;
  /** The text (masked where it can carry a secret), or null (none, or not text). */
  body: string | null;
  /** The whole body's size (bytes of a byte body, characters of a text one); the part kept may be shorter. */
  size: number;
  truncated: boolean;
}

/** An event stream's life as it goes out. */
export interface StreamLog {
  open: boolean;
  /** Frames written so far (heartbeat comments not counted). */
  frames: number;
  heartbeats: number;
  /**
   * The latest frames, oldest first, at most FRAMES_KEPT; `at` is real time. Kept only for
   * an event stream of /v1 (`keepsFrames`): a control stream (the scenario export) carries
   * every secret of the hub, so its frames are counted, never kept.
   */
  recent: { at: number; text: string }[];
  keepsFrames: boolean;
  /** `ended` (by the hub), `closed` (the client left) or `cut` (a fault); null while open. */
  end: "ended" | "closed" | "cut" | null;
  endedAt: number | null;
}

export interface JournalEntry {
  /** The journal's own number, unique for the process (request ids may repeat: a caller's X-Request-Id). */
  seq: number;
  requestId: string;
  /** Real time the request arrived (ms since the epoch). */
  at: number;
  /** Simulated time it arrived. */
  clockAt: number;
  method: string;
  /** Path and query, masked. */
  url: string;
  /** The address the caller used (the curl line's base). */
  baseUrl: string;
  /** The contract's operationId, when the request reached one. */
  operation: string | null;
  /** The operationId, the control route (`POST clock/advance`), or the part of the server (`storage`, `site`). */
  route: string;
  /** 0: no answer (a dropped connection). */
  status: number;
  code: string | null;
  durationMs: number;
  credential: CredentialNote | null;
  refusal: RefusalNote | null;
  /** The fault that acted on it (`flt_1 latency`). */
  fault: string | null;
  request: JournalMessage;
  /** The answer's headers and body; null once the entry is older than the ANSWERS_KEPT most recent. */
  response: JournalMessage | null;
  stream: StreamLog | null;
}

/** The latest frames an entry keeps of its stream. */
export const FRAMES_KEPT = 50;

/**
 * The most recent entries whose answers (headers and body) are kept; older ones keep the
 * request and the row. An answer (a page of records) is most of what an entry holds, and
 * kept briefly it is gone before the garbage collector would have to copy it.
 */
export const ANSWERS_KEPT = 50;

/** Told of what changed; the push channel batches it. */
export interface JournalWatcher {
  /** A new entry. */
  recorded(): void;
  /** A stream's frames or end. */
  streamChanged(entry: JournalEntry): void;
  /** The hub's state changed without a request (a generation moved on the clock). */
  stateChanged(): void;
}

export class Journal {
  readonly #ring: (JournalEntry | undefined)[];
  #seq = 0;
  /** Seq of the first entry still kept after a clear. */
  #from = 1;
  readonly #watchers = new Set<JournalWatcher>();

  /** `capacity` entries are kept, the most recent; 0 turns the journal off. */
  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 0) throw new RangeError(`journalSize is a whole number, 0 or more (0 turns the journal off), not ${capacity}`);
    this.#ring = new Array(capacity);
  }

  get on(): boolean {
    return this.capacity > 0;
  }

  /** Entries recorded since the process started (kept or not). */
  get recorded(): number {
    return this.#seq;
  }

  record(entry: JournalEntry): void {
    const seq = ++this.#seq;
    entry.seq = seq;
    this.#ring[(seq - 1) % this.capacity] = entry;
    const aged = seq > ANSWERS_KEPT ? this.#ring[(seq - 1 - ANSWERS_KEPT) % this.capacity] : undefined;
    if (aged !== undefined && aged.seq === seq - ANSWERS_KEPT) aged.response = null;
    if (this.#watchers.size > 0) for (const w of this.#watchers) w.recorded();
  }

  /** The entries kept, newest first. */
  *newest(): Generator<JournalEntry> {
    const oldest = Math.max(this.#from, this.#seq - this.capacity + 1);
    for (let seq = this.#seq; seq >= oldest; seq--) yield this.#ring[(seq - 1) % this.capacity]!;
  }

  find(seq: number): JournalEntry | undefined {
    if (!this.on || !Number.isSafeInteger(seq) || seq < Math.max(1, this.#from, this.#seq - this.capacity + 1) || seq > this.#seq) return undefined;
    return this.#ring[(seq - 1) % this.capacity];
  }

  /** Forgets every entry (numbers go on, so an old number never names a new entry). */
  clear(): void {
    this.#ring.fill(undefined);
    this.#from = this.#seq + 1;
  }

  /** Starts telling `watcher` what changes; answers the function that stops it. */
  watch(watcher: JournalWatcher): () => void {
    this.#watchers.add(watcher);
    return () => void this.#watchers.delete(watcher);
  }

  /** A frame (or a heartbeat comment) went out on a recorded stream. */
  frame(entry: JournalEntry, text: string): void {
    const log = entry.stream!;
    if (text.charCodeAt(0) === 58 /* ":" */) {
      log.heartbeats++;
      return;
    }
    log.frames++;
    if (log.keepsFrames) log.recent.push({ at: Date.now(), text });
    if (log.recent.length > FRAMES_KEPT) log.recent.shift();
    this.#streamChanged(entry);
  }

  /** A recorded stream ended. */
  streamEnded(entry: JournalEntry, end: "ended" | "closed" | "cut"): void {
    const log = entry.stream!;
    if (!log.open) return;
    log.open = false;
    log.end = end;
    log.endedAt = Date.now();
    this.#streamChanged(entry);
  }

  #streamChanged(entry: JournalEntry): void {
    if (this.#watchers.size > 0) for (const w of this.#watchers) w.streamChanged(entry);
  }

  /** The hub's state changed on its own (the clock moved a generation). */
  stateChanged(): void {
    if (this.#watchers.size > 0) for (const w of this.#watchers) w.stateChanged();
  }
}
