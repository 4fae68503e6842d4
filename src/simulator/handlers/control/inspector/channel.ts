// The inspector's push channel (`GET /_sim/ui/events`), an event stream that tells the page
// what changed, batched: at most one write per FLUSH_MS, however busy the hub is, so an
// open page costs the hub little. Frames (each `id:` is the newest journal number sent,
// so a reconnect with Last-Event-ID goes on after it):
//   requests  { data: [row, ...] newest first, skipped }: the journal's new entries (at
//             most PER_FLUSH; `skipped` counts those left out, which the page can list
//             through GET /_sim/requests)
//   streams   { data: [row, ...] }: recorded event streams whose frames or end changed
//   state     { clock }: the hub's state may have changed (a request, or a generation
//             moving on the clock): read GET /_sim/overview again
// A comment line every 15 s keeps proxies from closing it. It is a row of the control
// table, so the control interface's guard stands in front of it.
import { streamLimits } from "../../../../contract/tables.ts";
import type { JournalEntry } from "../../../domain/journal.ts";
import { baseHeaders, headerOf } from "../../../pipeline/context.ts";
import type { ConnectionSink, StreamAnswer } from "../../../pipeline/exchange.ts";
import type { HubServices } from "../../../pipeline/services.ts";
import type { ControlHandler } from "../body.ts";
import { CredentialNames, summaryOf } from "./views.ts";

/** Milliseconds between two writes of the channel at most. */
export const FLUSH_MS = 150;
/** Journal entries one write carries at most (the newest). */
export const PER_FLUSH = 200;

function frame(event: string, id: number, data: unknown): string {
  return `event: ${event}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`;
}

function open(hub: HubServices, sink: ConnectionSink, resumeAfter: number): () => void {
  let sent = resumeAfter;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stateChanged = true;
  const streams = new Set<JournalEntry>();
  const flush = () => {
    timer = undefined;
    const names = new CredentialNames(hub);
    const newest = hub.journal.recorded;
    let out = "";
    if (newest > sent) {
      const rows = [];
      let skipped = 0;
      for (const entry of hub.journal.newest()) {
        if (entry.seq <= sent) break;
        if (rows.length < PER_FLUSH) rows.push(summaryOf(entry, names));
        else skipped++;
      }
      sent = newest;
      out += frame("requests", sent, { data: rows, skipped });
      stateChanged = true;
    }
    if (streams.size > 0) {
      out += frame("streams", sent, { data: [...streams].map((e) => summaryOf(e, names)) });
      streams.clear();
    }
    if (stateChanged) {
      const now = hub.clock.now();
      out += frame("state", sent, { clock: { now_ms: now, speed: hub.clock.speed } });
      stateChanged = false;
    }
    if (out !== "") sink.write(out);
  };
  const soon = () => {
    if (timer === undefined) {
      timer = setTimeout(flush, FLUSH_MS);
      (timer as { unref?: () => void }).unref?.();
    }
  };
  const unwatch = hub.journal.watch({
    recorded: soon,
    streamChanged(entry) {
      streams.add(entry);
      soon();
    },
    stateChanged() {
      stateChanged = true;
      soon();
    },
  });
  const heartbeat = setInterval(() => sink.write(":\n\n"), streamLimits().heartbeatSeconds * 1000);
  (heartbeat as { unref?: () => void }).unref?.();
  flush(); // the entries recorded before it opened (after Last-Event-ID), and the state
  return () => {
    unwatch();
    clearInterval(heartbeat);
    if (timer !== undefined) clearTimeout(timer);
  };
}

export const inspectorChannel: ControlHandler = (ctx) => {
  ctx.journal = false;
  const after = Number(headerOf(ctx, "last-event-id"));
  const answer: StreamAnswer = {
    kind: "stream",
    status: 200,
    headers: { ...baseHeaders(ctx), "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", "x-accel-buffering": "no" },
    // A number from before a restart may be ahead of this journal: then everything kept is new.
    stream: (sink) => open(ctx.hub, sink, Number.isSafeInteger(after) && after > 0 && after <= ctx.hub.journal.recorded ? after : 0),
  };
  return answer;
};
