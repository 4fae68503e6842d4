// An answer without end (a server that streams a body of gigabytes) is read up to
// --max-answer-bytes (16 MiB by default) and no further: the rule its request exercised
// fails with "answer too large", and the run, and the CLI, go on. The test servers write
// one 64 KiB chunk again and again: nothing large is held here either. And the run's
// memory is bounded, not only each answer's: what it keeps of an answer once judged is a
// prefix with the length seen, so large answers in any number do not add up.
import { describe, expect, it } from "vitest";
import { exitCode, runConformance } from "../../src/conformance/index.ts";
import { readRequest, Usage } from "../../src/conformance/run/options.ts";
import { OPTION_DEFAULTS } from "../../src/conformance/run/options.ts";
import { EventStream, KEPT_FRAMES, type Frame } from "../../src/conformance/target/stream.ts";
import { AnswerJudge } from "../../src/conformance/judge/answer-checks/index.ts";
import { Results } from "../../src/conformance/judge/results.ts";
import { KEPT_BODY } from "../../src/conformance/target/record.ts";
import { Masker } from "../../src/conformance/target/secrets.ts";
import { Target } from "../../src/conformance/target/target.ts";
import { endlessAnswer, largeAnswers } from "./support/hostile.ts";
import { cli } from "./support/cli.ts";
import { startSim } from "./support/run.ts";

const MiB = 1024 * 1024;

describe("an answer that never ends", () => {
  it("CAT-5: fails the rule of the request with 'answer too large', reads no further than the limit, and goes on", async () => {
    const sim = await startSim();
    const server = await endlessAnswer(sim.url, ["/v1/knowledge"]);
    try {
      const report = await runConformance({ baseUrl: server.url, apiKey: "ghk_demo_full", only: ["CAT"], quick: true, maxAnswerBytes: MiB });
      const row = report.rows.find((r) => r.id === "CAT-5")!;
      expect(row.verdict).toBe("fail");
      expect(row.failures.map((f) => f.message)).toContain("GET /v1/knowledge?limit=5: answer too large: more than 1048576 bytes (--max-answer-bytes), not read further");
      expect(row.failures.find((f) => /answer too large/.test(f.message))!.curl).toMatch(/^curl -sS -i -X GET '\S+\/v1\/knowledge\?/);
      // The other catalog checks ran.
      expect(report.rows.find((r) => r.id === "CAT-4")!.verdict).toBe("pass");
      expect(exitCode(report)).toBe(1);
      expect(server.sent()).toBeLessThan(16 * MiB);
    } finally {
      await server.close();
      await sim.close();
    }
  });

  it("the CLI reads 16 MiB at most by default, says so, and exits 1 (it died at 6 GB before)", { timeout: 60_000 }, async () => {
    const sim = await startSim({ clockSpeed: 1 });
    const server = await endlessAnswer(sim.url, ["/v1/knowledge"]);
    try {
      const run = await cli(["--base-url", server.url, "--api-key", "ghk_demo_full", "--only", "CAT-5", "--quick"]);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stdout).toMatch(/^ {8}- GET \/v1\/knowledge\S*: answer too large: more than 16777216 bytes \(--max-answer-bytes\), not read further/m);
      expect(server.sent()).toBeLessThan(OPTION_DEFAULTS.maxAnswerBytes * 8);
    } finally {
      await server.close();
      await sim.close();
    }
  });

  it("an event stream that never ends a frame is closed at the limit, saying so", async () => {
    const chunk = new TextEncoder().encode(`data: ${"x".repeat(64 * 1024)}`);
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const overflows: number[] = [];
    const stream = new EventStream(new Response(body), new AbortController(), { cite: {} }, { onOverflow: (bytes) => overflows.push(bytes) }, () => undefined, MiB);
    await stream.until(() => false, 5_000);
    expect(stream.ended).toBe(true);
    expect(overflows).toEqual([MiB]);
    expect(pulled).toBeLessThan(4 * MiB);
  });

  it("takes --max-answer-bytes as a positive number of bytes", () => {
    expect(readRequest({ "max-answer-bytes": "1048576" }, {}).options.maxAnswerBytes).toBe(MiB);
    expect(() => readRequest({ "max-answer-bytes": "0" }, {})).toThrow(Usage);
    expect(() => readRequest({ "max-answer-bytes": "1.5" }, {})).toThrow(/--max-answer-bytes takes a number of bytes \(a positive integer\), got "1.5"/);
  });
});

