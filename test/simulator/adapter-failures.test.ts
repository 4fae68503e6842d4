// The adapter writes the hub's answers to Node's response itself, outside any framework,
// so nothing else handles what fails there. Every such
// failure must still end the exchange: a 500 in the envelope while nothing is written
// yet, else the connection closes; never a socket left open with no answer (the issue's
// `return_to=/%0A/x` kept one open for 24 minutes).
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { schemaValidator } from "../../src/contract/index.ts";
import { Hub } from "../../src/simulator/index.ts";
import type { SimResponse } from "../../src/simulator/pipeline/exchange.ts";
import { createServer } from "../../src/simulator/http/server.ts";

const envelopeValid = schemaValidator("ErrorEnvelope");

/** What the hub answers next (a handler that produced a header Node cannot write, say). */
let next: () => SimResponse;
const hub = new Hub({ clockSpeed: 0 });
hub.handle = () => next();
const app = createServer(hub, { bodyLimit: 1 << 20, cors: false, docsDir: undefined, requestTimeoutSeconds: 30, maxHeaderBytes: 16 * 1024, logger: false, allowedHosts: [] });
let base = "";
let errors: ReturnType<typeof vi.spyOn>;

beforeAll(async () => {
  await app.listen({ host: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterEach(() => errors?.mockRestore());
afterAll(async () => {
  hub.shutdown();
  await app.close();
});

/** A head Node refuses to write: a line break inside a header value. */
const BROKEN: SimResponse = { kind: "body", status: 303, headers: { location: "/\n/x" }, body: "" };

/** The exchange within 3 s: its status and body, or the error that ended it (a hang fails the test). */
async function exchange(path = "/anything"): Promise<{ status: number; body: string } | { error: string }> {
  errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
  try {
    const res = await fetch(base + path, { signal: AbortSignal.timeout(3000) });
    return { status: res.status, body: await res.text() };
  } catch (error) {
    const e = error as Error & { cause?: Error };
    if (e.name === "TimeoutError") throw new Error("the exchange hung: no answer and no close within 3 s");
    return { error: e.cause?.message ?? e.message };
  }
}

function expectInternalError(result: Awaited<ReturnType<typeof exchange>>): void {
  expect("status" in result && result.status, JSON.stringify(result)).toBe(500);
  const body = JSON.parse((result as { body: string }).body);
  expect(envelopeValid(body)).toBe(true);
  expect(body.error.code).toBe("internal_error");
  expect(errors).toHaveBeenCalled();
}

describe("a failure after the reply is hijacked still ends the exchange", () => {
  it("a head that cannot be written answers 500 in the envelope", async () => {
    next = () => BROKEN;
    expectInternalError(await exchange());
  });

  it("so does one that arrives later: a deferred answer, and a delayed one (a latency fault)", async () => {
    next = () => ({ kind: "deferred", deferred: Promise.resolve(BROKEN as never) });
    expectInternalError(await exchange());
    next = () => ({ ...BROKEN, delayMs: 20 }) as SimResponse;
    expectInternalError(await exchange());
  });

  it("a failure once the head has left closes the connection", async () => {
    next = () => ({
      kind: "stream",
      status: 200,
      headers: { "content-type": "text/event-stream" },
      stream: () => {
        throw new Error("the stream could not start");
      },
    });
    errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const res = await fetch(`${base}/v1/events`, { signal: AbortSignal.timeout(3000) });
    expect(res.status).toBe(200);
    const read = await res.text().then(() => "ended", (e: Error) => (e.name === "TimeoutError" ? "hung" : "closed"));
    expect(read).not.toBe("hung");
    expect(errors).toHaveBeenCalled();
  });

  it("the server goes on answering afterwards", async () => {
    next = () => ({ kind: "body", status: 200, headers: { "content-type": "text/plain" }, body: "fine" });
    expect(await exchange()).toEqual({ status: 200, body: "fine" });
  });
});
