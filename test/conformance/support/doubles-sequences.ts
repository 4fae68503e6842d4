// Broken servers whose bug lives across calls: each answer is right on its own, and only
// a sequence of requests shows the fault (a replay that spends, a revoked object still
// served, an offset cursor, a window shared between keys, a token cache, ...). Each is
// the simulator behind the rewriting proxy with one such bug, found by one property of
// src/conformance/sequences/ (or the sequences the property added to a check) and by no
// check of the suite before it. doubles.ts spreads them into DOUBLES.
import { randomUUID } from "node:crypto";
import { recordLedger } from "../../../src/simulator/domain/ledger.ts";
import { reportsOf } from "../../../src/simulator/domain/support.ts";
import { stepsFrom } from "../../../src/simulator/domain/outcomes.ts";
import type { RunningSimulator } from "../../../src/simulator/index.ts";
import type { Double } from "./doubles.ts";
import { jsonBody } from "./faults.ts";
import { editJson, framesKept, pathOnly, type ProxiedAnswer, type ProxiedRequest, type Rewrite } from "./proxy.ts";

function keyOf(sim: RunningSimulator, req: ProxiedRequest) {
  const m = /^Bearer\s+(\S+)$/i.exec(String(req.headers.authorization ?? ""));
  return m ? sim.hub.state.keys.get(m[1]!) : undefined;
}

/** Calls whose answer `replayed` says is a replay of a submit: the same key and body answered 202 before. */
function onSubmitReplay(replayed: (req: ProxiedRequest, generationId: string) => void): Rewrite {
  const answered = new Map<string, string>();
  return {
    answer(req, a) {
      if (req.method !== "POST" || pathOnly(req) !== "/v1/generations" || a.status !== 202) return a;
      const slot = `${req.headers.authorization}\n${req.headers["idempotency-key"]}\n${req.body.toString("utf8")}`;
      const id = String(JSON.parse(a.body).id);
      if (answered.get(slot) === id) replayed(req, id);
      else answered.set(slot, id);
      return a;
    },
  };
}

/** Reports answered 201 for a `client_msg_id` answered 201 before: replays (the generation's id, the reply). */
function onReportReplay(replayed: (generationId: string, reply: { message_id?: string }) => void): Rewrite {
  const seen = new Set<string>();
  return {
    answer(req, a) {
      const m = /^\/v1\/generations\/([^/]+)\/report$/.exec(pathOnly(req));
      const id = jsonBody(req)?.client_msg_id;
      if (req.method !== "POST" || !m || a.status !== 201 || typeof id !== "string") return a;
      if (seen.has(id)) replayed(decodeURIComponent(m[1]!), JSON.parse(a.body));
      seen.add(id);
      return a;
    },
  };
}

/** Spends one more request of the caller's windows on the requests `when` picks (the simulator spends one already). */
function spendsTwice(sim: RunningSimulator, when: (req: ProxiedRequest) => boolean): Rewrite {
  return {
    request(req) {
      const key = keyOf(sim, req);
      if (key && when(req)) sim.hub.limiter.take(key.id, key.account_id);
      return req;
    },
  };
}

/** Folders deleted through the API (their id and name), as a request hook sees them go. */
function deletedFolders(sim: RunningSimulator): { seen(req: ProxiedRequest): void; ids: Set<string>; names: Set<string> } {
  const ids = new Set<string>();
  const names = new Set<string>();
  return {
    ids,
    names,
    seen(req) {
      const m = /^\/v1\/library\/folders\/([^/]+)$/.exec(pathOnly(req));
      if (req.method !== "DELETE" || !m) return;
      const id = decodeURIComponent(m[1]!);
      for (const list of sim.hub.state.library.folders.values()) {
        const f = list.find((x) => x.id === id);
        if (f) {
          ids.add(id);
          names.add(f.name);
        }
      }
    },
  };
}

