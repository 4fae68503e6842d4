// Deliberately broken servers: the simulator behind a proxy with one injected contract
// bug each, naming the seed rule it breaks. Used by the broken-server tests and by
// bench/conformance.ts (which runs the suite against every one, without and with
// generated inputs).
import { randomUUID } from "node:crypto";
import { schemaValidator, toDetails } from "../../../src/contract/index.ts";
import type { RunningSimulator, SimulatorOptions } from "../../../src/simulator/index.ts";
import { clampsKnowledgeLimit, coercesTypes, crashesOnNullBody, crashesOnUnknownField, internalError, jsonBody, ignoresContentType, missingRoutes, neverLocalised, nullAsAbsent, stackTraces, takesOtherVariantsFields } from "./faults.ts";
import { bodyRewrite, editJson, framesKept, pathOnly, queryRewrite, statusRewrite, type ProxiedRequest, type Rewrite } from "./proxy.ts";
import { ROUTE_DOUBLES } from "./doubles-routes.ts";
import { SEQUENCE_DOUBLES } from "./doubles-sequences.ts";
import { TIME_DOUBLES } from "./doubles-time.ts";

export interface Double {
  /** The rule the double breaks. */
  rule: string;
  /** Other rules of the seed that state the same thing (or that the one bug breaks too). */
  also?: string[];
  title: string;
  /** The area of the seed it breaks (the benchmark's grouping). */
  area: string;
  /**
   * Which run finds it: the default one, or only a run with generated inputs (`--generate`,
   * its stateful walk included).
   */
  found: "default" | "generate";
  /**
   * The simulator's own options the run needs to meet it (its numbers, none of the
   * contract's), when the simulator as the tests start it never reaches the bug's ground.
   */
  simulator?: SimulatorOptions;
  /** Why a run with generated inputs cannot meet it (it opens the simulator's rate windows, so none can be exceeded): the default run's find is the one claimed. */
  notWithGenerate?: string;
  /** The operations whose generated inputs (or sequences) meet it: what a quick run generates for. */
  operations?: string[];
  /** Rules whose checks a quick run (`--only`) needs besides the broken ones (they make what the check probes). */
  with?: string[];
  make(sim: RunningSimulator): Rewrite;
}

function callerAccount(sim: RunningSimulator, req: ProxiedRequest): string | undefined {
  const m = /^Bearer\s+(\S+)$/i.exec(String(req.headers.authorization ?? ""));
  return m ? sim.hub.state.keys.get(m[1]!)?.account_id : undefined;
}


function callerKey(sim: RunningSimulator, req: ProxiedRequest) {
  const m = /^Bearer\s+(\S+)$/i.exec(String(req.headers.authorization ?? ""));
  return m ? sim.hub.state.keys.get(m[1]!) : undefined;
}


/**
 * A submit whose Idempotency-Key, given again with the same body (a replay) or with
 * another body (a conflict), reaches the simulator as a new key: a new generation.
 */
function rekeyed(when: "same body" | "another body"): Rewrite {
  const firstBody = new Map<string, string>();
  return {
    request(req) {
      const key = req.headers["idempotency-key"];
      if (req.method !== "POST" || pathOnly(req) !== "/v1/generations" || typeof key !== "string") return req;
      const text = req.body.toString("utf8");
      if (!firstBody.has(key)) firstBody.set(key, text);
      else if ((firstBody.get(key) === text) === (when === "same body")) return { ...req, headers: { ...req.headers, "idempotency-key": `${key}-${randomUUID()}` } };
      return req;
    },
  };
}

/** `METHOD /v1/generations/{id}` of another account's generation answered 403 (it exists) where a missing one answers 404. */
function leaksAs403(sim: RunningSimulator, method: string): Rewrite {
  return {
    answer(req, a) {
      const m = /^\/v1\/generations\/([^/]+)$/.exec(pathOnly(req));
      if (req.method !== method || !m || a.status !== 404) return a;
      const gen = sim.hub.state.generations.get(decodeURIComponent(m[1]!));
      if (!gen || gen.account_id === callerAccount(sim, req)) return a;
      return editJson({ ...a, status: 403 }, (body) => ({ error: { ...body.error, code: "insufficient_scope", message: "This generation belongs to another account.", user_message: "This generation belongs to another account." } }));
    },
  };
}

