// The simulated clock: explicit advances run due tasks in time order with exact
// timestamps; a frozen clock runs nothing until advanced, except what is already due.
import { describe, expect, it } from "vitest";
import { SimClock } from "../../src/simulator/core/clock.ts";

describe("SimClock", () => {
  it("a frozen clock stands still; advance runs every task that falls due, in time order, at its own time", () => {
    const clock = new SimClock({ speed: 0, start: 1_000_000 });
    const seen: [string, number][] = [];
    clock.at(1_000_300, () => seen.push(["c", clock.now()]));
    clock.at(1_000_100, () => {
      seen.push(["a", clock.now()]);
      // Scheduled from inside a task, still within the advance: runs in the same advance.
      clock.at(clock.now() + 50, () => seen.push(["a2", clock.now()]));
    });
    clock.at(1_000_200, () => seen.push(["b", clock.now()]));
    clock.at(1_000_900, () => seen.push(["late", clock.now()]));
    expect(clock.now()).toBe(1_000_000);
    clock.advance(500);
    expect(seen).toEqual([["a", 1_000_100], ["a2", 1_000_150], ["b", 1_000_200], ["c", 1_000_300]]);
    expect(clock.now()).toBe(1_000_500);
    expect(clock.pending()).toBe(1);
  });

  it("tasks due at the same moment run in the order they were scheduled; cancelled ones never run", () => {
    const clock = new SimClock({ speed: 0, start: 0 });
    const seen: number[] = [];
    for (let i = 0; i < 5; i++) clock.at(10, () => seen.push(i));
    const cancelled = clock.at(5, () => seen.push(99));
    cancelled.cancel();
    clock.advance(10);
    expect(seen).toEqual([0, 1, 2, 3, 4]);
  });

  it("a task already due on a frozen clock runs without an advance", async () => {
    const clock = new SimClock({ speed: 0, start: 0 });
    let ran = false;
    clock.at(0, () => (ran = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(ran).toBe(true);
    clock.stop();
  });

  it("a running clock follows real time at its speed", async () => {
    const clock = new SimClock({ speed: 100, start: 0 });
    let at = -1;
    clock.at(1_000, () => (at = clock.now()));
    await expect.poll(() => at, { timeout: 2_000 }).toBe(1_000);
    clock.setSpeed(0);
    const frozen = clock.now();
    await new Promise((r) => setTimeout(r, 20));
    expect(clock.now()).toBe(frozen);
    clock.stop();
  });
});
