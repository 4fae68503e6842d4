// A server the suite cannot reach, one whose certificate it cannot trust, and one that
// stops answering: the cause is said once, the CLI exits 2 when nothing was ever answered,
// and a server that goes silent during a run stops it after a few requests, not one
// timeout per request.
import { describe, expect, it } from "vitest";
import { exitCode, runConformance } from "../../src/conformance/index.ts";
import { ServerSilent, SILENT_LIMIT, unreachableCause } from "../../src/conformance/target/stops.ts";
import { neverAnswers, nothingListens, selfSigned } from "./support/hostile.ts";
import { startProxy } from "./support/proxy.ts";
import { startSim } from "./support/run.ts";
import { cli } from "./support/cli.ts";

describe("a server the suite cannot reach", () => {
  it("says the cause once (refused, an unknown host, a certificate nobody signed) and exits 2", async () => {
    const refused = await nothingListens();
    const tls = await selfSigned();
    try {
      const [a, b] = await Promise.all([cli(["--base-url", refused, "--api-key", "ghk_x"]), cli(["--base-url", tls.url, "--api-key", "ghk_x"])]);
      expect([a.code, a.stdout, a.stderr]).toEqual([2, "", `conformance: ${refused} cannot be reached: the connection was refused: nothing listens there (ECONNREFUSED)\n`]);
      expect([b.code, b.stdout]).toEqual([2, ""]);
      expect(b.stderr.trim().split("\n")).toEqual([`conformance: ${tls.url} cannot be reached: TLS failed: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT): give the authority that signed it in NODE_EXTRA_CA_CERTS=ca.pem`]);
      await expect(runConformance({ baseUrl: "http://conformance-no-such-host.invalid", apiKey: "ghk_x" })).rejects.toThrow(/^http:\/\/conformance-no-such-host\.invalid cannot be reached: the host name (does not resolve \(ENOTFOUND\)|could not be looked up now \(EAI_AGAIN\))$/);
    } finally {
      await tls.close();
    }
  });

  it("reads the cause from the errors fetch and node:http give", () => {
    const coded = (code: string, message = code) => Object.assign(new Error(message), { code });
    expect(unreachableCause(new TypeError("fetch failed", { cause: coded("ECONNREFUSED") }))).toBe("the connection was refused: nothing listens there (ECONNREFUSED)");
    expect(unreachableCause(new TypeError("fetch failed", { cause: new AggregateError([coded("ECONNREFUSED"), coded("ECONNREFUSED")]) }))).toMatch(/ECONNREFUSED/);
    expect(unreachableCause(coded("CERT_HAS_EXPIRED", "certificate has expired"))).toBe("TLS failed: certificate has expired (CERT_HAS_EXPIRED)");
    // Node 22+ words it with its own advice after a semicolon; the cause is said without it.
    const node22 = "self-signed certificate; if the root CA is installed locally, try running Node.js with --use-system-ca";
    expect(unreachableCause(coded("DEPTH_ZERO_SELF_SIGNED_CERT", node22))).toBe("TLS failed: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT): give the authority that signed it in NODE_EXTRA_CA_CERTS=ca.pem");
    expect(unreachableCause(new TypeError("fetch failed", { cause: new Error("bad port") }))).toMatch(/^fetch does not connect to this port/);
    expect(unreachableCause(coded("ECONNRESET"))).toBeUndefined(); // a connection lost: sent again, not a stop
    expect(unreachableCause(new Error("timed out after 30000 ms"))).toBeUndefined();
  });

  it(`stops after ${SILENT_LIMIT} requests in a row that got no answer, in one line, instead of a timeout per request`, async () => {
    const silent = await neverAnswers();
    try {
      const started = Date.now();
      const error = await runConformance({ baseUrl: silent.url, apiKey: "ghk_x", requestTimeoutMs: 300 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServerSilent);
      expect((error as Error).message).toMatch(new RegExp(`^${silent.url} stopped answering: ${SILENT_LIMIT} requests in a row got no answer within 300 ms \\(--timeout\\), the last GET /v1/\\S+$`));
      expect(Date.now() - started).toBeLessThan(10_000);
      const run = await cli(["--base-url", silent.url, "--api-key", "ghk_x", "--timeout", "300"]);
      expect([run.code, run.stdout, run.stderr.trim().split("\n").length]).toEqual([2, "", 1]);
      expect(run.stderr).toMatch(/stopped answering: 3 requests in a row got no answer within 300 ms \(--timeout\)/);
      // --timeout bounds the command's first read too, the one that looks for the
      // simulator's control interface (it waited 5 s, whatever --timeout said).
      const looked = silent.held().filter((h) => h.request === "GET /_sim/scenarios");
      expect(looked).toHaveLength(1);
      expect(looked[0]!.ms).toBeLessThan(2_000);
    } finally {
      await silent.close();
    }
  });

  it("a server that goes silent during the run: the run stops there, says why, and fails", async () => {
    const sim = await startSim();
    let seen = 0;
    const proxy = await startProxy(sim.url, { hang: () => ++seen > 30 });
    try {
      const report = await runConformance({ baseUrl: proxy.url, apiKey: "ghk_demo_full", requestTimeoutMs: 300, quick: true });
      expect(report.stopped).toMatch(/stopped answering: 3 requests in a row got no answer within 300 ms/);
      expect(report.requests.total).toBeLessThan(40);
      expect(report.errors.map((e) => e.message)).toContain(report.stopped);
      expect(exitCode(report)).toBe(1);
      expect(report.rows.filter((r) => r.reason?.includes("stopped answering")).length).toBeGreaterThan(10);
    } finally {
      await proxy.close();
      await sim.close();
    }
  });

  it("a refused connection during the run stops it as well", async () => {
    const sim = await startSim();
    const proxy = await startProxy(sim.url);
    let closed = false;
    try {
      const report = await runConformance({
        baseUrl: proxy.url,
        apiKey: "ghk_demo_full",
        quick: true,
        log: (line) => {
          // The server goes away once the run is under way.
          if (!closed && /^the refusal ladder$/.test(line)) {
            closed = true;
            void proxy.close();
          }
        },
      });
      expect(report.stopped).toMatch(/cannot be reached: the connection was refused: nothing listens there \(ECONNREFUSED\)$/);
      expect(exitCode(report)).toBe(1);
    } finally {
      await proxy.close().catch(() => undefined);
      await sim.close();
    }
  });
});
