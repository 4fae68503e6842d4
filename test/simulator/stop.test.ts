// How the simulator's command line stops. Its banner ("listening on ...") is what scripts
// and tests wait for before they use it, and some stop it as soon as they read it: the
// graceful stop must already be in place then, or the signal kills the process (no exit
// code, connections cut). In process, so the moment is exact: the banner is caught as it is
// printed and the stop handlers counted there.
import { afterEach, expect, it, vi } from "vitest";
import { runMock } from "../../src/simulator/cli.ts";

/** The handlers runMock adds, removed after the test (a signal never reaches them here). */
let added: { signal: "SIGTERM" | "SIGINT"; listener: NodeJS.SignalsListener }[] = [];

afterEach(() => {
  for (const { signal, listener } of added) process.removeListener(signal, listener);
  added = [];
  vi.restoreAllMocks();
});

it("SIGTERM and SIGINT stop it gracefully (exit 0) from the moment the banner names its address", async () => {
  const before = { SIGTERM: process.listeners("SIGTERM"), SIGINT: process.listeners("SIGINT") };
  const atBanner: { SIGTERM: number; SIGINT: number }[] = [];
  vi.spyOn(console, "log").mockImplementation((text: unknown) => {
    if (String(text).startsWith("Generation Hub simulator listening on ")) atBanner.push({ SIGTERM: process.listenerCount("SIGTERM"), SIGINT: process.listenerCount("SIGINT") });
  });
  const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
  await runMock(["--port", "0"], { program: "npm start --" });
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    for (const listener of process.listeners(signal)) if (!before[signal].includes(listener)) added.push({ signal, listener });
  }
  expect(atBanner).toEqual([{ SIGTERM: before.SIGTERM.length + 1, SIGINT: before.SIGINT.length + 1 }]);
  const onTerm = added.find((a) => a.signal === "SIGTERM");
  expect(onTerm).toBeDefined();
  onTerm!.listener("SIGTERM");
  await vi.waitFor(() => expect(exit).toHaveBeenCalledWith(0));
});
