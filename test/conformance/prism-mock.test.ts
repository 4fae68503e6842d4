// Against Prism serving the document as a static mock, the checks a static mock can
// meet pass, and the report says which checks do not apply (and why). Prism starts on a
// free port, and on another when a process takes that one before Prism listens on it.
import { createServer, type AddressInfo, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, onFreePort, PortTaken } from "../../src/conformance/run/prism.ts";
import { runConformance, startPrism, type Report, type RunningPrism } from "../../src/conformance/index.ts";
import { explain, failing } from "./support/run.ts";

describe("the conformance suite against prism mock (static)", () => {
  let mock: RunningPrism;
  let report: Report;

  beforeAll(async () => {
    mock = await startPrism("mock");
    report = await runConformance({ baseUrl: mock.url, apiKey: "ghk_conformance_static", staticMock: true });
  }, 90_000);
  afterAll(() => mock?.close());

  it("W-5 W-13 EP-3 LIM-2 ACC-1 ACC-2 CAT-1 GEN-3 GEN-4 ERR-2 AUTH-8 EP-4 OAUTH-1 OAUTH-2: the checks a static mock can meet pass", () => {
    expect(report.errors, explain(report)).toEqual([]);
    expect(failing(report), explain(report)).toEqual([]);
    for (const id of ["W-5", "W-13", "EP-3", "LIM-2", "ACC-1", "ACC-2", "CAT-1", "GEN-3", "GEN-4", "ERR-2", "AUTH-8", "EP-4", "OAUTH-1", "OAUTH-2", "W-1", "W-2"]) {
      expect(report.rows.find((r) => r.id === id)!.verdict, id).toBe("pass");
    }
  });

  it("SUB-1 PAGE-3 EVT-9 GEN-9 AUTH-7: says the behaviour checks do not apply to a static mock", () => {
    for (const id of ["SUB-1", "SUB-2", "PAGE-3", "PAGE-4", "EVT-9", "EVT-6", "GEN-9", "BATCH-1", "CAT-4", "AUTH-7"]) {
      const row = report.rows.find((r) => r.id === id)!;
      expect(row.verdict, id).toBe("n/a");
      expect(row.reason, id).toMatch(/static mock/);
    }
  });

  it("UPL-7 LIB-5 SUP-3 BILL-1 AUTH-3 OAUTH-6 OAUTH-12: says the uploads, library, support, billing, session and OAuth checks need a server that keeps state", () => {
    for (const id of ["UPL-2", "UPL-7", "UPL-8", "LIB-3", "LIB-5", "SUP-3", "BILL-1", "AUTH-3", "SUBS-1", "OAUTH-6", "OAUTH-12", "ST-6", "EVT-7"]) {
      const row = report.rows.find((r) => r.id === id)!;
      expect(row.verdict, id).toBe("n/a");
      expect(row.reason, id).toMatch(/static mock/);
    }
  });

  it("EP-2 ENV-4 LIM-3: does not take the mock's constant request id or counters as behaviour", () => {
    expect(report.rows.find((r) => r.id === "ENV-4")!.reason).toMatch(/static mock/);
    expect(report.rows.find((r) => r.id === "EP-2")!.reason).toMatch(/static mock/);
    expect(report.requests.waitedSeconds).toBe(0);
  });
});

describe("a port another process takes first", () => {
  /** A server on `port` in this process, as Prism starts one: a port taken is PortTaken. */
  const listenOn = (port: number) =>
    new Promise<Server>((resolve, reject) => {
      const server = createServer();
      server.once("error", (e: NodeJS.ErrnoException) => reject(e.code === "EADDRINUSE" ? new PortTaken(`port ${port} was taken`) : e));
      server.listen(port, "127.0.0.1", () => resolve(server));
    });
  const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

  it("is left for a new one, up to three tries in all; any other failure is not tried again", async () => {
    const taken = await listenOn(0);
    const takenPort = (taken.address() as AddressInfo).port;
    try {
      // The first port picked is taken by the time the server listens; the second is free.
      const picked: number[] = [];
      const picks = [takenPort];
      const pick = async () => {
        const port = picks.shift() ?? (await freePort());
        picked.push(port);
        return port;
      };
      const server = await onFreePort(listenOn, 3, pick);
      expect(picked).toHaveLength(2);
      expect(picked[0]).toBe(takenPort);
      expect((server.address() as AddressInfo).port).toBe(picked[1]);
      await close(server);

      let tries = 0;
      await expect(onFreePort((port) => (tries++, listenOn(port)), 3, async () => takenPort)).rejects.toThrow(PortTaken);
      expect(tries).toBe(3);

      tries = 0;
      await expect(onFreePort(async () => (tries++, Promise.reject(new Error("prism exited"))), 3, freePort)).rejects.toThrow(/prism exited/);
      expect(tries).toBe(1);
    } finally {
      await close(taken);
    }
  });
});
