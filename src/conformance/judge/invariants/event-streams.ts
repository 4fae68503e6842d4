// EVT-9 and EVT-4 over every stream of a run, across resumes and beside other accounts'
// streams: a frame id is delivered once (never twice in a stream, never again in a stream
// resumed after it), and a stream carries only its own account's generations (those a
// submit of another account created never show in it). A probe follows one stream; a
// fan-out bug shows only across several.
import { broke, held } from "../answer-checks/check.ts";
import type { Exchange } from "../../target/exchange.ts";
import type { Invariant, InvariantFinding } from "./invariant.ts";

/** The credentials of two different accounts (run/runner.ts labels them). */
const ACCOUNTS: Record<string, string> = { main: "the main account", other: "the second account" };
/** Frame ids held per stream (a stream keeps its newest frames alone: stream.ts). */
const IDS_HELD = 10_000;

export const eventsDeliveredOnce: Invariant = {
  name: "an event is delivered once, to its own account",
  rules: ["EVT-9", "EVT-4"],
  watch() {
    const streams = new Map<Exchange, { label: string; ids: string[]; set: Set<string> }>();
    const created = new Map<string, string>();
    const findings: InvariantFinding[] = [];
    let frames = 0;
    let foreignChecked = 0;
    const fail = (rule: string, message: string, opened: Exchange) => {
      if (!findings.some((f) => !f.held && f.rule === rule)) findings.push({ ...broke(rule, message), cite: opened.cite });
    };
    return {
      exchange(ex, how) {
        if (how.bare || ex.status !== 202 || ex.operation?.operationId !== "submitGeneration") return;
        if (typeof ex.json?.id === "string" && created.size < 10_000) created.set(ex.json.id, ex.label);
      },
      frame(frame, opened) {
        let stream = streams.get(opened);
        if (!stream) {
          stream = { label: opened.label, ids: [], set: new Set() };
          // Resumed after an id another stream of this credential delivered: none of the frames up to it comes again.
          const after = opened.record.sent.headers["last-event-id"];
          for (const earlier of after ? streams.values() : []) {
            const at = earlier.label === opened.label ? earlier.ids.indexOf(after!) : -1;
            if (at >= 0) for (const id of earlier.ids.slice(0, at + 1)) stream.set.add(id);
          }
          streams.set(opened, stream);
        }
        if (frame.id !== undefined && frame.event !== "reset") {
          frames++;
          if (stream.set.has(frame.id)) fail("EVT-9", `the event stream ${opened.path} delivered the frame ${frame.id} (${frame.event}) again: no repeat, in a stream or in one resumed after it`, opened);
          stream.set.add(frame.id);
          stream.ids.push(frame.id);
          if (stream.ids.length > IDS_HELD) stream.set.delete(stream.ids.shift()!);
        }
        const owner = typeof frame.data?.id === "string" ? created.get(frame.data.id) : undefined;
        if (owner !== undefined && ACCOUNTS[owner] && ACCOUNTS[opened.label]) {
          foreignChecked++;
          if (owner !== opened.label) fail("EVT-4", `the event stream of ${ACCOUNTS[opened.label]} carried generation ${frame.data.id}, which ${ACCOUNTS[owner]} submitted: a stream is about the caller's own generations`, opened);
        }
      },
      findings: () => [...findings, ...(frames > 0 && !findings.some((f) => f.rule === "EVT-9") ? [held("EVT-9")] : []), ...(foreignChecked > 0 && !findings.some((f) => f.rule === "EVT-4") ? [held("EVT-4")] : [])],
    };
  },
};
