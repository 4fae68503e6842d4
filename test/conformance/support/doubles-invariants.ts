// Broken servers that only an invariant over the whole trace catches (judge/invariants/):
// the bug shows across answers (a record read in two places, a stream across its life),
// where no probe was written for it. Each names the invariant that must find it.
import type { RunningSimulator, SimulatorOptions } from "../../../src/simulator/index.ts";
import { DEFAULT_RATE_LIMITS } from "../../../src/simulator/state/options.ts";
import type { Double } from "./doubles.ts";
import { editJson, pathOnly, type ProxiedAnswer, type ProxiedRequest, type Rewrite } from "./proxy.ts";

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

/**
 * In the main account's list, one of its own generations (the demo's oldest) is shown as
 * the second account's newest, on every page and wherever it falls (a list query joined to
 * the wrong row): every page still holds as many records, in the same order. Reads by id
 * still answer 404 across accounts: only the list gives the generation away.
 */
function listLeaksAcrossAccounts(): Rewrite {
  const replaced = "gen_01JD8X9R3N7PQ2T4V6W8Y1Z3CD";
  let otherNewest: string | undefined;
  return {
    answer(req, a) {
      if (req.method !== "GET" || pathOnly(req) !== "/v1/generations" || a.status !== 200) return a;
      const key = String(req.headers.authorization ?? "");
      if (key === "Bearer ghk_demo_other") {
        otherNewest ??= (JSON.parse(a.body) as { data?: { id?: string }[] }).data?.[0]?.id;
        return a;
      }
      if (key !== "Bearer ghk_demo_full" || otherNewest === undefined) return a;
      return editJson(a, (body) => ({ ...body, data: Array.isArray(body.data) ? body.data.map((g: any) => (g?.id === replaced ? { ...g, id: otherNewest } : g)) : body.data }));
    },
  };
}

/** The batch status read says `video` for every generation, whatever its type (a field filled from a default). */
function batchSaysVideo(): Rewrite {
  return batchRecords((g) => ({ ...g, type: "video" }));
}

/** The batch status read's records without `model` (the list, the read and a submit's reply keep it). */
function batchLeavesModelOut(): Rewrite {
  return batchRecords(({ model: _model, ...g }) => g);
}

/** Each record of the batch status read's answer, edited. */
function batchRecords(edit: (g: Record<string, unknown>) => Record<string, unknown>): Rewrite {
  return {
    answer(req, a) {
      if (req.method !== "POST" || pathOnly(req) !== "/v1/generations/status" || a.status !== 200) return a;
      return editJson(a, (body) => ({ ...body, data: Array.isArray(body.data) ? body.data.map((g: any) => (g && typeof g === "object" ? edit(g) : g)) : body.data }));
    },
  };
}

/**
 * Every generation of a priced body after the run's first is charged 1 cc more than the
 * estimate of its body said (its debit row in the ledger, from the start: a surcharge the
 * estimate does not know). The first charge, and every balance, are right.
 */
function laterChargesAboveEstimate(): Rewrite {
  const prices = new Map<string, number>();
  const withoutPrompt = (body: Buffer) => {
    const { prompt: _prompt, ...rest } = JSON.parse(body.toString() || "{}");
    return JSON.stringify(Object.entries(rest).sort(([a], [b]) => a.localeCompare(b)));
  };
  /** Generations of the main account whose body was priced, in order, each with its price. */
  const priced = new Map<string, number>();
  return {
    answer(req, a) {
      const path = pathOnly(req);
      if (req.method === "POST" && path === "/v1/pricing/estimate" && a.status === 200) prices.set(withoutPrompt(req.body), JSON.parse(a.body).price_cc);
      else if (req.method === "POST" && path === "/v1/generations" && a.status === 202 && req.headers.authorization === "Bearer ghk_demo_full") {
        const price = prices.get(withoutPrompt(req.body));
        if (price !== undefined) priced.set(JSON.parse(a.body).id, price);
      } else if (req.method === "GET" && path === "/v1/billing/transactions" && a.status === 200) {
        const later = new Map([...priced].slice(1));
        return editJson(a, (body) => ({ ...body, data: body.data.map((r: any) => (later.has(r?.generation_id) && r.amount_cc < 0 ? { ...r, amount_cc: -(later.get(r.generation_id)! + 1) } : r)) }));
      }
      return a;
    },
  };
}

