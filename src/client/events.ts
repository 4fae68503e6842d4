// The status-change stream `GET /v1/events`, over fetch (a browser EventSource cannot
// send `Authorization`), parsed by eventsource-parser.
// - Every connection goes through the transport, so credentials are rebuilt on every
//   reconnect, and the last delivered `id:` is sent back as `Last-Event-ID`.
// - No byte for `idleTimeout` (default 45 s: three missed 15 s heartbeats) is a dead
//   connection: it is closed and reopened.
// - `reset`: its id is stored, then the tracked generations are caught up through the
//   batch status read; the reset is yielded with those records before any later event.
// - `terminated`: `HubStreamTerminatedError` is thrown and the stream is not reopened.
// - Refusals at opening: 4xx other than 429 are thrown; 429, 5xx and lost connections
//   are retried with backoff (`Retry-After` first) until `maxFailedOpens`.
import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { GenerationRecord, GenerationStatusChanged, StreamReset } from "../../generated/types.ts";
import { readStatuses } from "./batch.ts";
import type { HubCore } from "./client.ts";
import { errorFromAnswer, HubAbortError, HubConnectionError, HubError, HubStreamTerminatedError, HubTimeoutError, isEnvelope, type HubHttpError } from "./errors.ts";
import { DEAD_CONNECTION_MS, IN_PROGRESS_STATUSES } from "./limits.ts";
import { backoff, sleep } from "./retry.ts";

export interface StatusChangedEvent {
  event: "generation.status_changed";
  /** The frame's `id:` (an opaque cursor). */
  id: string;
  data: GenerationStatusChanged;
}

export interface ResetEvent {
  event: "reset";
  id: string;
  data: StreamReset;
  /** The tracked generations as read by the batch status read after the reset. */
  records: GenerationRecord[];
}

export type HubEvent = StatusChangedEvent | ResetEvent;

export interface EventsOptions {
  /** Generation types to receive (query `types`). */
  types?: string[];
  /** Resume after this id (a previous stream's `lastEventId`). */
  lastEventId?: string;
  signal?: AbortSignal;
  /** Milliseconds without a byte that mark a dead connection (default 45 000). */
  idleTimeout?: number;
  /** Generation ids to catch up on after a `reset` (ids seen in progress are tracked too). */
  track?: Iterable<string>;
  /** Consecutive failed opens before the error is thrown (default: never give up). */
  maxFailedOpens?: number;
  /** First reconnect delay in milliseconds when reconnects find nothing (default 1 000, or the server's `retry:`). */
  reconnectDelay?: number;
  /** Largest reconnect delay in milliseconds (default 30 000). */
  reconnectMax?: number;
  /** Called each time a connection is open (200), before its first frame is read. */
  onOpen?: (response: Response) => void;
}

export class EventStream implements AsyncIterable<HubEvent> {
  /** The id of the last frame delivered; store it to resume later. */
  declare lastEventId: string | undefined;
  /** Generations caught up on after a `reset`: given in `track`, plus those seen in progress. */
  declare readonly tracked: Set<string>;
  /** Connections opened so far (1 + reconnects). */
  connections = 0;
  readonly #hub: HubCore;
  readonly #options: EventsOptions;
  #closed = false;
  readonly #stop = new AbortController();

  constructor(hub: HubCore, options: EventsOptions = {}) {
    this.#hub = hub;
    this.#options = options;
    this.lastEventId = options.lastEventId;
    this.tracked = new Set(options.track);
  }

  /** Ends the stream: a running iteration finishes without an error. */
  close(): void {
    this.#closed = true;
    this.#stop.abort();
  }

