// Waits until a generation reaches a final status (not in progress: DONE or FAILED; a
// FAILED record is returned, not thrown). It follows the event stream: the stream is
// opened first, then the record is read once (a stream opens at the current moment, so
// this catches a change that came before), then events about the generation trigger a
// re-read (an event is never the full record). When the stream cannot be opened or
// breaks for a reason other than `terminated` or an abort, it falls back to polling
// `GET /v1/generations/{id}`.
import type { GenerationRecord } from "../../generated/types.ts";
import type { HubCore } from "./client.ts";
import { HubAbortError, HubStreamTerminatedError, HubTimeoutError } from "./errors.ts";
import { EventStream } from "./events.ts";
import { IN_PROGRESS_STATUSES } from "./limits.ts";
import { anySignal, sleep } from "./retry.ts";

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
  const signal = options.signal ? anySignal(options.signal, deadline.signal) : deadline.signal;
  try {
    if (options.stream !== false) {
      const viaStream = await followStream(hub, id, signal, options);
      if (viaStream) return viaStream;
    }
    return await poll(hub, id, signal, options);
  } catch (error) {
    if (deadline.signal.aborted && !options.signal?.aborted) throw deadline.signal.reason;
    throw error;
  } finally {
    clearTimeout(handle);
  }
}

const read = async (hub: HubCore, id: string, signal: AbortSignal) =>
  (await hub.GET("/v1/generations/{id}", { params: { path: { id } }, signal })).data;

/** A failure of the record read itself (not of the stream): thrown to the caller, no fallback. */
class ReadFailure {
  constructor(readonly error: unknown) {}
}
const readMarked = (hub: HubCore, id: string, signal: AbortSignal) =>
  read(hub, id, signal).catch((error: unknown) => {
    throw new ReadFailure(error);
  });

/** The final record by the stream, or undefined when the stream failed (then poll). */
async function followStream(hub: HubCore, id: string, signal: AbortSignal, options: WaitOptions): Promise<GenerationRecord | undefined> {
  let opened!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  const stream = new EventStream(hub, { track: [id], signal, maxFailedOpens: 1, idleTimeout: options.idleTimeout, onOpen: () => opened() });
  const events = stream[Symbol.asyncIterator]();
  const next = () => events.next();
  let pending = next();
  try {
    // The first read starts the connection; wait until it is open (or has failed).
    const first = await Promise.race([open.then(() => undefined), pending.then((r) => ({ r }))]);
    if (first === undefined) {
      const now = await readMarked(hub, id, signal);
      if (isFinal(now)) return now;
    }
    while (true) {
      const { value, done } = await pending;
      if (done) return undefined;
      if (value.event === "reset") {
        const mine = value.records.find((r) => r.id === id);
        if (mine && isFinal(mine)) return mine;
      } else if (value.data.id === id && (value.data.deleted || !IN_PROGRESS_STATUSES.has(value.data.status))) {
        const now = await readMarked(hub, id, signal);
        if (isFinal(now)) return now;
      }
      pending = next();
    }
  } catch (error) {
    if (error instanceof ReadFailure) throw error.error;
    if (error instanceof HubAbortError || error instanceof HubStreamTerminatedError || signal.aborted) throw error;
    return undefined;
  } finally {
    stream.close();
    await events.return(undefined).catch(() => undefined);
  }
}

async function poll(hub: HubCore, id: string, signal: AbortSignal, options: WaitOptions): Promise<GenerationRecord> {
  let interval = options.pollInterval ?? 2_000;
  const max = options.pollMax ?? 15_000;
  while (true) {
    const now = await read(hub, id, signal);
    if (isFinal(now)) return now;
    await sleep(interval, signal);
    interval = Math.min(max, interval * 1.5);
  }
}
