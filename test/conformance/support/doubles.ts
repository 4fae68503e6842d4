// Deliberately broken servers: the simulator behind a proxy that breaks exactly one seed
// rule each. Used by broken-servers.test.ts.
import type { RunningSimulator } from "../../../src/simulator/index.ts";
import { editJson, pathOnly, type ProxiedRequest, type Rewrite } from "./proxy.ts";

export interface Double {
  /** The rule the double breaks. */
  rule: string;
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
