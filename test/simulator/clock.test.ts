// The simulated clock: explicit advances run due tasks in time order with exact
// timestamps; a frozen clock runs nothing until advanced, except what is already due.
import { describe, expect, it } from "vitest";
import { SimClock, TaskQueue } from "../../src/simulator/state/clock.ts";

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

describe("TaskQueue", () => {
  // Pops must come out in (at, seq) order whatever the mix: tasks arriving sorted per
  // delay (the lanes), out of order, with ties, and more disorder than there are lanes
  // (the heap behind them). Checked against a plain sort on pseudo-random workloads.
  function run(seed: number, delays: number, jitter: number) {
    let x = seed;
    const random = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const queue = new TaskQueue<{ at: number; seq: number }>();
    const pending: { at: number; seq: number }[] = [];
    const popped: { at: number; seq: number }[] = [];
    const expected: { at: number; seq: number }[] = [];
    let now = 0;
    let seq = 0;
    const popOne = () => {
      pending.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const least = pending.shift()!;
      expected.push(least);
      if (random() < 0.5) popped.push(queue.pop()!);
      else {
        // Nothing is due before the least task; by its time, it is the one given.
        expect(queue.popDue(least.at - 1)).toBeUndefined();
        popped.push(queue.popDue(least.at)!);
      }
    };
    for (let i = 0; i < 5_000; i++) {
      now += Math.floor(random() * 3);
      const task = { at: now + 100 * Math.floor(random() * delays) - Math.floor(random() * jitter), seq: seq++ };
      queue.push(task);
      pending.push(task);
      if (random() < 0.45) popOne();
    }
    while (pending.length) popOne();
    expect(queue.pop()).toBeUndefined();
    return { popped, expected };
  }

  it("gives tasks in time order, ties in scheduling order, and none before it is due: sorted per delay, out of order, and beyond its lanes", () => {
    for (const [delays, jitter] of [[1, 0], [4, 0], [12, 5], [40, 0], [40, 300]] as const) {
      for (const seed of [1, 2, 3]) {
        const { popped, expected } = run(seed, delays, jitter);
        expect(popped, `${delays} delays, jitter ${jitter}, seed ${seed}`).toEqual(expected);
      }
    }
  });
});