describe("what a run keeps of large answers", () => {
  const KiB = 1024;

  it("keeps of each answer a prefix and the length seen, so what the results hold does not grow with the number of requests", async () => {
    const server = await largeAnswers(512 * KiB);
    try {
      /** Sends `requests` requests (each answered with 512 KiB), judged as a run judges them; what the results then hold. */
      const kept = async (requests: number) => {
        const results = new Results();
        const target = new Target({ baseUrl: server.url, apiKey: "ghk_x", labels: new Map(), sink: new AnswerJudge(results, false), masker: new Masker([]), staticMock: false, reserve: 0, maxWaitSeconds: 0, requestTimeoutMs: 10_000, maxAnswerBytes: MiB, wait: async () => undefined, clockMoves: false });
        for (let i = 0; i < requests; i++) {
          const ex = await target.request({ path: `/v1/generations/gen_${i}`, rule: "GEN-1" });
          // Judged whole; kept as a prefix with the length seen.
          expect(ex.text.length).toBeGreaterThanOrEqual(512 * KiB);
          expect(ex.record.body.size).toBe(Buffer.byteLength(ex.text));
          expect(ex.record.body.text.length).toBe(KEPT_BODY);
        }
        const failing = results.rows().filter((r) => r.verdict === "fail");
        return { bytes: results.keptBytes(), failing: failing.length, cited: results.exchanges };
      };
      const few = await kept(25);
      const many = await kept(100);
      expect(few.failing).toBeGreaterThan(0);
      expect(many.cited.length).toBeGreaterThan(0);
      for (const x of many.cited) {
        expect(x.response.body.size).toBeGreaterThanOrEqual(512 * KiB);
        expect(x.response.body.text!.length).toBeLessThan(KEPT_BODY + 100);
        expect(x.response.body.text).toMatch(/… \(\d+ bytes, cut\)$/);
      }
      // Four times the requests, and no more kept: each rule keeps its first failures only,
      // each cited answer a prefix (whole, the 100 answers held 50 MiB).
      expect(many.bytes).toBeLessThan(few.bytes * 1.25);
      expect(many.bytes).toBeLessThan(many.failing * 20 * (2 * KEPT_BODY + 16 * KiB));
    } finally {
      await server.close();
    }
  });

  it("an event stream keeps its newest frames, each with a bounded data, while the sink judges every frame whole", async () => {
    const small = new TextEncoder().encode("event: message\nid: 1\ndata: {}\n\n".repeat(100));
    const large = new TextEncoder().encode(`event: message\nid: big\ndata: ${JSON.stringify({ x: "y".repeat(MiB) })}\n\n`);
    let chunks = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        chunks++;
        if (chunks === 100) controller.enqueue(large);
        else if (chunks <= 150) controller.enqueue(small);
        else controller.close();
      },
    });
    const judged: Frame[] = [];
    const stream = new EventStream(new Response(body), new AbortController(), { cite: {} }, { onFrame: (f) => judged.push(f) }, () => undefined, 4 * MiB);
    await stream.until((s) => s.ended, 10_000);
    expect(judged).toHaveLength(149 * 100 + 1);
    expect(judged.find((f) => f.id === "big")!.raw.length).toBeGreaterThan(MiB);
    expect(stream.frames).toHaveLength(KEPT_FRAMES);
    const big = stream.frames.find((f) => f.id === "big")!;
    expect(big.raw.length).toBe(KEPT_BODY);
    expect(big.data).toBeUndefined();
  });
});