/**
 * A key's `default` window also spent by what `extra` charges for an answer or a chunk of
 * an event stream: the remainder every later answer of that key shows (and the answer that
 * charged) is lower by what was charged since the window last started anew.
 */
function alsoSpends(extra: { answer?(req: ProxiedRequest, a: ProxiedAnswer): number; stream?(chunk: string): number }): Rewrite {
  const keys = new Map<string, { upstream: number; charged: number }>();
  const charge = (req: ProxiedRequest, n: number) => {
    const k = keys.get(String(req.headers.authorization));
    if (k) k.charged += n;
  };
  return {
    answer(req, a) {
      charge(req, extra.answer?.(req, a) ?? 0);
      return a;
    },
    head(req, headers) {
      const m = /^"default";r=(\d+);t=(\d+)$/.exec(headers.ratelimit ?? "");
      if (!m || req.headers.authorization === undefined) return headers;
      const key = String(req.headers.authorization);
      const upstream = Number(m[1]);
      const k = keys.get(key);
      // The window started anew: nothing charged in it yet.
      if (!k || upstream > k.upstream) keys.set(key, { upstream, charged: 0 });
      else k.upstream = upstream;
      return { ...headers, ratelimit: `"default";r=${Math.max(0, upstream - keys.get(key)!.charged)};t=${m[2]}` };
    },
    stream(req, chunk) {
      charge(req, extra.stream?.(chunk) ?? 0);
      return chunk;
    },
  };
}

/** Each status change an event stream sends also spends one request of its key's window ("frames of an open stream cost nothing"). */
const framesSpend = () => alsoSpends({ stream: (chunk) => chunk.match(/^event: generation\.status_changed$/gm)?.length ?? 0 });

/** A refusal by a route's handler (an object not there, a conflict, a bad cursor or limit: 400, 404, 409 with the pair) is counted twice. */
const handlerRefusalsSpendTwice = () => alsoSpends({ answer: (_req, a) => ([400, 404, 409].includes(a.status) ? 1 : 0) });

/**
 * The simulator with its account ceiling at twice a key's window (the smallest multiple
 * above one; its own numbers, the seed shows none). With its default ceiling (three
 * keys' windows) no key's answer in a default run names `account`; with this one, the
 * keys and OAuth tokens that run late in the run (after the clock moves) meet the
 * ceiling binding once the account's other credentials spent enough of it.
 */
export const ACCOUNT_CEILING_BINDS: SimulatorOptions = { rateLimits: { accountQuota: 2 * DEFAULT_RATE_LIMITS.keyQuota } };

/**
 * The account window counted per key: an answer to an API key that names `account` says
 * the account's quota less that key's own requests in the window, so a fresh key sees a
 * fuller account window than the account has left. A refusal (r=0) is left as it is.
 */
function accountCountedPerKey(sim: RunningSimulator): Rewrite {
  return {
    head(req, headers) {
      const m = /^"account";r=(\d+);t=(\d+)$/.exec(headers.ratelimit ?? "");
      const token = /^Bearer\s+(\S+)$/i.exec(String(req.headers.authorization ?? ""))?.[1];
      const key = token === undefined ? undefined : sim.hub.state.keys.get(token);
      if (!m || m[1] === "0" || !key) return headers;
      const own = sim.hub.limiter.spent().find((w) => w.window === "key" && w.id === key.id)?.used ?? 0;
      return { ...headers, ratelimit: `"account";r=${sim.hub.limiter.config.accountQuota - own};t=${m[2]}` };
    },
  };
}

