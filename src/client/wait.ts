// Waits until a generation reaches a final status (not in progress: DONE or FAILED; a
// FAILED record is returned, not thrown). It follows the event stream: the stream is
// opened first, then the record is read once (a stream opens at the current moment, so
// this catches a change that came before), and events about the generation trigger a
// re-read (an event is never the full record). When the stream cannot be opened or
// breaks for a reason other than `terminated` or an abort, it falls back to polling
// `GET /v1/generations/{id}`.
import type { GenerationRecord } from "../../generated/types.ts";
import type { HubCore } from "./client.ts";
import { HubAbortError, HubStreamTerminatedError, HubTimeoutError } from "./errors.ts";
import { EventStream } from "./events.ts";
import { IN_PROGRESS_STATUSES } from "./limits.ts";
import { sleep } from "./retry.ts";

export interface WaitOptions {
  signal?: AbortSignal;
  /** Overall milliseconds before `HubTimeoutError` (default: no limit). */
  timeout?: number;
  /** Follow the event stream (default true); false polls only. */
  stream?: boolean;
  /** First polling interval in milliseconds, growing by half per poll (default 2 000). */
  pollInterval?: number;
  /** Largest polling interval in milliseconds (default 15 000). */
  pollMax?: number;
  /** Dead-connection timeout of the stream (default 45 000). */
  idleTimeout?: number;
}

export function isFinal(record: Pick<GenerationRecord, "status">): boolean {
  return !IN_PROGRESS_STATUSES.has(record.status);
}

export async function waitForGeneration(hub: HubCore, id: string, options: WaitOptions = {}): Promise<GenerationRecord> {
  const deadline = new AbortController();
  const handle = options.timeout !== undefined ? setTimeout(() => deadline.abort(new HubTimeoutError(`Generation ${id} not final within ${options.timeout} ms`)), options.timeout) : undefined;
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  // Errors of the record read are the caller's; errors of the stream mean: poll instead.
  let readError: unknown;
  const read = () =>
    hub.GET("/v1/generations/{id}", { params: { path: { id } }, signal }).then(
      (r) => r.data,
      (error: unknown) => {
        throw (readError = error);
      },
    );
  try {
    if (options.stream !== false) {
      // Once the stream is open, the record is read once (the stream opens at the current
      // moment, so this catches a change that came before); a final record ends the stream.
      let first: Promise<GenerationRecord> | undefined;
      const stream = new EventStream(hub, {
        track: [id],
        signal,
        maxFailedOpens: 1,
        idleTimeout: options.idleTimeout,
        onOpen: () => void (first ??= read()).then((r) => isFinal(r) && stream.close(), () => stream.close()),
      });
      try {
        for await (const e of stream) {
          if (e.event === "reset") {
            const mine = e.records.find((r) => r.id === id);
            if (mine && isFinal(mine)) return mine;
          } else if (e.data.id === id && (e.data.deleted || isFinal(e.data))) {
            const now = await read();
            if (isFinal(now)) return now;
          }
        }
      } catch (error) {
        if (error === readError || error instanceof HubAbortError || error instanceof HubStreamTerminatedError || signal.aborted) throw error;
      } finally {
        stream.close();
      }
      // The stream ended: by the first read (its record, or its error, is the answer), or
      // for another reason (then poll).
      const now = await first;
      if (now && isFinal(now)) return now;
    }
    let interval = options.pollInterval ?? 2_000;
    while (true) {
      const now = await read();
      if (isFinal(now)) return now;
      await sleep(interval, signal);
      interval = Math.min(options.pollMax ?? 15_000, interval * 1.5);
    }
  } catch (error) {
    throw deadline.signal.aborted && !options.signal?.aborted ? deadline.signal.reason : error;
  } finally {
    clearTimeout(handle);
  }
}