/** The three paged lists, with cursors that count records from the head (an offset). */
function offsetCursors(): Rewrite {
  const offsets = new Map<string, number>();
  const mint = (n: number) => {
    const token = `off-${n}-${randomUUID().slice(0, 8)}`;
    offsets.set(token, n);
    return token;
  };
  const paged = (req: ProxiedRequest) => req.method === "GET" && /^\/v1\/(generations|billing\/transactions|library\/assets)$/.test(pathOnly(req));
  return {
    request(req) {
      if (!paged(req)) return req;
      const url = new URL(req.path, "http://x");
      // One cursor only (a cursor given twice is another bug: the double does not read it).
      const cursors = url.searchParams.getAll("cursor");
      const at = cursors.length === 1 ? offsets.get(cursors[0]!) : undefined;
      const limit = Number(url.searchParams.get("limit") ?? 20);
      if (at === undefined || at + limit > 100) return req;
      url.searchParams.delete("cursor");
      url.searchParams.set("limit", String(at + limit));
      return { ...req, path: url.pathname + url.search, headers: { ...req.headers, "x-offset": `${at} ${limit}` } };
    },
    answer(req, a) {
      if (!paged(req) || a.status !== 200 || new URL(req.path, "http://x").searchParams.getAll("cursor").length > 1) return a;
      const [at, limit] = String(req.headers["x-offset"] ?? `0 ${new URL(req.path, "http://x").searchParams.get("limit") ?? 20}`).split(" ").map(Number) as [number, number];
      return editJson(a, (body) => {
        if (!Array.isArray(body?.data)) return body;
        body.data = body.data.slice(at);
        body.next_cursor = body.next_cursor === null ? null : mint(at + limit);
        return body;
      });
    },
  };
}

/**
 * A grant's access tokens once accepted by whoami keep being accepted there (a cache of
 * token checks): the cached answer, counted in the grant's window as any request.
 */
function tokenCache(sim: RunningSimulator): Rewrite {
  const seen = new Map<string, string>();
  return {
    answer(req, a) {
      const token = /^Bearer\s+(gho_\S+)$/i.exec(String(req.headers.authorization ?? ""))?.[1];
      if (!token || req.method !== "GET" || pathOnly(req) !== "/v1/whoami") return a;
      if (a.status === 200) seen.set(token, a.body);
      const grant = sim.hub.state.oauth.grants.get(sim.hub.state.oauth.access.get(token)?.grant_id ?? "");
      if (a.status !== 401 || !seen.has(token) || !grant) return a;
      const rate = sim.hub.limiter.take(grant.id, grant.account_id).binding;
      const { "www-authenticate": _challenge, ...headers } = a.headers;
      return {
        status: 200,
        headers: { ...headers, "content-type": "application/json; charset=utf-8", ratelimit: `"${rate.policy}";r=${rate.remaining};t=${rate.reset}`, "ratelimit-policy": `"${rate.policy}";q=${rate.quota};w=${rate.window}` },
        body: seen.get(token)!,
      };
    },
  };
}

/**
 * The rules of the doubles of what a sequence spends (sequences-spending.test.ts runs
 * them), of those that need control of the server (sequences-control.test.ts), of the
 * event stream and the OAuth grants (sequences-streams.test.ts), and the others
 * (sequences-state.test.ts): four files, so that each stays quick.
 */
export const SPENDING_RULES: readonly string[] = ["SUB-2", "LIM-5", "W-8", "PRICE-1", "PRICE-4", "EVT-12", "LIM-1", "BILL-1", "GEN-10"];
/** Why --generate cannot exceed a window: it opens the simulator's (see OPEN_WINDOWS). */
const OPENED_WINDOWS = "--generate opens the simulator's rate windows: none is exceeded";

export const CONTROL_RULES: readonly string[] = ["ST-2", "ST-3", "GEN-9", "AUTH-7", "ST-4", "LIM-4"];
export const STREAM_RULES: readonly string[] = ["EVT-10", "EVT-11", "ST-6", "ACC-2", "OAUTH-13"];