  /** Iterate once: each iteration would open a stream of its own. */
  async *[Symbol.asyncIterator](): AsyncGenerator<HubEvent, void, undefined> {
    try {
      yield* this.#connect();
    } catch (error) {
      if (!this.#closed) throw error;
    }
  }

  async *#connect(): AsyncGenerator<HubEvent, void, undefined> {
    const o = this.#options;
    const user = o.signal;
    // Stops connections and waits on close() or on the caller's abort.
    const stop = user ? AbortSignal.any([user, this.#stop.signal]) : this.#stop.signal;
    const idleTimeout = o.idleTimeout ?? DEAD_CONNECTION_MS;
    let reconnectBase = o.reconnectDelay ?? 1_000;
    const reconnectMax = o.reconnectMax ?? 30_000;
    let failedOpens = 0;
    let quiet = 0;

    while (true) {
      if (this.#closed) return;
      if (user?.aborted) throw new HubAbortError({ cause: user.reason });
      const conn = new AbortController();
      let heardSomething = false;
      {
        // Open.
        let opened: { data?: ReadableStream<Uint8Array> | null; error?: unknown; response: Response };
        try {
          this.connections++;
          opened = await this.#hub.api.GET("/v1/events", {
            params: {
              query: o.types ? { types: o.types.join(",") } : undefined,
              header: this.lastEventId !== undefined ? { "Last-Event-ID": this.lastEventId } : undefined,
            },
            parseAs: "stream",
            signal: AbortSignal.any([stop, conn.signal]),
          });
        } catch (error) {
          if (!(error instanceof HubConnectionError || error instanceof HubTimeoutError)) throw error;
          if (++failedOpens >= (o.maxFailedOpens ?? Infinity)) throw error;
          await sleep(backoff(failedOpens - 1, reconnectBase, reconnectMax), stop);
          continue;
        }
        const response = opened.response;
        if (!response.ok || !opened.data) {
          const error: HubHttpError = errorFromAnswer(response, opened.error);
          if (response.status >= 400 && response.status < 500 && response.status !== 429) throw error;
          if (++failedOpens >= (o.maxFailedOpens ?? Infinity)) throw error;
          const wait = error.retryAfter;
          await sleep(wait !== undefined ? wait * 1000 : backoff(failedOpens - 1, reconnectBase, reconnectMax), stop);
          continue;
        }
        failedOpens = 0;
        o.onOpen?.(response);

        // Read frames until the connection ends, dies or is terminated.
        const frames: EventSourceMessage[] = [];
        const parser = createParser({
          onEvent: (frame) => frames.push(frame),
          onRetry: (ms) => (reconnectBase = ms),
        });
        const reader = opened.data.getReader();
        const decoder = new TextDecoder();
        try {
          while (true) {
            const chunk = await readWithin(reader, idleTimeout);
            if (!chunk || chunk.done) break;
            heardSomething = true;
            parser.feed(decoder.decode(chunk.value, { stream: true }));
            for (const frame of frames.splice(0)) {
              const event = await this.#handle(frame, response);
              if (event) yield event;
            }
          }
        } catch (error) {
          // A connection lost mid-stream is reconnected; the rest is the caller's.
          if (user?.aborted) throw new HubAbortError({ cause: user.reason });
          if (error instanceof HubError || this.#closed) throw error;
        } finally {
          conn.abort();
          reader.cancel().catch(() => undefined);
        }
      }
      if (this.#closed) return;
      quiet = heardSomething ? 0 : quiet + 1;
      if (quiet > 0) await sleep(backoff(quiet - 1, reconnectBase, reconnectMax), stop);
    }
  }

  /** Handles one frame just before it is delivered: its id becomes the stored cursor. */
  async #handle(frame: EventSourceMessage, response: Response): Promise<HubEvent | undefined> {
    const id = frame.id ?? "";
    if (frame.id !== undefined) this.lastEventId = id;
    switch (frame.event) {
      case "generation.status_changed": {
        const data = parse(frame) as GenerationStatusChanged;
        if (IN_PROGRESS_STATUSES.has(data.status) && !data.deleted) this.tracked.add(data.id);
        else this.tracked.delete(data.id);
        return { event: "generation.status_changed", id, data };
      }
      case "reset": {
        // The reset's id is stored (above), then the tracked generations are caught up.
        const data = parse(frame) as StreamReset;
        const records = await readStatuses(this.#hub, this.tracked, { signal: this.#options.signal }); // none tracked: no call
        for (const r of records) if (!IN_PROGRESS_STATUSES.has(r.status)) this.tracked.delete(r.id);
        return { event: "reset", id, data, records };
      }
      case "terminated": {
        const body = parse(frame);
        throw isEnvelope(body) ? new HubStreamTerminatedError(response.status, response.headers, body) : new HubError("terminated");
      }
      // Frames of names this client does not know advance the cursor only.
    }
  }
}

function parse(frame: EventSourceMessage): unknown {
  try {
    return JSON.parse(frame.data);
  } catch (cause) {
    throw new HubError(`Malformed ${frame.event ?? "message"} frame`, { cause });
  }
}

/** One read, or `undefined` when no byte arrives in time (the caller then drops the connection). */
function readWithin(reader: ReadableStreamDefaultReader<Uint8Array>, ms: number): Promise<ReadableStreamReadResult<Uint8Array> | undefined> {
  let handle: ReturnType<typeof setTimeout> | undefined;
  const read = reader.read();
  read.catch(() => undefined);
  return Promise.race([read, new Promise<undefined>((resolve) => (handle = setTimeout(() => resolve(undefined), ms)))]).finally(() => clearTimeout(handle));
}

export function streamEvents(hub: HubCore, options?: EventsOptions): EventStream {
  return new EventStream(hub, options);
}
