// GET /_sim/scenario of a large state does not hold the simulator: the file is written a
// slice at a time, other requests are answered between slices, and the file is the state
// at the moment the export began, the same document whichever way it is read.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Hub } from "../../src/simulator/hub.ts";
import type { SimRequest, StreamAnswer } from "../../src/simulator/pipeline/exchange.ts";
import { readScenario } from "../../src/simulator/state/scenario/read.ts";
import { startSim, type Sim } from "./support/harness.ts";

const unlimited = { keyQuota: 1e9, accountQuota: 1e9, submitQuota: 1e9, concurrency: 1e9 };
const encoder = new TextEncoder();

function request(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): SimRequest {
  return {
    method,
    url,
    headers: { host: "hub.example", authorization: "Bearer ghk_demo_full", ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : encoder.encode(JSON.stringify(body)),
    baseUrl: "http://hub.example",
  };
}

/** A hub with `n` finished generations (and their ledger rows) of acc_demo, on a frozen clock. */
function busyHub(n: number): Hub {
  const hub = new Hub({ clockSpeed: 0, demoData: false, rateLimits: unlimited, retention: { generations: n, ledgerRows: 2 * n } });
  hub.handle(request("PATCH", "/_sim/accounts/acc_demo", { balance_cc: 1e12 }));
  for (let i = 0; i < n; i++) {
    const answer = hub.handle(request("POST", "/v1/generations", { type: "video", model: "video-model-a", prompt: `shot ${i}` }, { "idempotency-key": `k${i}` })) as { status: number };
    expect(answer.status).toBe(202);
    if (i % 500 === 499) hub.clock.advance(20_000);
  }
  hub.clock.advance(20_000);
  return hub;
}

/** Starts the export route on an in-process hub: its text so far, and when it ended. */
function startExport(hub: Hub, log: string[]) {
  const answer = hub.handle(request("GET", "/_sim/scenario")) as StreamAnswer;
  expect(answer.status).toBe(200);
  expect(answer.headers["content-type"]).toMatch(/^application\/json/);
  const got = { text: "", slices: 0 };
  const ended = new Promise<void>((resolve) => {
    const stop = answer.stream({
      write(chunk) {
        got.text += chunk;
        got.slices++;
      },
      end() {
        log.push("export ended");
        resolve();
      },
      abort() {
        throw new Error("the export was cut");
      },
    });
    void stop;
  });
  return { got, ended };
}

/** Equal texts; otherwise the first place they differ (the texts are megabytes long). */
function expectSameText(got: string, expected: string): void {
  let i = 0;
  while (i < got.length && got[i] === expected[i]) i++;
  const at = (t: string) => t.slice(Math.max(0, i - 80), i + 80);
  expect({ length: got.length, from: at(got) }).toEqual({ length: expected.length, from: at(expected) });
}

const nextImmediate = () => new Promise((resolve) => setImmediate(resolve));

describe("an export of many generations", () => {
  let hub: Hub;
  beforeAll(() => {
    hub = busyHub(5_000);
  });
  afterAll(() => hub.shutdown());

  it("a request that arrives during the export is answered before the export ends; the text is hub.exportScenario(), byte for byte", async () => {
    const log: string[] = [];
    const expected = JSON.stringify(hub.exportScenario()); // before the request below spends its window
    const { got, ended } = startExport(hub, log);
    expect(got.slices).toBe(1); // the first slice at once, the others in later turns
    await nextImmediate(); // a request arriving meanwhile, as a socket's data would
    const me = hub.handle(request("GET", "/v1/me")) as { status: number };
    log.push(`GET /v1/me answered ${me.status}`);
    await ended;
    expect(log).toEqual(["GET /v1/me answered 200", "export ended"]);
    expect(got.slices).toBeGreaterThan(5);
    expectSameText(got.text, expected);
    expect(JSON.parse(got.text).generations).toHaveLength(5_000);
  });

  it("a generation that changes or is dropped during the export is written as it was when the export began; the file loads", async () => {
    const before = hub.exportScenario();
    const { got, ended } = startExport(hub, []);
    // Changes after the first slice, to generations written later (the newest) and one dropped.
    await nextImmediate();
    const newest = before.generations.at(-1)!;
    hub.handle(request("PATCH", `/v1/generations/${newest.id}`, { title: "renamed during the export" }));
    hub.handle(request("POST", "/v1/generations", { type: "video", model: "video-model-a", prompt: "made during the export" }, { "idempotency-key": "during" }));
    await ended;
    const file = JSON.parse(got.text);
    expect(file).toEqual(before);
    // The new generation dropped the oldest (retention 5,000): its ledger rows keep their link in the file.
    const oldest = before.generations[0]!.id!;
    expect(hub.state.generations.has(oldest)).toBe(false);
    expect(file.ledger.some((r: { generation_id: string | null }) => r.generation_id === oldest)).toBe(true);
    expect(() => readScenario(file)).not.toThrow();
    expect(hub.state.captures.size).toBe(0);
  });

  it("a client that leaves during the export stops it: nothing more is written, the capture is let go", async () => {
    const answer = hub.handle(request("GET", "/_sim/scenario")) as StreamAnswer;
    let slices = 0;
    const stop = answer.stream({ write: () => void slices++, end: () => undefined, abort: () => undefined });
    expect(hub.state.captures.size).toBe(1);
    stop();
    await nextImmediate();
    await nextImmediate();
    expect(slices).toBe(1);
    expect(hub.state.captures.size).toBe(0);
  });
});

describe("over HTTP", () => {
  let sim: Sim;
  beforeAll(async () => {
    sim = await startSim({ rateLimits: unlimited });
    for (let i = 0; i < 1_200; i++) await sim.hub.handle(request("POST", "/v1/generations", { type: "image", model: "image-model-a", prompt: `p${i}` }, { "idempotency-key": `h${i}` }));
    await sim.advance(10);
  });
  afterAll(() => sim.close());

  it("GET /_sim/scenario answers the same document as hub.exportScenario(); a name from the query that cannot load is refused first", async () => {
    const r = await sim.control("GET", "scenario?name=big-state");
    expect(r.status).toBe(200);
    expectSameText(r.text, JSON.stringify(sim.hub.exportScenario({ name: "big-state" })));
    const refused = await sim.control("GET", "scenario?name=Not%20a%20name");
    expect(refused.status).toBe(400);
    expect(refused.json.error.details[0].field).toBe("name");
  });
});
