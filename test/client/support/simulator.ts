// The client against the hub simulator, with every answer checked against the contract:
// a fetch beneath the client's transport runs `checkAnswer` on each `/v1` answer and
// validates each event-stream frame as an `EventFrame`.
import { createParser } from "eventsource-parser";
import { checkAnswer, matchOperation, schemaValidator } from "../../../src/contract/index.ts";
import { createHubClient, type FetchLike, type HubClientOptions } from "../../../src/client/index.ts";
import { startSimulator, type RunningSimulator, type SimulatorOptions } from "../../../src/simulator/index.ts";

export interface Simulated {
  sim: RunningSimulator;
  /** Contract violations of answers and frames the client received. */
  violations: string[];
  /** `METHOD /path status` of every answer, in order. */
  answers: string[];
  fetch: FetchLike;
  hub(key?: string, options?: Partial<HubClientOptions>): ReturnType<typeof createHubClient>;
  control(method: string, path: string, body?: unknown): Promise<unknown>;
}

export async function simulated(options: SimulatorOptions = {}): Promise<Simulated> {
  const sim = await startSimulator({ port: 0, clockSpeed: 100, ...options });
  const violations: string[] = [];
  const answers: string[] = [];
  const fetch = checkingFetch(new URL(sim.url).origin, violations, answers);
  return {
    sim,
    violations,
    answers,
    fetch,
    hub: (key = "ghk_demo_full", extra = {}) => createHubClient({ baseUrl: sim.url, apiKey: key, fetch, backoffBase: 20, backoffMax: 200, ...extra }),
    control: async (method, path, body) => {
      const r = await globalThis.fetch(`${sim.url}/_sim/${path}`, { method, headers: { "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await r.text();
      if (!r.ok) throw new Error(`control ${method} ${path}: ${r.status} ${text}`);
      return text ? JSON.parse(text) : undefined;
    },
  };
}

/**
 * A fetch (over `globalThis.fetch`, looked up per call) that notes `METHOD /path status`
 * of every answer from `origin` outside /_sim/ in `answers`, and every way it departs
 * from the contract in `violations`, event-stream frames included.
 */
export function checkingFetch(origin: string, violations: string[], answers: string[]): FetchLike {
  return async (request) => {
    const response = await globalThis.fetch(request);
    const url = new URL(request.url);
    if (url.origin !== origin || url.pathname.startsWith("/_sim/")) return response;
    answers.push(`${request.method} ${url.pathname} ${response.status}`);
    const matched = matchOperation(request.method, url.pathname);
    if (!matched) {
      violations.push(`${request.method} ${url.pathname}: not an operation of the contract`);
      return response;
    }
    const stream = (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
    // A body cut short (a truncate fault) is not checked here: the client meets it as it is.
    const body = stream ? "" : await response.clone().text().catch(() => undefined);
    if (body === undefined) return response;
    for (const v of checkAnswer(matched.operation, { status: response.status, headers: response.headers, body })) violations.push(`${v.where}: ${v.message}`);
    if (!stream || !response.body) return response;
    return new Response(response.body.pipeThrough(frameChecker(violations)), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** Passes the stream through unchanged, validating each frame against `EventFrame`. */
function frameChecker(violations: string[]): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const validate = schemaValidator("EventFrame");
  const parser = createParser({
    onEvent: (e) => {
      let data: unknown;
      try {
        data = JSON.parse(e.data);
      } catch {
        violations.push(`frame ${e.id}: data is not JSON`);
        return;
      }
      const frame = { event: e.event ?? "message", id: e.id, data };
      const valid: boolean = validate(frame);
      if (!valid) violations.push(`frame ${e.id} (${e.event}): ${JSON.stringify(validate.errors?.[0])}`);
    },
  });
  return new TransformStream({
    transform(chunk, controller) {
      parser.feed(decoder.decode(chunk, { stream: true }));
      controller.enqueue(chunk);
    },
  });
}

/**
 * A fetch that cuts the first `cuts` event streams after their first whole frame (a forced
 * disconnect): the chunk holding it is delivered, the next read fails.
 */
export function cuttingFetch(inner: FetchLike, cuts: number): FetchLike & { cut: number } {
  const f = (async (request: Request) => {
    const response = await inner(request);
    if (!new URL(request.url).pathname.endsWith("/v1/events") || !response.ok || !response.body || f.cut >= cuts) return response;
    f.cut++;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let seen = "";
    let cutNow = false;
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          if (cutNow) {
            await reader.cancel();
            return controller.error(new TypeError("connection cut by the test"));
          }
          const { value, done } = await reader.read();
          if (done) return controller.close();
          controller.enqueue(value);
          seen += decoder.decode(value, { stream: true });
          cutNow = /(^|\n)id: [^\n]*\n(?:[^\n]+\n)*\n/.test(seen);
        },
        cancel: () => reader.cancel(),
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: response.status, headers: response.headers });
  }) as FetchLike & { cut: number };
  f.cut = 0;
  return f;
}