export const INVARIANT_DOUBLES: InvariantDouble[] = [
  { rule: "EP-2", invariant: "a request id names one request", area: "headers", found: "default", probesMiss: true, says: /two requests got the same X-Request-Id req_generated/, title: "generates the same X-Request-Id for every request sent without one", make: () => fixedGeneratedId() },
  { rule: "ST-5", invariant: "DONE is final, wherever a generation is read", area: "stateful", found: "default", probesMiss: true, says: /was read DONE, then RUNNING .*DONE is final/, title: "lists a DONE generation as RUNNING again", make: () => listRegresses() },
  { rule: "EVT-9", invariant: "no event stream repeats a frame, across resumes", area: "events", found: "default", probesMiss: false, says: /the stream sent the frame id \S+ twice/, title: "sends each DONE change twice, with the same id, in every live stream once a stream was resumed", make: () => doneTwiceAfterResume() },
  { rule: "SUP-3", invariant: "a replay answers the first record", area: "support", found: "default", probesMiss: false, says: /a support message's client_msg_id sent again with the same body answered msg_replayed\d+, not msg_\w+ that the first request made/, title: "answers a support message sent again (same client_msg_id, same text) with a new message id", make: () => replayRenamed() },
  { rule: "PAGE-4", invariant: "pages do not overlap, and a cursor is read", area: "paging", found: "default", probesMiss: false, says: /the page its next_cursor gave repeats 1 record\(s\) of the page that gave it \(\w+\): pages do not overlap/, title: "starts each page after the first with the last record of the page before it (pages of two records or more)", make: () => pagesOverlap() },
  { rule: "W-8", invariant: "a generation shows only to its own account", area: "accounts", found: "default", probesMiss: true, says: /was shown to account acc_other .* and to account acc_demo .*: a generation shows only to its own account/, title: "shows the second account's newest generation in the main account's list, in place of one of its own", make: () => listLeaksAcrossAccounts() },
  { rule: "GEN-1", invariant: "a generation keeps its type wherever it is read", area: "stateful", found: "default", probesMiss: true, says: /was read as type \S+ \(.*\), then as video \(POST \/v1\/generations\/status/, title: "says video for every generation in the batch status read", make: () => batchSaysVideo() },
  { rule: "GEN-1", invariant: "a generation's record has one shape wherever it is read", area: "stateful", found: "default", probesMiss: true, says: /^(?=.*POST \/v1\/generations\/status)generation \S+ \(\w+\) was read with the fields \[[^\]]*\] \([^)]*\), then with \[[^\]]*\] \([^)]*\): one record, the same shape wherever it is read$/, title: "leaves model out of the records of the batch status read", make: () => batchLeavesModelOut() },
  { rule: "PRICE-1", invariant: "no charge exceeds the estimate of its body", area: "money", found: "default", probesMiss: true, says: /was charged \d+ cc \(its debit rows in the ledger\); the estimate of its body said \d+ cc, a ceiling/, title: "charges every generation after the run's first 1 cc above the estimate of its body", make: () => laterChargesAboveEstimate() },
  { rule: "LIM-1", invariant: "a key's window is spent by its own requests", area: "limits", found: "default", probesMiss: true, says: /the key's default window went down by \d+ between two of its answers .*but only \d+ request\(s\) of that key may have been counted/, title: "spends one request of a key's window for each status change its event streams send", make: () => framesSpend() },
  { rule: "LIM-1", invariant: "a key's window is spent by its own requests", area: "limits", found: "default", probesMiss: true, says: /the key's default window went down by \d+ between two of its answers .*but only \d+ request\(s\) of that key may have been counted/, title: "counts a refusal by a route's handler (400, 404, 409) twice in the key's window", make: () => handlerRefusalsSpendTwice() },
  { rule: "LIM-1", invariant: "the account's window is one ceiling over all its keys", area: "limits", found: "default", simulator: ACCOUNT_CEILING_BINDS, notWithGenerate: "--generate opens the simulator's rate windows: the account ceiling binds for no key", probesMiss: true, says: /the account window of acc_demo went (?:up within one window, from r=\d+ \(t=\d+\) to r=\d+|down by \d+ between two of its answers .*but only \d+ request\(s\) of the account's credentials)/, title: "counts the account window per key, so a fresh key sees a fuller account window (its account ceiling at twice a key's window)", make: (sim) => accountCountedPerKey(sim) },
];
