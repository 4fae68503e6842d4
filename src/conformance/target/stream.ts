// One open `GET /v1/events` stream: frames are parsed (eventsource-parser), handed to
// the hooks (the run's sink judges each one whole) and kept for the checks that read the
// stream; heartbeat comments are kept by their arrival times. What is kept is bounded
// whatever a server sends: the newest KEPT_FRAMES frames, each with at most KEPT_BODY
// characters of its data (a larger one keeps its event and id, its data released), and the
// newest KEPT_FRAMES comment times.
import { createParser } from "eventsource-parser";
import { KEPT_BODY } from "./record.ts";

/** Frames (and comment times) a stream keeps, the newest. */
export const KEPT_FRAMES = 10_000;

export interface Frame {
  event: string;
  id: string | undefined;
  /** The parsed `data` (undefined when it is not JSON). */
  data: any;
  raw: string;
}

export interface StreamHooks {
  onFrame?(frame: Frame, stream: EventStream): void;
  /** The stream sent more than `maxFrameBytes` without ending a frame (it is then closed). */
  onOverflow?(maxFrameBytes: number): void;
}

export interface OpenedBy {
  cite: { requestId?: string; request?: string };
}

export class EventStream {
  readonly frames: Frame[] = [];
  readonly commentTimes: number[] = [];
  readonly openedAt = Date.now();
  ended = false;
  /** Frames and comments that ended, all of them (the kept ones are the newest). */
  #ends = 0;
  #waiters = new Set<() => void>();
  #closed = false;

  constructor(
    res: Response,
    private readonly controller: AbortController,
    readonly opened: OpenedBy,
    private readonly hooks: StreamHooks,
    private readonly onClose: () => void,
    /** Most bytes taken without a frame or comment ending; beyond, the stream is closed (a frame without end). */
    private readonly maxFrameBytes = Number.POSITIVE_INFINITY,
  ) {
    void this.#pump(res);
  }

  async #pump(res: Response): Promise<void> {
    const parser = createParser({
      onEvent: (e) => {
        let data: unknown;
        try {
          data = JSON.parse(e.data);
        } catch {
          data = undefined;
        }
        const frame: Frame = { event: e.event ?? "message", id: e.id, data, raw: e.data };
        this.#ends++;
        this.hooks.onFrame?.(frame, this);
        keep(this.frames, e.data.length > KEPT_BODY ? { event: frame.event, id: frame.id, data: undefined, raw: Buffer.from(e.data.slice(0, KEPT_BODY)).toString() } : frame);
        this.#wake();
      },
      onComment: () => {
        this.#ends++;
        keep(this.commentTimes, Date.now());
        this.#wake();
      },
    });
    const decoder = new TextDecoder();
    // Bytes taken since a frame or comment last ended: what the parser is holding.
    let pending = 0;
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        const before = this.#ends;
        parser.feed(decoder.decode(chunk, { stream: true }));
        if (this.#ends > before) pending = 0;
        else if ((pending += chunk.length) > this.maxFrameBytes) {
          this.hooks.onOverflow?.(this.maxFrameBytes);
          this.close();
          break;
        }
      }
    } catch {
      // Closed by the suite, or the connection dropped.
    }
    this.ended = true;
    this.#finish();
    this.#wake();
  }

  #wake(): void {
    for (const w of [...this.#waiters]) w();
  }

  /** Waits until `predicate` holds or the stream ends or `timeoutMs` passes; says whether it holds. */
  async until(predicate: (s: EventStream) => boolean, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      const left = deadline - Date.now();
      if (left <= 0 || this.ended) return predicate(this);
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(t);
          this.#waiters.delete(done);
          resolve();
        };
        const t = setTimeout(done, left);
        this.#waiters.add(done);
      });
    }
    return true;
  }

  /** Frames after the one with this id (all frames when the id is not among them). */
  after(id: string | undefined): Frame[] {
    const at = this.frames.findIndex((f) => f.id === id);
    return at < 0 ? [...this.frames] : this.frames.slice(at + 1);
  }

  get lastId(): string | undefined {
    return this.frames.filter((f) => f.id !== undefined).at(-1)?.id;
  }

  close(): void {
    if (this.#closed) return;
    this.controller.abort();
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onClose();
  }
}

/** Adds `item` to `list`, dropping the oldest beyond KEPT_FRAMES. */
function keep<T>(list: T[], item: T): void {
  list.push(item);
  if (list.length > KEPT_FRAMES) list.splice(0, list.length - KEPT_FRAMES);
}