export const SEQUENCE_DOUBLES: Double[] = [
  // ---- A replay spends nothing ------------------------------------------------------------
  {
    rule: "SUB-2",
    also: ["LIM-5"],
    area: "idempotency",
    found: "default",
    with: ["PRICE-1"],
    title: "counts an exact replay of a submit against the submit quota",
    make: (sim) =>
      onSubmitReplay((req) => {
        const key = keyOf(sim, req);
        if (key) sim.hub.limiter.takeSubmit(key.account_id, true);
      }),
  },
  {
    rule: "SUB-2",
    area: "idempotency",
    found: "default",
    with: ["PRICE-1"],
    title: "writes the charge of a submit to the ledger again on each replay (the balance untouched)",
    make: (sim) =>
      onSubmitReplay((_req, id) => {
        const gen = sim.hub.state.generations.get(id);
        if (gen && gen.charged_cc > 0) recordLedger(sim.hub, gen.account_id, -gen.charged_cc, gen.id, "generation");
      }),
  },
  {
    rule: "SUB-2",
    area: "idempotency",
    found: "default",
    with: ["PRICE-1"],
    title: "starts an unbilled copy of the generation on each replay (the reply is the first record)",
    make: (sim) =>
      onSubmitReplay((_req, id) => {
        const gen = sim.hub.state.generations.get(id);
        const account = gen ? sim.hub.state.accounts.get(gen.account_id) : undefined;
        if (!gen || !account) return;
        const steps = [{ status: "QUEUED", afterMs: 0 }, ...(stepsFrom("QUEUED", { kind: "done" }, gen.type, sim.hub.timing) ?? [])];
        sim.hub.generations.create({ account, keyId: gen.key_id, type: gen.type, model: gen.model, output: gen.output_kind, body: { prompt: gen.prompt }, steps, charged_cc: 0, free_quota: -1, idempotencyKey: `unbilled-copy-${randomUUID()}` });
      }),
  },
  {
    rule: "LIM-5",
    area: "idempotency",
    found: "default",
    with: ["PRICE-1", "SUB-2"],
    title: "counts a submit refused for busy slots against the submit quota",
    make(sim) {
      return {
        answer(req, a) {
          const key = keyOf(sim, req);
          if (req.method !== "POST" || pathOnly(req) !== "/v1/generations" || a.status !== 429 || !key || !a.body.includes('"concurrency"')) return a;
          sim.hub.limiter.takeSubmit(key.account_id, true);
          return a;
        },
      };
    },
  },
  {
    rule: "W-8",
    area: "idempotency",
    found: "default",
    with: ["PRICE-1"],
    title: "keeps Idempotency-Keys across accounts: another account's submit with a used key gets the first account's generation",
    make(sim) {
      const owner = new Map<string, string>();
      return {
        request(req) {
          const k = req.headers["idempotency-key"];
          const key = keyOf(sim, req);
          if (req.method !== "POST" || pathOnly(req) !== "/v1/generations" || typeof k !== "string" || !key) return req;
          const first = owner.get(k);
          if (!first) owner.set(k, String(req.headers.authorization));
          else if (first !== req.headers.authorization) return { ...req, headers: { ...req.headers, authorization: first } };
          return req;
        },
      };
    },
  },
  // ---- Operations that move no money, and what a request costs ------------------------------
  {
    rule: "REP-5",
    area: "idempotency",
    found: "default",
    with: ["PRICE-1", "SUB-1"],
    title: "refunds a generation again on each replay of a failure report",
    make: (sim) =>
      onReportReplay((generationId) => {
        const gen = sim.hub.state.generations.get(generationId);
        const account = gen ? sim.hub.state.accounts.get(gen.account_id) : undefined;
        if (!gen || !account) return;
        account.balance_cc += 100;
        recordLedger(sim.hub, account.id, 100, gen.id, "refund");
      }),
  },
  {
    rule: "REP-4",
    area: "support",
    found: "default",
    with: ["PRICE-1", "SUB-1"],
    title: "files a replayed report a second time (the reply names the first)",
    make: (sim) =>
      onReportReplay((_generationId, reply) => {
        const first = [...sim.hub.state.reports.values()].find((r) => r.message_id === reply.message_id);
        // A second report in the account's thread; the replay slot still names the first.
        if (first) reportsOf(sim.hub, first.account_id).push({ ...first, message_id: `msg_copy_${randomUUID().slice(0, 8)}`, support_request_id: `sr_copy_${randomUUID().slice(0, 8)}` });
      }),
  },
  {
    rule: "PRICE-1",
    area: "stateful",
    found: "default",
    title: "prices an estimate at half what the submit of the same body is charged",
    make() {
      return {
        answer(req, a) {
          if (req.method !== "POST" || pathOnly(req) !== "/v1/pricing/estimate" || a.status !== 200) return a;
          return editJson(a, (body) => (Number.isInteger(body?.price_cc) && body.price_cc > 1 ? { ...body, price_cc: Math.floor(body.price_cc / 2) } : body));
        },
      };
    },
  },
  {
    rule: "PRICE-4",
    area: "headers",
    found: "default",
    with: ["PRICE-1"],
    title: "spends two requests of the window on a price estimate",
    make: (sim) => spendsTwice(sim, (req) => req.method === "POST" && pathOnly(req) === "/v1/pricing/estimate"),
  },
  {
    rule: "EVT-12",
    area: "events",
    found: "default",
    title: "spends two requests of the window on opening an event stream",
    make: (sim) => spendsTwice(sim, (req) => req.method === "GET" && pathOnly(req) === "/v1/events"),
  },
  {
    rule: "LIM-1",
    area: "headers",
    found: "default",
    title: "one default window for all the keys of an account: another key's request spends the main key's",
    make(sim) {
      return {
        request(req) {
          const key = keyOf(sim, req);
          const main = sim.hub.state.keys.get("ghk_demo_full");
          if (key && main && key.id !== main.id && key.account_id === main.account_id) sim.hub.limiter.take(main.id, main.account_id);
          return req;
        },
      };
    },
  },
  {
    rule: "GEN-10",
    area: "stateful",
    found: "default",
    with: ["PRICE-1", "SUB-1", "UPL-1"],
    title: "charges a title change as a render (1 cc, with its ledger row)",
    make(sim) {
      return {
        answer(req, a) {
          const key = keyOf(sim, req);
          if (req.method !== "PATCH" || !/^\/v1\/(generations|library\/assets)\/[^/]+$/.test(pathOnly(req)) || a.status >= 300 || !key) return a;
          const account = sim.hub.state.accounts.get(key.account_id);
          if (account) {
            account.balance_cc -= 1;
            recordLedger(sim.hub, account.id, -1, null, "title");
          }
          return a;
        },
      };
    },
  },
  // ---- Pages while records are created ---------------------------------------------------
  {
    rule: "PAGE-4",
    area: "paging",
    found: "default",
    with: ["PRICE-1"],
    title: "pages with cursors that count from the head (an offset): a record created between page reads repeats the last one",
    make: () => offsetCursors(),
  },
  // ---- Gone from every route -----------------------------------------------------------
  {
    rule: "REP-3",
    area: "stateful",
    found: "default",
    with: ["PRICE-1", "SUB-1"],
    title: "still answers a generation revoked by a moderation report in the batch status read",
    make(sim) {
      const revoked = new Set<string>();
      return {
        answer(req, a) {
          const report = /^\/v1\/generations\/([^/]+)\/report$/.exec(pathOnly(req));
          if (report && req.method === "POST" && a.status === 201 && jsonBody(req)?.reason === "moderation") revoked.add(decodeURIComponent(report[1]!));
          if (req.method !== "POST" || pathOnly(req) !== "/v1/generations/status" || a.status !== 200) return a;
          const asked: unknown[] = Array.isArray(jsonBody(req)?.ids) ? jsonBody(req).ids : [];
          return editJson(a, (body) => {
            for (const id of asked) {
              const gen = typeof id === "string" && revoked.has(id) ? sim.hub.state.generations.get(id) : undefined;
              if (gen && !body.data.some((r: any) => r.id === id)) body.data.push(sim.hub.generations.record(gen, sim.url));
            }
            return body;
          });
        },
      };
    },
  },
  {
    rule: "LIB-5",
    area: "library",
    found: "default",
    with: ["UPL-1"],
    title: "takes a move into a deleted folder (200, the items go nowhere)",
    make(sim) {
      const deleted = deletedFolders(sim);
      return {
        request(req) {
          deleted.seen(req);
          return req;
        },
        answer(req, a) {
          const to = req.method === "POST" && pathOnly(req) === "/v1/library/move" ? jsonBody(req)?.folder_id : undefined;
          return typeof to === "string" && deleted.ids.has(to) && a.status === 404 ? { ...a, status: 200, body: "{}" } : a;
        },
      };
    },
  },
  {
    rule: "LIB-3",
    area: "library",
    found: "default",
    title: "keeps a deleted folder's name taken (409 folder_name_taken for a name no folder has)",
    make(sim) {
      const deleted = deletedFolders(sim);
      return {
        request(req) {
          deleted.seen(req);
          return req;
        },
        answer(req, a) {
          const name = req.method === "POST" && pathOnly(req) === "/v1/library/folders" ? jsonBody(req)?.name : undefined;
          if (typeof name !== "string" || !deleted.names.has(name) || a.status >= 300) return a;
          const message = "A folder with this name already exists.";
          return { ...a, status: 409, headers: { ...a.headers, "content-type": "application/json; charset=utf-8" }, body: JSON.stringify({ error: { code: "folder_name_taken", message, user_message: message, request_id: req.headers["x-request-id"] } }) };
        },
      };
    },
  },
  // ---- Uploads ---------------------------------------------------------------------------
  {
    rule: "UPL-7",
    area: "uploads",
    found: "default",
    title: "caches the library list and forgets to refresh it when a ticket is completed through the proxy path",
    make() {
      // Every other write refreshes it (a direct PUT to storage, a move, a folder change).
      const cache = new Map<string, string>();
      return {
        answer(req, a) {
          if (req.method === "GET" && pathOnly(req) === "/v1/library/assets" && a.status === 200) {
            const cached = cache.get(req.path);
            if (cached !== undefined) return { ...a, body: cached };
            cache.set(req.path, a.body);
          } else if (req.method !== "GET" && !(req.method === "PUT" && pathOnly(req) === "/v1/uploads/content")) cache.clear();
          return a;
        },
      };
    },
  },
  // ---- Events -------------------------------------------------------------------------------
  {
    rule: "EVT-11",
    area: "events",
    found: "default",
    with: ["PRICE-1"],
    title: "leaves the PENDING status out of the event stream (the record reads PENDING)",
    make: () => framesKept((frame) => !(/^event: generation\.status_changed$/m.test(frame) && /"status":"PENDING"/.test(frame))),
  },
  {
    rule: "EVT-10",
    area: "events",
    found: "default",
    with: ["PRICE-1"],
    title: "checks the types of an event stream and then ignores them (every generation's events come)",
    make(sim) {
      return {
        request(req) {
          if (req.method !== "GET" || pathOnly(req) !== "/v1/events") return req;
          const url = new URL(req.path, "http://x");
          // One `types` only (given twice is another bug: the double does not read it).
          if (url.searchParams.getAll("types").length !== 1) return req;
          const asked = (url.searchParams.get("types") ?? "").split(",").filter(Boolean);
          const known = new Set(sim.hub.state.models.map((m) => m.type));
          if (asked.length === 0 || !asked.every((t) => known.has(t))) return req;
          url.searchParams.delete("types");
          return { ...req, path: url.pathname + url.search };
        },
      };
    },
  },
  // ---- With control of the server: cancel, delete, revoke a key ----------------------------
  {
    rule: "ST-2",
    also: ["EVT-11"],
    area: "events",
    found: "default",
    with: ["PRICE-1"],
    title: "sends a cancellation's FAILED event without deleted: true",
    make: () => ({
      stream(_req, chunk) {
        return chunk.replace(/("status":"FAILED"[^\n]*"deleted":)true/g, "$1false");
      },
    }),
  },
  {
    rule: "ST-3",
    also: ["EVT-11"],
    area: "events",
    found: "default",
    with: ["PRICE-1"],
    title: "sends a deletion's event with status FAILED instead of the generation's own",
    make: () => ({
      stream(_req, chunk) {
        return chunk.replace(/"status":"DONE"([^\n]*"deleted":true)/g, '"status":"FAILED"$1');
      },
    }),
  },
  {
    rule: "ST-4",
    area: "stateful",
    found: "default",
    with: ["PRICE-1"],
    title: "reads a generation DONE by a late result without refunded",
    make: () => ({
      answer(req, a) {
        if (req.method !== "GET" || !/^\/v1\/generations\/[^/]+$/.test(pathOnly(req))) return a;
        return editJson(a, ({ refunded: _refunded, ...g }) => (g.status === "DONE" ? g : { ...g, refunded: _refunded }));
      },
    }),
  },
  {
    rule: "ST-4",
    area: "events",
    found: "default",
    with: ["PRICE-1"],
    title: "sends no event when a late result turns a FAILED generation DONE",
    make() {
      const failed = new WeakMap<ProxiedRequest, Set<string>>();
      return {
        stream(req, chunk) {
          const ids = failed.get(req) ?? new Set<string>();
          failed.set(req, ids);
          return chunk
            .split("\n\n")
            .filter((frame) => {
              const id = /"id":"(gen_\w+)"/.exec(frame)?.[1];
              if (!id || !/^event: generation\.status_changed$/m.test(frame)) return true;
              if (/"status":"FAILED"/.test(frame)) ids.add(id);
              return !(ids.has(id) && /"status":"DONE"/.test(frame));
            })
            .join("\n\n");
        },
      };
    },
  },
  {
    rule: "LIM-4",
    area: "limits",
    found: "default",
    notWithGenerate: OPENED_WINDOWS,
    title: "gives Retry-After as an HTTP date when a request window refuses",
    make: () => requestWindowRefusal((a) => ({ ...a.headers, "retry-after": new Date(Date.now() + Number(a.headers["retry-after"] ?? 0) * 1000).toUTCString() })),
  },
  {
    rule: "LIM-4",
    area: "limits",
    found: "default",
    notWithGenerate: OPENED_WINDOWS,
    title: "says Retry-After: 0 when a request window refuses, whatever is left of the window",
    make: () => requestWindowRefusal((a) => ({ ...a.headers, "retry-after": "0" })),
  },
  {
    rule: "LIM-4",
    area: "limits",
    found: "default",
    notWithGenerate: OPENED_WINDOWS,
    title: "describes the account window, not the refusing key window, in the pair of a key window's refusal",
    make: (sim) => ({
      answer(req, a) {
        const account = keyOf(sim, req)?.account_id;
        return a.status === 429 && account && /"reason":"request_rate"/.test(a.body) && /"scope":"default"/.test(a.body) ? { ...a, headers: { ...a.headers, ...accountPair(sim, account) } } : a;
      },
    }),
  },
  {
    rule: "GEN-9",
    area: "stateful",
    found: "default",
    with: ["PRICE-1"],
    title: "still reads a cancelled generation by its id",
    make(sim) {
      return {
        answer(req, a) {
          const m = /^\/v1\/generations\/([^/]+)$/.exec(pathOnly(req));
          const gen = m && req.method === "GET" && a.status === 404 ? sim.hub.state.generations.get(decodeURIComponent(m[1]!)) : undefined;
          // Cancelled: FAILED and deleted (a revoked or deleted one keeps its status).
          if (!gen || !gen.deleted || gen.status !== "FAILED") return a;
          return { ...a, status: 200, body: JSON.stringify(sim.hub.generations.record(gen, sim.url)) };
        },
      };
    },
  },
  {
    rule: "AUTH-7",
    also: ["EVT-7"],
    area: "auth ladder",
    found: "default",
    title: "caches key checks: a key once accepted keeps working after it is revoked",
    make(sim) {
      const accepted = new Set<string>();
      return {
        request(req) {
          const key = keyOf(sim, req);
          if (!key?.revoked || !accepted.has(key.secret)) return req;
          // The cache says the key is good: the request goes on as the account's (the main key stands in).
          return { ...req, headers: { ...req.headers, authorization: "Bearer ghk_demo_full" } };
        },
        answer(req, a) {
          const key = keyOf(sim, req);
          if (key && !key.revoked && a.status < 300) accepted.add(key.secret);
          return a;
        },
      };
    },
  },
  // ---- The ledger ------------------------------------------------------------------------
  {
    rule: "BILL-1",
    area: "stateful",
    found: "default",
    with: ["PRICE-1"],
    title: "lists the ledger's amount_cc in whole credits (the balance moves in centi-credits)",
    make() {
      return {
        answer(req, a) {
          if (req.method !== "GET" || pathOnly(req) !== "/v1/billing/transactions" || a.status !== 200) return a;
          return editJson(a, (body) => ({ ...body, data: body.data.map((r: any) => (Number.isInteger(r?.amount_cc) ? { ...r, amount_cc: Math.trunc(r.amount_cc / 100) } : r)) }));
        },
      };
    },
  },
  // ---- OAuth grants ----------------------------------------------------------------------
  {
    rule: "OAUTH-13",
    area: "oauth",
    found: "default",
    with: ["OAUTH-6"],
    title: "gives a refresh every scope it asks for, also scopes the grant does not hold",
    make(sim) {
      const refresh = (req: ProxiedRequest) => (req.method === "POST" && pathOnly(req) === "/oauth/token" ? new URLSearchParams(req.body.toString("utf8")) : undefined);
      return {
        // The refresh goes upstream without its scope (the whole grant), and the token is then given what was asked.
        request(req) {
          const form = refresh(req);
          const asked = form?.get("scope");
          if (!form || form.get("grant_type") !== "refresh_token" || !asked) return req;
          form.delete("scope");
          return { ...req, body: Buffer.from(form.toString()), headers: { ...req.headers, "x-asked-scope": asked } };
        },
        answer(req, a) {
          const asked = req.headers["x-asked-scope"];
          if (typeof asked !== "string" || a.status !== 200) return a;
          return editJson(a, (body) => {
            const token = sim.hub.state.oauth.access.get(String(body.access_token));
            if (token) token.scopes = asked.split(" ");
            return { ...body, scope: asked };
          });
        },
      };
    },
  },
  {
    rule: "ST-6",
    area: "oauth",
    found: "default",
    with: ["OAUTH-6"],
    title: "caches token checks: an access token once accepted stays accepted after its grant is revoked",
    make: (sim) => tokenCache(sim),
  },
  {
    rule: "ACC-2",
    area: "oauth",
    found: "default",
    with: ["OAUTH-6"],
    title: "names the access token's own id as key_id in whoami (not its grant's)",
    make() {
      return {
        answer(req, a) {
          const token = /^Bearer\s+(gho_\S+)$/i.exec(String(req.headers.authorization ?? ""))?.[1];
          if (!token || req.method !== "GET" || pathOnly(req) !== "/v1/whoami" || a.status !== 200) return a;
          return editJson(a, (body) => ({ ...body, key_id: `tok_${token.slice(-8)}` }));
        },
      };
    },
  },
];

/** A 429 of a request window (`rate_limited`, reason `request_rate`) with the headers `edit` makes. */
function requestWindowRefusal(edit: (a: ProxiedAnswer) => Record<string, string>): Rewrite {
  return {
    answer(_req, a) {
      return a.status === 429 && /"reason":"request_rate"/.test(a.body) ? { ...a, headers: edit(a) } : a;
    },
  };
}

/** The RateLimit pair of an account's window under way: its quota, what is left, its reset. */
function accountPair(sim: RunningSimulator, account: string): Record<string, string> {
  const { accountQuota, windowSeconds } = sim.hub.limiter.config;
  const w = sim.hub.limiter.spent().find((x) => x.window === "account" && x.id === account);
  if (!w) return {};
  const reset = Math.max(1, Math.ceil((w.start + windowSeconds * 1000 - sim.hub.clock.now()) / 1000));
  return { ratelimit: `"account";r=${accountQuota - w.used};t=${reset}`, "ratelimit-policy": `"account";q=${accountQuota};w=${windowSeconds}` };
}
