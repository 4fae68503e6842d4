// A JSON answer written a slice at a time (a scenario export of tens of megabytes): the
// hub handles requests synchronously, so a body made in one piece would hold every other
// request until it is done. Between slices the event loop takes a turn: requests that
// arrived meanwhile are answered, then the next slice is made.
import { baseHeaders, type Ctx } from "./context.ts";
import type { StreamAnswer } from "./exchange.ts";

/** Resolves after the event loop's pending I/O and timers had their turn. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => later(resolve));
}

// setImmediate in Node (after I/O callbacks). A browser (MSW) has no setImmediate, and
// nested timers wait at least 4 ms each: a message to itself is a task without that wait.
const immediate = (globalThis as { setImmediate?: (run: () => void) => unknown }).setImmediate;
const later: (run: () => void) => unknown = immediate ?? messageTask() ?? ((run) => setTimeout(run, 0));

function messageTask(): ((run: () => void) => void) | undefined {
  if (typeof MessageChannel !== "function") return undefined;
  const waiting: (() => void)[] = [];
  const channel = new MessageChannel();
  channel.port1.onmessage = () => waiting.shift()?.();
  return (run) => {
    waiting.push(run);
    channel.port2.postMessage(null);
  };
}

/**
 * The answer writing `slices` (their text joined is the body), a turn of the event loop
 * after each. `done` runs once, when the last slice is written or the client went away.
 * A slice that cannot be made (a bug) ends the connection without a proper end.
 */
export function jsonSliced(ctx: Ctx, status: number, slices: Iterator<string>, done: () => void): StreamAnswer {
  const headers = baseHeaders(ctx);
  headers["content-type"] = "application/json; charset=utf-8";
  return {
    kind: "stream",
    status,
    headers,
    stream: (sink) => {
      let stopped = false;
      const write = async () => {
        try {
          for (let next = slices.next(); !next.done; next = slices.next()) {
            if (stopped) return;
            sink.write(next.value);
            await nextTurn();
          }
          if (!stopped) sink.end();
        } catch (error) {
          console.error("simulator: a sliced answer failed", error);
          if (!stopped) sink.abort();
        } finally {
          stopped = true;
          done();
        }
      };
      void write();
      return () => {
        stopped = true;
      };
    },
  };
}
