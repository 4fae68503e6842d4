// Servers that are hard on a client, for the suite's own tests of how it stops and what it
// keeps: an address where nothing listens, a server whose certificate nobody signed, one
// that never answers, one that sends an answer without end (streamed, never held in
// memory here), and one that accepts everything (so that every credential the suite sends
// or obtains ends up in a failure).
import { readFileSync } from "node:fs";
import { createServer as createHttp, type Server } from "node:http";
import { createServer as createHttps } from "node:https";
import { createServer as createTcp } from "node:net";
import { randomUUID } from "node:crypto";
import { editJson, pathOnly, type Rewrite } from "./proxy.ts";

export interface Listening {
  url: string;
  close(): Promise<void>;
}

async function listen(server: Server, scheme: "http" | "https"): Promise<Listening> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An address on this machine where nothing listens (a port taken and given back). */
export async function nothingListens(): Promise<string> {
  const server = createTcp();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** An https server with a self-signed certificate (support/self-signed.pem) answering 200 `{}`. */
export function selfSigned(): Promise<Listening> {
  const pem = readFileSync(new URL("./self-signed.pem", import.meta.url), "utf8");
  const server = createHttps({ cert: pem, key: pem }, (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
  return listen(server as unknown as Server, "https");
}

/**
 * A server that takes every request and never answers it. `held()`: per request (method
 * and path), how long its client kept waiting before it closed the connection, in ms.
 */
export async function neverAnswers(): Promise<Listening & { held(): { request: string; ms: number }[] }> {
  const held: { request: string; ms: number }[] = [];
  const server = createHttp((req) => {
    const since = Date.now();
    req.socket.once("close", () => held.push({ request: `${req.method} ${(req.url ?? "/").split("?")[0]}`, ms: Date.now() - since }));
  });
  return { ...(await listen(server, "http")), held: () => held };
}

/**
 * A server that answers `paths` with 200 `application/json` and a body without end for a
 * client (one 64 KiB chunk written again and again while the client reads, up to 256 MiB,
 * so that a client without a limit fails its test instead of the machine), and forwards
 * every other request to `upstream`. `sent()`: the bytes written on those answers.
 */
const ENDLESS_BYTES = 256 * 1024 * 1024;

export async function endlessAnswer(upstream: string, paths: readonly string[]): Promise<Listening & { sent(): number }> {
  const chunk = Buffer.alloc(64 * 1024, " ");
  let sent = 0;
  const server = createHttp((req, res) => {
    if (paths.includes((req.url ?? "/").split("?")[0]!)) {
      res.writeHead(200, { "content-type": "application/json", "x-request-id": String(req.headers["x-request-id"] ?? "") });
      res.write("[");
      let left = ENDLESS_BYTES;
      const more = () => {
        while (!res.destroyed) {
          if ((left -= chunk.length) < 0) {
            res.end("]");
            return;
          }
          sent += chunk.length;
          if (!res.write(chunk)) {
            res.once("drain", more);
            return;
          }
        }
      };
      res.on("close", () => res.removeAllListeners("drain"));
      more();
      return;
    }
    const target = new URL(req.url ?? "/", upstream);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k, v]) => typeof v === "string" && !["host", "connection", "content-length"].includes(k))) as Record<string, string>;
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      const answer = await fetch(target, { method: req.method, headers, body, redirect: "manual" });
      const bytes = Buffer.from(await answer.arrayBuffer());
      const out: Record<string, string> = {};
      answer.headers.forEach((v, k) => {
        if (!["content-length", "transfer-encoding", "connection", "content-encoding"].includes(k)) out[k] = v;
      });
      res.writeHead(answer.status, { ...out, "content-length": bytes.length });
      res.end(bytes);
    });
  });
  return { ...(await listen(server, "http")), sent: () => sent };
}

/**
 * A server that accepts everything (the simulator behind a rewriting proxy): a key or token
 * in the query is taken as the credential, every 401 and 403 of `/v1` is a 200, a code
 * exchange with a client secret is served, and registration issues a client secret. It
 * keeps every credential it issued (access and refresh tokens, authorization codes, client
 * secrets), so that a test can look for them in what the suite wrote.
 */
export function acceptsEverything(): { rewrite: Rewrite; issued: Set<string> } {
  const issued = new Set<string>();
  const keep = (value: unknown) => typeof value === "string" && value.length > 0 && issued.add(value);
  const rewrite: Rewrite = {
    request(req) {
      const url = new URL(req.path, "http://x");
      for (const name of ["api_key", "access_token"]) {
        const value = url.searchParams.get(name);
        if (value) return { ...req, headers: { ...req.headers, authorization: `Bearer ${value}` } };
      }
      if (req.method === "POST" && pathOnly(req) === "/oauth/token") {
        const form = new URLSearchParams(req.body.toString("utf8"));
        if (form.has("client_secret")) {
          form.delete("client_secret");
          return { ...req, body: Buffer.from(form.toString()) };
        }
      }
      return req;
    },
    answer(req, a) {
      let out = a;
      if ((a.status === 401 || a.status === 403) && pathOnly(req).startsWith("/v1")) out = { ...a, status: 200, body: "{}" };
      if (pathOnly(req) === "/oauth/register" && a.status === 201) out = editJson(out, (body) => ({ ...body, client_secret: `cs_${randomUUID()}` }));
      const location = out.headers.location;
      if (location) for (const [k, v] of new URL(location, "http://x").searchParams) if (k === "code") keep(v);
      try {
        const body = JSON.parse(out.body) as Record<string, unknown>;
        for (const field of ["access_token", "refresh_token", "client_secret"]) keep(body[field]);
      } catch {
        // not JSON
      }
      return out;
    },
  };
  return { rewrite, issued };
}

/**
 * A server that answers every request with a 500 whose body is `bytes` long (an envelope
 * whose `message` is padded out): what a client keeps of each answer is what a test of
 * kept memory measures.
 */
export function largeAnswers(bytes: number): Promise<Listening> {
  return listen(
    createHttp((req, res) => {
      req.resume();
      const requestId = String(req.headers["x-request-id"] ?? "r");
      const body = JSON.stringify({ error: { code: "internal_error", message: "", user_message: "Internal error.", request_id: requestId } });
      const padded = body.replace('"message":""', `"message":"${"x".repeat(Math.max(0, bytes - body.length))}"`);
      res.writeHead(500, { "content-type": "application/json", "x-request-id": requestId, "content-length": Buffer.byteLength(padded) });
      res.end(padded);
    }),
    "http",
  );
}
