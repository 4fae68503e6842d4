// The simulator's clock. Generations advance, rate windows roll over, keys expire and
// event history ages on this clock, not on the wall clock, so tests can freeze it
// (speed 0) and move it explicitly, and a frontend developer can run it faster.

interface Task {
  at: number;
  seq: number;
  run: () => void;
  cancelled: boolean;
}

export interface Scheduled {
  cancel(): void;
}

export class SimClock {
  #speed: number;
  /** Wall time and simulated time at the last speed change or jump. */
  #wallBase: number;
  #simBase: number;
  /** While a task runs, `now()` reads the task's own time so timestamps are exact. */
  #pinned: number | undefined;
  #heap: Task[] = [];
  #seq = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #armedFor: number | undefined;
  #running = false;

  constructor(options: { speed?: number; start?: number } = {}) {
    this.#speed = options.speed ?? 1;
    this.#wallBase = Date.now();
    this.#simBase = options.start ?? this.#wallBase;
  }

  now(): number {
    if (this.#pinned !== undefined) return this.#pinned;
    return Math.floor(this.#simBase + (Date.now() - this.#wallBase) * this.#speed);
  }

  get speed(): number {
    return this.#speed;
  }

  setSpeed(speed: number): void {
    const now = this.now();
    this.#simBase = now;
    this.#wallBase = Date.now();
    this.#speed = speed;
    this.#arm();
  }

  /** Moves simulated time forward, running every task that falls due, in time order. */
  advance(ms: number): number {
    const target = this.now() + Math.max(0, ms);
    this.#runDue(target);
    this.#simBase = target;
    this.#wallBase = Date.now();
    this.#arm();
    return target;
  }

  /** Runs `run` when simulated time reaches `at`. */
  at(at: number, run: () => void): Scheduled {
    const task: Task = { at, seq: this.#seq++, run, cancelled: false };
    this.#push(task);
    // Scheduled inside a running task: the loop picks it up; otherwise re-arm.
    if (!this.#running) this.#arm();
    return { cancel: () => { task.cancelled = true; } };
  }

  /** Forgets every pending task (state reset). */
  clear(): void {
    this.#heap = [];
    this.#disarm();
  }

  stop(): void {
    this.clear();
  }

  pending(): number {
    return this.#heap.filter((t) => !t.cancelled).length;
  }

  #runDue(limit: number): void {
    if (this.#running) return;
    this.#running = true;
    try {
      for (;;) {
        const top = this.#heap[0];
        if (!top || top.at > limit) break;
        this.#pop();
        if (top.cancelled) continue;
        this.#pinned = Math.max(top.at, this.#pinned ?? top.at);
        try {
          top.run();
        } catch (error) {
          // A failing task must not stop the clock for every other generation.
          console.error("simulator: scheduled task failed", error);
        }
      }
    } finally {
      this.#pinned = undefined;
      this.#running = false;
    }
  }

  #arm(): void {
    const top = this.#peekLive();
    // A frozen clock still runs what is already due (a forced outcome "now").
    if (!top || (this.#speed <= 0 && top.at > this.now())) {
      this.#disarm();
      return;
    }
    if (this.#timer && this.#armedFor === top.at) return;
    this.#disarm();
    const delay = this.#speed <= 0 ? 0 : Math.max(0, (top.at - this.now()) / this.#speed);
    this.#armedFor = top.at;
    // Long delays are capped so a speed change or a jump is honoured promptly.
    this.#timer = setTimeout(() => this.#tick(), Math.min(delay, 2 ** 31 - 1));
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #tick(): void {
    this.#timer = undefined;
    this.#armedFor = undefined;
    this.#runDue(this.now());
    this.#arm();
  }

  #disarm(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedFor = undefined;
  }

  #peekLive(): Task | undefined {
    while (this.#heap[0]?.cancelled) this.#pop();
    return this.#heap[0];
  }

  // A binary min-heap on (at, seq): tasks due at the same moment run in scheduling order.
  #less(a: Task, b: Task): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  #push(task: Task): void {
    const h = this.#heap;
    h.push(task);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  #pop(): Task | undefined {
    const h = this.#heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.#less(h[l]!, h[m]!)) m = l;
        if (r < h.length && this.#less(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}
