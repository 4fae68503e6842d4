// A deliberately broken server for the conformance suite's own tests: a small HTTP
// proxy in front of the simulator that rewrites requests or answers (status, headers,
// body) and can change an event stream as it passes. Each double breaks one seed rule.
import { request as httpRequest, createServer, type IncomingHttpHeaders, type Server } from "node:http";

export interface ProxiedRequest {
  method: string;
  /** Path with query. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The header lines as received (a header given twice is two lines here, one in `headers`). */
  rawHeaders: string[];
  body: Buffer;
}

export interface ProxiedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface Rewrite {
  /** Changes the request before it goes upstream. */
  request?(req: ProxiedRequest): ProxiedRequest;
  /** Changes a (non-stream) answer before it goes back. */
  answer?(req: ProxiedRequest, answer: ProxiedAnswer): ProxiedAnswer;
  /** Answers without asking upstream. */
  intercept?(req: ProxiedRequest): ProxiedAnswer | undefined;
  /** Never answers the request (a server that hangs on it). */
  hang?(req: ProxiedRequest): boolean;
  /** Changes the headers of every answer from upstream (an event stream's, a file's too), after `answer`. */
  head?(req: ProxiedRequest, headers: Record<string, string>): Record<string, string>;
  /** Changes the text of an event stream, chunk by chunk (`first` for the first chunk). */
  stream?(req: ProxiedRequest, chunk: string, first: boolean): string;
}

export interface RunningProxy {
  url: string;
  /** Replaces the rewrite for the requests that follow. */
  use(rewrite: Rewrite): void;
  close(): Promise<void>;
}

const HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "proxy-connection", "upgrade"]);

function flat(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP.has(k)) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

/**
 * The headers to send upstream: a header the client sent twice (two Authorization lines)
 * goes on as two lines, as a server would see it (Node keeps only the first of two
 * Authorization headers in `headers`), unless the rewrite changed it.
 */
function upstreamHeaders(sent: IncomingHttpHeaders, r: ProxiedRequest): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = flat(r.headers);
  const lines = new Map<string, string[]>();
  for (let i = 0; i + 1 < r.rawHeaders.length; i += 2) {
    const name = r.rawHeaders[i]!.toLowerCase();
    lines.set(name, [...(lines.get(name) ?? []), r.rawHeaders[i + 1]!]);
  }
  for (const [name, values] of lines) if (values.length > 1 && !HOP.has(name) && r.headers[name] === sent[name]) out[name] = values;
  return out;
}

export async function startProxy(upstream: string, initial: Rewrite = {}): Promise<RunningProxy> {
  const up = new URL(upstream);
  let rewrite = initial;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let r: ProxiedRequest = { method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, rawHeaders: req.rawHeaders, body: Buffer.concat(chunks) };
      if (rewrite.request) r = rewrite.request(r);
      if (rewrite.hang?.(r)) return;
      const own = rewrite.intercept?.(r);
      if (own) {
        res.writeHead(own.status, { ...own.headers, "content-length": Buffer.byteLength(own.body) });
        res.end(own.body);
        return;
      }
      const headers = upstreamHeaders(req.headers, r);
      if (r.body.length > 0) headers["content-length"] = String(r.body.length);
      const out = httpRequest({ host: up.hostname, port: up.port, method: r.method, path: r.path, headers }, (upRes) => {
        const status = upRes.statusCode ?? 502;
        const type = String(upRes.headers["content-type"] ?? "");
        if (type.startsWith("text/event-stream")) {
          res.writeHead(status, rewrite.head ? rewrite.head(r, flat(upRes.headers)) : flat(upRes.headers));
          res.flushHeaders();
          let first = true;
          upRes.on("data", (c: Buffer) => {
            const text = c.toString("utf8");
            res.write(rewrite.stream ? rewrite.stream(r, text, first) : text);
            first = false;
          });
          upRes.on("end", () => res.end());
          res.on("close", () => upRes.destroy());
          return;
        }
        const body: Buffer[] = [];
        upRes.on("data", (c: Buffer) => body.push(c));
        upRes.on("end", () => {
          const raw = Buffer.concat(body);
          // Empty answers (a revoke's 200) can be rewritten too.
          const textual = /json|text/.test(type) || raw.length === 0;
          let answer: ProxiedAnswer = { status, headers: flat(upRes.headers), body: textual ? raw.toString("utf8") : "" };
          if (textual && rewrite.answer) answer = rewrite.answer(r, answer);
          if (rewrite.head) answer = { ...answer, headers: rewrite.head(r, answer.headers) };
          const payload = textual ? Buffer.from(answer.body, "utf8") : raw;
          res.writeHead(answer.status, { ...answer.headers, "content-length": payload.length });
          res.end(payload);
        });
      });
      out.on("error", () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      // The client went away before the answer was complete (a stream it closed).
      res.on("close", () => {
        if (!res.writableFinished) out.destroy();
      });
      out.end(r.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    use: (next) => {
      rewrite = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Reads and rewrites a JSON body; other bodies pass unchanged. */
export function editJson(answer: ProxiedAnswer, edit: (body: any) => any): ProxiedAnswer {
  try {
    return { ...answer, body: JSON.stringify(edit(JSON.parse(answer.body))) };
  } catch {
    return answer;
  }
}

export function pathOnly(req: ProxiedRequest): string {
  return req.path.split("?")[0]!;
}

// Builders of the rewrites most doubles are made of.

/** Requests `METHOD path` (path as a pattern) whose query `edit` changes (it says whether it did). */
export function queryRewrite(method: string, path: RegExp, edit: (query: URLSearchParams) => boolean): Rewrite {
  return {
    request(req) {
      if (req.method !== method || !path.test(pathOnly(req))) return req;
      const url = new URL(req.path, "http://x");
      return edit(url.searchParams) ? { ...req, path: url.pathname + url.search } : req;
    },
  };
}

/** Requests `METHOD path` whose JSON body `edit` replaces (undefined: the request as it is). */
export function bodyRewrite(method: string, path: string, edit: (body: any, req: ProxiedRequest) => unknown): Rewrite {
  return {
    request(req) {
      if (req.method !== method || pathOnly(req) !== path) return req;
      let body: unknown;
      try {
        body = JSON.parse(req.body.toString("utf8"));
      } catch {
        return req;
      }
      const next = edit(body, req);
      return next === undefined ? req : { ...req, body: Buffer.from(JSON.stringify(next)) };
    },
  };
}

/** An event stream that keeps only the frames `keep` accepts. */
export function framesKept(keep: (frame: string) => boolean): Rewrite {
  return {
    stream(_req, chunk) {
      return chunk.split("\n\n").filter(keep).join("\n\n");
    },
  };
}

/** Answers to `METHOD path` with status `from` answered `to` instead (their headers and body kept). */
export function statusRewrite(method: string, path: string, from: number, to: number): Rewrite {
  return {
    answer(req, a) {
      return req.method === method && pathOnly(req) === path && a.status === from ? { ...a, status: to } : a;
    },
  };
}
