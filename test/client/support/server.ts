// Fault-injecting local servers for the client tests (node:http). Each test scripts the
// answers; every request is recorded (method, path, headers, body). Answers built with
// `answer()` carry the headers the contract requires and are checked against the
// contract (`checkAnswer`), so a fake never says what the real API could not.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, expect } from "vitest";
import { createHubClient, type HubClientOptions } from "../../../src/client/index.ts";
import { checkAnswer, matchOperation, statusOf } from "../../../src/contract/index.ts";

export interface Recorded {
  method: string;
  path: string;
  url: URL;
  headers: IncomingMessage["headers"];
  body: string;
  bytes: Buffer;
}

export type Handler = (req: Recorded, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>;

export interface TestServer {
  url: string;
  requests: Recorded[];
  /** Contract violations of answers built with `answer()`. */
  violations: string[];
  close(): Promise<void>;
  /** Destroys every open connection (a forced disconnect). */
  dropConnections(): void;
}

export async function serve(handler: Handler): Promise<TestServer> {
  const requests: Recorded[] = [];
  const violations: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer(async (raw, res) => {
    const chunks: Buffer[] = [];
    for await (const c of raw) chunks.push(c as Buffer);
    const url = new URL(raw.url ?? "/", "http://localhost");
    const bytes = Buffer.concat(chunks);
    const rec: Recorded = { method: raw.method ?? "GET", path: url.pathname, url, headers: raw.headers, body: bytes.toString("utf8"), bytes };
    requests.push(rec);
    (res as ServerResponse & { hubViolations?: string[]; hubRequest?: Recorded }).hubViolations = violations;
    (res as ServerResponse & { hubRequest?: Recorded }).hubRequest = rec;
    try {
      await handler(rec, res, raw);
    } catch (error) {
      violations.push(`handler threw: ${(error as Error).message}`);
      if (!res.headersSent) res.writeHead(599).end();
    }
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    violations,
    dropConnections: () => {
      for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The headers every `/v1` answer carries (request id echoed, caching, rate limit). */
export function v1Headers(req: Recorded, extra: Record<string, string> = {}): Record<string, string> {
  return {
    "X-Request-Id": String(req.headers["x-request-id"] ?? "req_generated_by_server"),
    "Cache-Control": "private, no-store",
    Vary: "Authorization, Cookie, Origin",
    RateLimit: '"default";r=59;t=42',
    "RateLimit-Policy": '"default";q=60;w=60',
    ...extra,
  };
}

/** A JSON answer with the `/v1` headers, checked against the contract. */
export function answer(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  const r = res as ServerResponse & { hubViolations: string[]; hubRequest: Recorded };
  const req = r.hubRequest;
  const headers = { ...v1Headers(req, extra), "Content-Type": "application/json" };
  const text = body === undefined ? "" : JSON.stringify(body);
  const matched = matchOperation(req.method, req.path);
  if (!matched) r.hubViolations.push(`${req.method} ${req.path} is not an operation of the contract`);
  else for (const v of checkAnswer(matched.operation, { status, headers, body: text })) r.hubViolations.push(`${v.where}: ${v.message}`);
  res.writeHead(status, headers).end(text);
}

/** The error envelope of a code, with the status the contract's table gives it. */
export function refuse(res: ServerResponse, code: string, options: { details?: unknown[]; headers?: Record<string, string>; status?: number; retryAfterSeconds?: number } = {}): void {
  const req = (res as ServerResponse & { hubRequest: Recorded }).hubRequest;
  const requestId = String(req.headers["x-request-id"] ?? "req_generated_by_server");
  const error: Record<string, unknown> = { code, message: `refused: ${code}`, user_message: `refused: ${code}`, request_id: requestId };
  if (options.details) error.details = options.details;
  if (options.retryAfterSeconds !== undefined) error.retry_after_seconds = options.retryAfterSeconds;
  answer(res, options.status ?? statusOf(code), { error }, options.headers);
}

/** A generation record as the contract has it: a DONE one with its result link, a FAILED one with its reason. */
export function record(id: string, status: string, extra: Record<string, unknown> = {}) {
  const result = status === "DONE" ? { output_urls: [`http://127.0.0.1/v1/generations/${id}/outputs/video/0`] } : status === "FAILED" ? { error: { reason: "unknown" } } : {};
  return { id, type: "video", status, ...result, ...extra };
}

/** An account record (`GET /v1/me`) with the fields the contract requires. */
export function account() {
  return { plan: { id: "plan_pro" }, credits: { main_cc: 10_000 }, free_quotas: [], limits: { submissions: {}, concurrency: {} } };
}

export const GEN_ID = "gen_01JD8X4K2M9QF7T3V5W6Y8Z0AB";

/**
 * One local server per test, closed after it; the test fails when the server saw an answer
 * that breaks the contract. `hubWith(handler)` serves and gives a client of it (test key,
 * short backoffs unless `options` say otherwise).
 */
export function serverPerTest(defaults: Partial<HubClientOptions> = {}) {
  let current: TestServer | undefined;
  afterEach(async () => {
    const s = current;
    current = undefined;
    if (s) {
      await s.close();
      expect(s.violations).toEqual([]);
    }
  });
  return async function hubWith(handler: Handler, options: Partial<HubClientOptions> = {}) {
    const server = (current = await serve(handler));
    return { server, hub: createHubClient({ baseUrl: server.url, apiKey: "hub_test_key", ...defaults, ...options }) };
  };
}