export const DOUBLES: Double[] = [
  {
    rule: "SUB-1",
    area: "idempotency",
    found: "default",
    with: ["PRICE-1"],
    title: "answers 201 to a new submit (replays still 202)",
    make() {
      const seen = new Set<string>();
      return {
        answer(req, a) {
          if (req.method !== "POST" || pathOnly(req) !== "/v1/generations" || a.status !== 202) return a;
          const key = String(req.headers["idempotency-key"]);
          if (seen.has(key)) return a;
          seen.add(key);
          return { ...a, status: 201 };
        },
      };
    },
  },
  {
    rule: "PAGE-3",
    area: "paging",
    found: "default",
    title: "clamps limit into 1..100 instead of refusing it",
    make: () =>
      queryRewrite("GET", /^\/v1\/generations$/, (q) => {
        const limit = q.get("limit");
        if (limit === null) return false;
        q.set("limit", String(Math.min(100, Math.max(1, Number(limit) || 1))));
        return true;
      }),
  },
  {
    rule: "ENV-4",
    area: "envelope",
    found: "default",
    with: ["PAGE-3"],
    title: "drops request_id from the error envelope",
    make() {
      return {
        answer(_req, a) {
          if (a.status < 400) return a;
          return editJson(a, (body) => {
            if (body?.error) delete body.error.request_id;
            return body;
          });
        },
      };
    },
  },
  {
    rule: "EP-2",
    area: "headers",
    found: "default",
    title: "answers its own X-Request-Id instead of the caller's",
    make() {
      let n = 0;
      return {
        answer(_req, a) {
          return { ...a, headers: { ...a.headers, "x-request-id": `req_proxy_${++n}` } };
        },
      };
    },
  },
  {
    rule: "EVT-9",
    area: "events",
    found: "default",
    with: ["PRICE-1"],
    title: "repeats the Last-Event-ID's own event after a resume",
    make() {
      const byId = new Map<string, string>();
      return {
        stream(req, chunk, first) {
          for (const frame of chunk.split("\n\n")) {
            const id = /^id: (.+)$/m.exec(frame)?.[1];
            if (id && /^event: generation\.status_changed$/m.test(frame)) byId.set(id, `${frame}\n\n`);
          }
          const last = req.headers["last-event-id"];
          if (first && typeof last === "string" && byId.has(last)) return byId.get(last)! + chunk;
          return chunk;
        },
      };
    },
  },
  {
    rule: "GEN-9",
    area: "auth ladder",
    found: "default",
    title: "answers 403 for another account's generation (a leak: it exists)",
    make: (sim) => leaksAs403(sim, "GET"),
  },
  {
    rule: "BATCH-1",
    area: "paging",
    found: "default",
    title: "trims a batch of 51 ids to 50 instead of refusing it",
    make: () => bodyRewrite("POST", "/v1/generations/status", (body) => (Array.isArray(body?.ids) && body.ids.length > 50 ? { ...body, ids: body.ids.slice(0, 50) } : undefined)),
  },
  {
    rule: "CAT-4",
    area: "headers",
    found: "default",
    title: "ignores If-None-Match on the model catalog",
    make() {
      return {
        request(req) {
          if (pathOnly(req) !== "/v1/models") return req;
          const headers = { ...req.headers };
          delete headers["if-none-match"];
          return { ...req, headers };
        },
      };
    },
  },
  {
    rule: "LIM-2",
    area: "headers",
    found: "default",
    title: "adds the legacy X-RateLimit-* headers beside the structured pair",
    make() {
      return {
        answer(_req, a) {
          const limit = /r=(\d+)/.exec(a.headers.ratelimit ?? "");
          if (!limit) return a;
          return { ...a, headers: { ...a.headers, "x-ratelimit-remaining": limit[1]! } };
        },
      };
    },
  },
  {
    rule: "UPL-7",
    area: "uploads",
    found: "default",
    also: ["ST-7"],
    title: "a storage that accepts a second PUT to a signed url",
    make() {
      return {
        answer(req, a) {
          if (req.method !== "PUT" || !pathOnly(req).startsWith("/storage/") || a.status !== 412) return a;
          return { ...a, status: 200, body: "" };
        },
      };
    },
  },
  {
    rule: "UPL-8",
    area: "uploads",
    found: "default",
    title: "answers a second proxy completion of a ticket with the first completion's 200",
    make() {
      const completed = new Map<string, string>();
      return {
        answer(req, a) {
          if (req.method !== "PUT" || pathOnly(req) !== "/v1/uploads/content") return a;
          const ticket = new URL(req.path, "http://x").searchParams.get("ticket") ?? "";
          if (a.status === 200) completed.set(ticket, a.body);
          else if (a.status === 409 && completed.has(ticket)) return { ...a, status: 200, body: completed.get(ticket)! };
          return a;
        },
      };
    },
  },
  {
    rule: "LIB-5",
    area: "library",
    found: "default",
    with: ["UPL-1"],
    title: "deletes a folder's contents with the folder",
    make(sim) {
      return {
        request(req) {
          const m = /^\/v1\/library\/folders\/([^/]+)$/.exec(pathOnly(req));
          if (req.method === "DELETE" && m) {
            const assets = sim.hub.state.library.assets;
            for (const [id, asset] of assets) if (asset.folder_id === decodeURIComponent(m[1]!)) assets.delete(id);
          }
          return req;
        },
      };
    },
  },
  {
    rule: "SUP-3",
    area: "support",
    found: "default",
    title: "creates a second support message on a replay of the same client_msg_id",
    make() {
      const first = new Map<string, string>();
      return {
        request(req) {
          if (req.method !== "POST" || pathOnly(req) !== "/v1/support/messages") return req;
          try {
            const body = JSON.parse(req.body.toString("utf8"));
            const id = String(body.client_msg_id);
            const text = req.body.toString("utf8");
            if (!first.has(id)) first.set(id, text);
            else if (first.get(id) === text) {
              // The replay goes through as a new message; the reply names the caller's id again.
              return { ...req, body: Buffer.from(JSON.stringify({ ...body, client_msg_id: randomUUID() })), headers: { ...req.headers, "x-replayed-msg-id": id } };
            }
          } catch {
            // not JSON: leave it
          }
          return req;
        },
        answer(req, a) {
          const id = req.headers["x-replayed-msg-id"];
          if (typeof id !== "string") return a;
          return editJson(a, (body) => ({ ...body, client_msg_id: id }));
        },
      };
    },
  },
  {
    rule: "OAUTH-17",
    area: "oauth",
    found: "default",
    title: "answers 400 to the revocation of a token it does not know",
    make(sim) {
      return {
        answer(req, a) {
          if (req.method !== "POST" || pathOnly(req) !== "/oauth/revoke" || a.status !== 200) return a;
          const token = new URLSearchParams(req.body.toString("utf8")).get("token") ?? "";
          const s = sim.hub.state.oauth;
          if (s.access.has(token) || s.refresh.has(token)) return a;
          return { ...a, status: 400, headers: { ...a.headers, "content-type": "application/json" }, body: JSON.stringify({ error: "invalid_request", error_description: "Unknown token." }) };
        },
      };
    },
  },
  {
    rule: "OAUTH-3",
    area: "oauth",
    found: "default",
    title: "issues a client_secret with every registration",
    make() {
      return {
        answer(req, a) {
          if (req.method !== "POST" || pathOnly(req) !== "/oauth/register" || a.status !== 201) return a;
          return editJson(a, (body) => ({ ...body, client_secret: `secret_${randomUUID()}` }));
        },
      };
    },
  },
  {
    rule: "AUTH-3",
    area: "auth ladder",
    found: "default",
    title: "takes mutating session-cookie requests from any Origin, or none",
    make(sim) {
      return {
        request(req) {
          const mutating = ["POST", "PUT", "PATCH", "DELETE"].includes(req.method);
          if (!mutating || !req.headers.cookie || req.headers.authorization) return req;
          return { ...req, headers: { ...req.headers, origin: sim.url } };
        },
      };
    },
  },
  {
    rule: "LIM-3",
    area: "headers",
    found: "default",
    title: "does not count requests down in RateLimit",
    make() {
      return {
        // Every answer's, an event stream's and a file's too: the server's one counter stands still.
        head(_req, headers) {
          return headers.ratelimit ? { ...headers, ratelimit: headers.ratelimit.replace(/r=\d+/, "r=250") } : headers;
        },
      };
    },
  },
  // ---- Headers -------------------------------------------------------------------------
  {
    rule: "W-13",
    area: "headers",
    found: "default",
    title: "marks /v1 reads Cache-Control: public, max-age=60",
    make() {
      return {
        answer(req, a) {
          if (req.method !== "GET" || !pathOnly(req).startsWith("/v1/") || pathOnly(req) === "/v1/models" || a.status >= 300) return a;
          return { ...a, headers: { ...a.headers, "cache-control": "public, max-age=60" } };
        },
      };
    },
  },
  {
    rule: "EP-3",
    area: "headers",
    found: "default",
    title: "sends RateLimit without RateLimit-Policy",
    make() {
      return {
        answer(_req, a) {
          const { "ratelimit-policy": _gone, ...headers } = a.headers;
          return { ...a, headers };
        },
      };
    },
  },
  // ---- Paging --------------------------------------------------------------------------
  {
    rule: "PAGE-4",
    also: ["PAGE-1"],
    area: "paging",
    found: "default",
    title: "overlapping pages: a cursor's page starts with the previous page's last record",
    make() {
      const lastBefore = new Map<string, unknown>();
      return {
        answer(req, a) {
          if (req.method !== "GET" || a.status !== 200 || !/^\/v1\/(generations|billing\/transactions|library\/assets)$/.test(pathOnly(req))) return a;
          const cursor = new URL(req.path, "http://x").searchParams.get("cursor");
          return editJson(a, (body) => {
            if (!Array.isArray(body?.data)) return body;
            const prev = cursor ? lastBefore.get(cursor) : undefined;
            if (typeof body.next_cursor === "string" && body.data.length > 0) lastBefore.set(body.next_cursor, body.data.at(-1));
            if (prev !== undefined && body.data.length > 0) body.data = [prev, ...body.data.slice(0, -1)];
            return body;
          });
        },
      };
    },
  },
  {
    rule: "PAGE-2",
    also: ["PAGE-4"],
    area: "paging",
    found: "default",
    title: "ignores cursor: every page is the first",
    make: () => queryRewrite("GET", /^\/v1\/(generations|billing\/transactions|library\/assets)$/, (q) => q.has("cursor") && (q.delete("cursor"), true)),
  },
  {
    rule: "PAGE-3",
    area: "paging",
    found: "default",
    title: "answers a repeated limit by its first value (limit=1&limit=100 serves 1)",
    make: () =>
      queryRewrite("GET", /^\/v1\//, (q) => {
        const all = q.getAll("limit");
        if (all.length < 2) return false;
        q.set("limit", all[0]!);
        return true;
      }),
  },
  // ---- Idempotency ---------------------------------------------------------------------
  {
    rule: "SUB-2",
    // A new generation spends submit quota too: the seed says a replay spends none twice.
    also: ["LIM-5"],
    area: "idempotency",
    found: "default",
    with: ["PRICE-1"],
    title: "a replay of the same key and body creates a second generation",
    make: () => rekeyed("same body"),
  },
  {
    rule: "SUB-3",
    area: "idempotency",
    found: "default",
    with: ["PRICE-1"],
    title: "the same key with another body is taken as a new submit (no conflict)",
    make: () => rekeyed("another body"),
  },
  // ---- Events --------------------------------------------------------------------------
  {
    rule: "EVT-11",
    also: ["ST-1"],
    area: "events",
    found: "default",
    with: ["PRICE-1"],
    title: "leaves the creation of a generation out of the event stream",
    make() {
      const seen = new Set<string>();
      return framesKept((frame) => {
        const id = /^event: generation\.status_changed$/m.test(frame) ? /"id":"([^"]+)"/.exec(frame)?.[1] : undefined;
        if (!id || seen.has(id)) return true;
        seen.add(id);
        return false;
      });
    },
  },
  {
    rule: "EVT-6",
    area: "events",
    found: "default",
    title: "sends no reset frame when Last-Event-ID cannot be resumed",
    make: () => framesKept((frame) => !/^event: reset$/m.test(frame)),
  },
  // ---- The auth ladder -----------------------------------------------------------------
  {
    rule: "AUTH-7",
    also: ["AUTH-6"],
    area: "auth ladder",
    found: "default",
    title: "checks a submit's body before the scope rung (a key without generations:write gets 400)",
    make() {
      return {
        answer(req, a) {
          if (req.method !== "POST" || pathOnly(req) !== "/v1/generations" || a.status !== 403 || !a.body.includes("insufficient_scope")) return a;
          const body = jsonBody(req);
          if (body && typeof body.type === "string") return a;
          return editJson({ ...a, status: 400 }, (b) => ({ error: { ...b.error, code: "invalid_request", message: "Parameters not valid; see `details`.", user_message: "Parameters not valid; see `details`.", details: [{ field: "type", reason: "required", message: "type is required" }] } }));
        },
      };
    },
  },
  {
    rule: "AUTH-1",
    area: "auth ladder",
    found: "default",
    title: "authenticates with the first of two Authorization headers",
    make() {
      return {
        request(req) {
          const lines: string[] = [];
          for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === "authorization") lines.push(req.rawHeaders[i + 1]!);
          if (lines.length < 2) return req;
          // Only the first line goes on.
          const raw: string[] = [];
          for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() !== "authorization" || req.rawHeaders[i + 1] === lines[0]) raw.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
          return { ...req, headers: { ...req.headers, authorization: lines[0]! }, rawHeaders: raw };
        },
      };
    },
  },
  {
    rule: "AUTH-6",
    area: "stateful",
    found: "default",
    operations: ["deleteLibraryFolder"],
    title: "ignores library:write: a key without it may change and delete folders",
    make(sim) {
      // The key is served as if it held the scope (its own rate window still counts it).
      let granted: { scopes: string[] } | undefined;
      return {
        request(req) {
          const key = callerKey(sim, req);
          if (req.method === "GET" || !pathOnly(req).startsWith("/v1/library/") || !key || key.scopes.includes("library:write")) return req;
          granted = key;
          key.scopes = [...key.scopes, "library:write"];
          return req;
        },
        answer(_req, a) {
          if (granted) granted.scopes = granted.scopes.filter((s) => s !== "library:write");
          granted = undefined;
          return a;
        },
      };
    },
  },
  // ---- Uploads, library, support, OAuth ---------------------------------------------------
  {
    rule: "UPL-6",
    area: "uploads",
    found: "default",
    title: "answers 201 to an upload ticket",
    make: () => statusRewrite("POST", "/v1/uploads", 200, 201),
  },
  {
    rule: "LIB-3",
    area: "library",
    found: "default",
    title: "answers a folder name that exists with 201 instead of 409 folder_name_taken",
    make() {
      return {
        answer(req, a) {
          if (req.method !== "POST" || pathOnly(req) !== "/v1/library/folders" || a.status !== 409 || !a.body.includes("folder_name_taken")) return a;
          return { ...a, status: 201, body: "{}" };
        },
      };
    },
  },
  {
    rule: "SUP-1",
    area: "support",
    found: "default",
    title: "trims the text of a support message",
    make: () => bodyRewrite("POST", "/v1/support/messages", (body) => (typeof body?.text === "string" ? { ...body, text: body.text.trim().replace(/\s+/g, " ") } : undefined)),
  },
  {
    rule: "OAUTH-16",
    area: "oauth",
    found: "default",
    title: "token errors come without error_description",
    make() {
      return {
        answer(req, a) {
          if (req.method !== "POST" || pathOnly(req) !== "/oauth/token" || a.status < 400) return a;
          return editJson(a, (body) => {
            if (body && typeof body === "object") delete body.error_description;
            return body;
          });
        },
      };
    },
  },
  // ---- The envelope ----------------------------------------------------------------------
  {
    rule: "ENV-6",
    area: "envelope",
    found: "default",
    title: "adds error.stack with a stack trace to every error",
    make: () => stackTraces("stack"),
  },
  {
    rule: "ENV-3",
    area: "envelope",
    found: "default",
    title: "English only: user_message never Russian under Accept-Language: ru",
    make: () => neverLocalised(),
  },
  {
    rule: "EP-4",
    // The route's own statuses (BILL-3) fail; its record (BILL-2) and the subscription
    // actions' replies (SUBS-2) are never seen, so n/a.
    also: ["EP-1", "EP-2", "W-13", "W-5", "BILL-3", "W-7"],
    area: "envelope",
    found: "default",
    title: "GET /v1/billing/subscription never mounted: express's HTML 404",
    make: () => missingRoutes(["GET /v1/billing/subscription"]),
  },
  // ---- Generated-input bugs -----------------------------------------------------------------
  {
    rule: "PAGE-3",
    area: "generated inputs",
    found: "default",
    operations: ["searchKnowledge"],
    title: "a bound not enforced: the knowledge search clamps limit into 1..100",
    make: () => clampsKnowledgeLimit(),
  },
  {
    rule: "PRICE-7",
    area: "generated inputs",
    found: "default",
    operations: ["estimatePrice"],
    title: "the price estimate crashes (500) on a field its variant does not have",
    make: () => crashesOnUnknownField(),
  },
  {
    rule: "PRICE-7",
    area: "generated inputs",
    found: "default",
    operations: ["estimatePrice"],
    title: "the price estimate answers 2xx to a JSON body sent as text/plain",
    make: () => ignoresContentType(),
  },
  {
    rule: "BATCH-1",
    area: "generated inputs",
    found: "default",
    operations: ["readGenerationStatuses"],
    title: "the batch status read answers 500 to an id of the wrong type",
    make() {
      const valid = schemaValidator("GenerationStatusRequest");
      return {
        answer(req, a) {
          const body = req.method === "POST" && pathOnly(req) === "/v1/generations/status" ? jsonBody(req) : undefined;
          if (body === undefined || valid(body) || !toDetails(valid.errors).some((d) => d.reason === "wrong_type")) return a;
          return internalError(req, a);
        },
      };
    },
  },
  {
    rule: "LIB-3",
    area: "generated inputs",
    found: "default",
    operations: ["createLibraryFolder"],
    title: "a folder create takes an unknown field (drops it instead of refusing it)",
    make: () => bodyRewrite("POST", "/v1/library/folders", (body) => (body && typeof body === "object" && !Array.isArray(body) ? ("name" in body ? { name: body.name } : {}) : undefined)),
  },
  // Negative inputs: another JSON type, null, a value a lenient parser coerces, a field of
  // another variant, a body of another JSON type (the types of every input, in every run;
  // --generate sends every other wrong value too).
  {
    rule: "PRICE-7",
    area: "generated inputs",
    found: "default",
    operations: ["estimatePrice"],
    title: "the price estimate converts a value of the wrong type before it validates (\"2\" taken for 2, \"true\" for true, [\"a\"] for \"a\")",
    make: () => coercesTypes(),
  },
  {
    rule: "PRICE-7",
    area: "generated inputs",
    found: "default",
    operations: ["estimatePrice"],
    title: "the price estimate drops a field of another submit variant instead of refusing it (one model of every variant's fields)",
    make: () => takesOtherVariantsFields(),
  },
  {
    rule: "SUP-3",
    area: "generated inputs",
    found: "default",
    operations: ["sendSupportMessage"],
    title: "a support message takes null for a field left out",
    make: () => nullAsAbsent("/v1/support/messages"),
  },
  {
    rule: "LIB-6",
    area: "generated inputs",
    found: "default",
    operations: ["moveLibraryItems"],
    title: "a library move crashes (500) on a body that is JSON null",
    make: () => crashesOnNullBody("/v1/library/move"),
  },
  // ---- Stateful bugs ---------------------------------------------------------------------
  {
    rule: "LIB-5",
    area: "stateful",
    // The default run sweeps every route of the folder it deleted (sequences/gone.ts); the walk does too.
    found: "default",
    operations: ["createLibraryFolder"],
    title: "a deleted folder still takes changes (PATCH and DELETE answer 2xx)",
    make() {
      const deleted = new Set<string>();
      return {
        answer(req, a) {
          const m = /^\/v1\/library\/folders\/([^/]+)$/.exec(pathOnly(req));
          if (!m || (req.method !== "PATCH" && req.method !== "DELETE")) return a;
          if (deleted.has(m[1]!) && a.status === 404) return { ...a, status: 200, body: "{}" };
          if (req.method === "DELETE" && a.status < 300) deleted.add(m[1]!);
          return a;
        },
      };
    },
  },
  {
    rule: "REP-3",
    area: "stateful",
    // The default run sweeps every route of the generation it revoked (sequences/gone.ts); the walk does too.
    found: "default",
    operations: ["submitGeneration"],
    with: ["PRICE-1", "SUB-1"],
    title: "a generation revoked by a moderation report still takes title changes",
    make() {
      const revoked = new Set<string>();
      return {
        answer(req, a) {
          const title = /^\/v1\/generations\/([^/]+)$/.exec(pathOnly(req));
          if (title && req.method === "PATCH" && revoked.has(title[1]!) && a.status === 404) return { ...a, status: 200, body: "{}" };
          const report = /^\/v1\/generations\/([^/]+)\/report$/.exec(pathOnly(req));
          if (report && req.method === "POST" && a.status === 201 && jsonBody(req)?.reason === "moderation") revoked.add(report[1]!);
          return a;
        },
      };
    },
  },
  {
    rule: "W-8",
    area: "stateful",
    found: "default",
    operations: ["changeGenerationTitle"],
    with: ["SUB-1", "PRICE-1"],
    title: "another account's generation leaks on the title change (403, a missing one 404)",
    make: (sim) => leaksAs403(sim, "PATCH"),
  },
  ...ROUTE_DOUBLES,
  // ---- Bugs across calls (doubles-sequences.ts) -------------------------------------------
  ...SEQUENCE_DOUBLES,
  // ---- Bugs that show once time has passed (doubles-time.ts) ------------------------------
  ...TIME_DOUBLES,
];
