// An answer without end (a server that streams a body of gigabytes) is read up to
// --max-answer-bytes (16 MiB by default) and no further: the rule its request exercised
// fails with "answer too large", and the run, and the CLI, go on. The test servers write
// one 64 KiB chunk again and again: nothing large is held here either.
import { describe, expect, it } from "vitest";
import { exitCode, runConformance } from "../../src/conformance/index.ts";
import { readRequest, Usage } from "../../src/conformance/run/options.ts";
import { OPTION_DEFAULTS } from "../../src/conformance/run/options.ts";
import { EventStream } from "../../src/conformance/target/stream.ts";
import { endlessAnswer } from "./support/hostile.ts";
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
