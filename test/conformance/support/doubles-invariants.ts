// Broken servers that only an invariant over the whole trace catches (judge/invariants/):
// the bug shows across answers (a record read in two places, a stream across its life),
// where no probe was written for it. Each names the invariant that must find it.
import type { Double } from "./doubles.ts";
import { editJson, pathOnly, type Rewrite } from "./proxy.ts";

export type InvariantDouble = Double & {
  /** The invariant that finds it (its name). */
  invariant: string;
  /** What the invariant's finding says. */
  says: RegExp;
  /** No probe fails the rule against it: every finding is the invariant's. */
  probesMiss: boolean;
};

/** The list answers a DONE generation as RUNNING again (its read still says DONE). */
function listRegresses(): Rewrite {
  return {
    answer(req, a) {
      if (req.method !== "GET" || pathOnly(req) !== "/v1/generations" || a.status !== 200) return a;
      return editJson(a, (body) => ({ ...body, data: Array.isArray(body.data) ? body.data.map((g: any) => (g?.status === "DONE" ? { ...g, status: "RUNNING" } : g)) : body.data }));
    },
  };
}

/**
 * Once a stream has been resumed, every later live stream sends each DONE change twice,
 * with the same id (the resumed subscription is kept beside the new one). The submit's
 * resume probe meets it too, but reads it as frames out of order after its resume; the
 * invariant names the repeat, in the live stream where it happened.
 */
function doneTwiceAfterResume(): Rewrite {
  let resumed = false;
  return {
    stream(req, chunk) {
      if (req.headers["last-event-id"] !== undefined) {
        resumed = true;
        return chunk;
      }
      if (!resumed) return chunk;
      return chunk
        .split("\n\n")
        .map((frame) => (/^event: generation\.status_changed$/m.test(frame) && /"status":"DONE"/.test(frame) && !/"deleted":true/.test(frame) ? `${frame}\n\n${frame}` : frame))
        .join("\n\n");
    },
  };
}

/** A /v1 request sent without X-Request-Id gets one fixed id (in the header and the envelope), not one of its own. */
function fixedGeneratedId(): Rewrite {
  return {
    answer(req, a) {
      if (req.headers["x-request-id"] !== undefined || !pathOnly(req).startsWith("/v1/")) return a;
      const fixed = "req_generated";
      const headers = { ...a.headers, "x-request-id": fixed };
      return a.status >= 400 ? editJson({ ...a, headers }, (body) => (body?.error ? { ...body, error: { ...body.error, request_id: fixed } } : body)) : { ...a, headers };
    },
  };
}

/** A support message sent again with its client_msg_id and text is answered with a new message id (the thread still holds one). */
function replayRenamed(): Rewrite {
  const sent = new Set<string>();
  let n = 0;
  return {
    answer(req, a) {
      if (req.method !== "POST" || pathOnly(req) !== "/v1/support/messages" || a.status >= 300) return a;
      const id = (JSON.parse(req.body.toString("utf8") || "{}") as { client_msg_id?: string }).client_msg_id;
      if (!id) return a;
      if (!sent.has(id)) {
        sent.add(id);
        return a;
      }
      return editJson(a, (body) => ({ ...body, id: `msg_replayed${String(++n).padStart(14, "0")}` }));
    },
  };
}

/**
 * Pages overlap once they hold two records or more: the page a cursor gives starts with
 * the last record of the page before it, in place of its own first.
 */
function pagesOverlap(): Rewrite {
  const lastOf = new Map<string, unknown>();
  return {
    answer(req, a) {
      if (req.method !== "GET" || !/^\/v1\/(?:generations|billing\/transactions|library\/assets)$/.test(pathOnly(req)) || a.status !== 200) return a;
      const cursor = new URL(req.path, "http://x").searchParams.get("cursor");
      return editJson(a, (body) => {
        if (!Array.isArray(body?.data)) return body;
        const before = cursor === null ? undefined : lastOf.get(cursor);
        const data = before !== undefined && body.data.length >= 2 ? [before, ...body.data.slice(1)] : body.data;
        if (typeof body.next_cursor === "string" && body.data.length >= 2) lastOf.set(body.next_cursor, body.data.at(-1));
        return { ...body, data };
      });
    },
  };
}

export const INVARIANT_DOUBLES: InvariantDouble[] = [
  { rule: "EP-2", invariant: "a request id names one request", area: "headers", found: "default", probesMiss: true, says: /two requests got the same X-Request-Id req_generated/, title: "generates the same X-Request-Id for every request sent without one", make: () => fixedGeneratedId() },
  { rule: "ST-5", invariant: "DONE is final, wherever a generation is read", area: "stateful", found: "default", probesMiss: true, says: /was read DONE, then RUNNING .*DONE is final/, title: "lists a DONE generation as RUNNING again", make: () => listRegresses() },
  { rule: "EVT-9", invariant: "no event stream repeats a frame, across resumes", area: "events", found: "default", probesMiss: false, says: /the stream sent the frame id \S+ twice/, title: "sends each DONE change twice, with the same id, in every live stream once a stream was resumed", make: () => doneTwiceAfterResume() },
  { rule: "SUP-3", invariant: "a replay answers the first record", area: "support", found: "default", probesMiss: false, says: /a support message's client_msg_id sent again with the same body answered msg_replayed\d+, not msg_\w+ that the first request made/, title: "answers a support message sent again (same client_msg_id, same text) with a new message id", make: () => replayRenamed() },
  { rule: "PAGE-4", invariant: "pages do not overlap, and a cursor is read", area: "paging", found: "default", probesMiss: false, says: /the page its next_cursor gave repeats 1 record\(s\) of the page that gave it \(\w+\): pages do not overlap/, title: "starts each page after the first with the last record of the page before it (pages of two records or more)", make: () => pagesOverlap() },
];
