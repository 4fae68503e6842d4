// One open `GET /v1/events` stream: frames are parsed (eventsource-parser), handed to
// the hooks (which check them against the contract's EventFrame) and queued; heartbeat
// comments are counted with their arrival times.
import { createParser } from "eventsource-parser";

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
        this.frames.push(frame);
        this.hooks.onFrame?.(frame, this);
        this.#wake();
      },
      onComment: () => {
        this.commentTimes.push(Date.now());
        this.#wake();
      },
    });
    const decoder = new TextDecoder();
    // Bytes taken since a frame or comment last ended: what the parser is holding.
    let pending = 0;
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        const before = this.frames.length + this.commentTimes.length;
        parser.feed(decoder.decode(chunk, { stream: true }));
        if (this.frames.length + this.commentTimes.length > before) pending = 0;
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
