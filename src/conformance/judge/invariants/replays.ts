// A replay answers the first record (SUB-2, SUP-3, REP-4), and a replay key sent again with
// another body is refused (SUB-3, SUP-3): a submit's Idempotency-Key, a support message's
// or a report's client_msg_id names one request. Once a request with such a key was taken
// (2xx), the same credential sending the same key again with the same body is answered
// the record the first one made (its id), and with another body it is not taken (a 409).
// Judged only between requests of one credential (one account whatever the state), on
// answers the server took (2xx): a refusal says nothing of what the key names. A reset of
// the simulator (its control's reset or scenario) forgets every key.
import type { Exchange } from "../../target/exchange.ts";
import { succeeded } from "../../target/exchange.ts";
import { broke, held } from "../answer-checks/check.ts";
import { citedLater, type Invariant, type InvariantFinding, type InvariantWatch } from "./invariant.ts";
import { canonical } from "./bodies.ts";
import { Remembered, resetsState } from "./remembered.ts";

/** Replay keys remembered (the oldest forgotten beyond it). */
export const REPLAYS_REMEMBERED = 100_000;

interface Replayable {
  /** What the request is, in the seed's words. */
  what: string;
  route: RegExp;
  /** The replay key of a request, when it has one. */
  key(ex: Exchange, body: Record<string, unknown>): string | undefined;
  /** What "the same request" compares. */
  same(body: Record<string, unknown>): string;
  /** The id of the record the answer names. */
  record(json: Record<string, unknown>): string | undefined;
  /** The rule a replay answered another record breaks, and the rule a different body taken breaks. */
  replayRule: string;
  mismatchRule?: string;
}

const text = (v: unknown) => (typeof v === "string" ? v : undefined);

const REPLAYABLE: readonly Replayable[] = [
  {
    what: "a submit's Idempotency-Key",
    route: /^POST \/v1\/generations(?:\?|$)/,
    key: (ex) => text(ex.record.sent.headers["idempotency-key"]),
    same: canonical,
    record: (json) => text(json.id),
    replayRule: "SUB-2",
    mismatchRule: "SUB-3",
  },
  {
    what: "a support message's client_msg_id",
    route: /^POST \/v1\/support\/messages(?:\?|$)/,
    key: (_ex, body) => text(body.client_msg_id),
    same: (body) => canonical([body.text, Array.isArray(body.images) ? body.images.length : 0]),
    record: (json) => text(json.id),
    replayRule: "SUP-3",
    mismatchRule: "SUP-3",
  },
  {
    what: "a report's client_msg_id",
    route: /^POST \/v1\/generations\/[^/?]+\/report(?:\?|$)/,
    key: (ex, body) => (text(body.client_msg_id) ? `${ex.path.split("?")[0]} ${body.client_msg_id}` : undefined),
    same: (body) => canonical([body.text, body.reason]),
    record: (json) => text(json.support_request_id),
    replayRule: "REP-4",
  },
];


function bodyOf(ex: Exchange): Record<string, unknown> | undefined {
  const sent = ex.record.sent;
  if (typeof sent.body !== "string" || sent.bodySize !== undefined) return undefined;
  try {
    const body = JSON.parse(sent.body) as unknown;
    return body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function watch(): InvariantWatch {
  const first = new Remembered<{ same: string; record: string; cite: Exchange["cite"] }>(REPLAYS_REMEMBERED);
  const out: InvariantFinding[] = [];
  const judged = new Set<string>();
  return {
    exchange(ex, how) {
      const line = `${ex.method} ${ex.path}`;
      if (resetsState(ex)) return void first.clear();
      if (how.bare || !succeeded(ex)) return;
      const kind = REPLAYABLE.find((r) => r.route.test(line));
      const body = kind ? bodyOf(ex) : undefined;
      const key = kind && body ? kind.key(ex, body) : undefined;
      if (!kind || !body || key === undefined || ex.json === null || typeof ex.json !== "object") return;
      const record = kind.record(ex.json);
      if (record === undefined) return;
      const same = kind.same(body);
      const where = `${ex.label} ${kind.what} ${key}`;
      const before = first.get(where);
      if (!before) return first.set(where, { same, record, cite: citedLater(ex.cite) });
      const steps = [{ step: "first request", cited: before.cite }, { step: "the same key again", cited: ex.cite }];
      if (before.same === same) {
        judged.add(kind.replayRule);
        if (record !== before.record && out.length < 20) out.push({ ...broke(kind.replayRule, `${kind.what} sent again with the same body answered ${record}, not ${before.record} that the first request made: a replay answers the first record`), cite: { ...ex.cite, steps } });
      } else if (kind.mismatchRule) {
        judged.add(kind.mismatchRule);
        if (out.length < 20) out.push({ ...broke(kind.mismatchRule, `${kind.what} sent again with another body was taken (${ex.status}): the same key with a different body answers 409`), cite: { ...ex.cite, steps } });
      }
    },
    findings() {
      const failed = new Set(out.map((f) => f.rule));
      return [...out, ...[...judged].filter((r) => !failed.has(r)).map((r) => held(r))];
    },
  };
}

export const replays: Invariant = { name: "a replay answers the first record", rules: ["SUB-2", "SUB-3", "SUP-3", "REP-4"], watch };
