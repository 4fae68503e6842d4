// Deliberately broken servers: the simulator behind a proxy that breaks exactly one seed
// rule each. Used by broken-servers.test.ts.
import { randomUUID } from "node:crypto";
import type { RunningSimulator } from "../../../src/simulator/index.ts";
import { editJson, pathOnly, type ProxiedRequest, type Rewrite } from "./proxy.ts";

export interface Double {
  /** The rule the double breaks. */
  rule: string;
  /** Other rules of the seed that state the same thing, so the double breaks them too. */
  also?: string[];
  title: string;
  make(sim: RunningSimulator): Rewrite;
}

function callerAccount(sim: RunningSimulator, req: ProxiedRequest): string | undefined {
  const m = /^Bearer\s+(\S+)$/i.exec(String(req.headers.authorization ?? ""));
  return m ? sim.hub.state.keys.get(m[1]!)?.account_id : undefined;
}

export const DOUBLES: Double[] = [
  {
    rule: "SUB-1",
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
    title: "clamps limit into 1..100 instead of refusing it",
    make() {
      return {
        request(req) {
          if (req.method !== "GET" || pathOnly(req) !== "/v1/generations") return req;
          const url = new URL(req.path, "http://x");
          const limit = url.searchParams.get("limit");
          if (limit === null) return req;
          url.searchParams.set("limit", String(Math.min(100, Math.max(1, Number(limit) || 1))));
          return { ...req, path: url.pathname + url.search };
        },
      };
    },
  },
  {
    rule: "ENV-4",
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
    title: "answers 403 for another account's generation (a leak: it exists)",
    make(sim) {
      return {
        answer(req, a) {
          const m = /^\/v1\/generations\/([^/]+)$/.exec(pathOnly(req));
          if (req.method !== "GET" || !m || a.status !== 404) return a;
          const gen = sim.hub.state.generations.get(decodeURIComponent(m[1]!));
          if (!gen || gen.account_id === callerAccount(sim, req)) return a;
          return editJson({ ...a, status: 403 }, (body) => ({ error: { ...body.error, code: "insufficient_scope", message: "This generation belongs to another account.", user_message: "This generation belongs to another account." } }));
        },
      };
    },
  },
  {
    rule: "BATCH-1",
    title: "trims a batch of 51 ids to 50 instead of refusing it",
    make() {
      return {
        request(req) {
          if (req.method !== "POST" || pathOnly(req) !== "/v1/generations/status") return req;
          try {
            const body = JSON.parse(req.body.toString("utf8"));
            if (Array.isArray(body.ids) && body.ids.length > 50) body.ids = body.ids.slice(0, 50);
            return { ...req, body: Buffer.from(JSON.stringify(body)) };
          } catch {
            return req;
          }
        },
      };
    },
  },
  {
    rule: "CAT-4",
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
    title: "does not count requests down in RateLimit",
    make() {
      return {
        answer(_req, a) {
          if (!a.headers.ratelimit) return a;
          return { ...a, headers: { ...a.headers, ratelimit: a.headers.ratelimit.replace(/r=\d+/, "r=250") } };
        },
      };
    },
  },
];
