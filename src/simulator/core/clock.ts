// The simulator's clock. Generations advance, rate windows roll over, keys expire and
// event history ages on this clock, not on the wall clock, so tests can freeze it
// (speed 0) and move it explicitly, and a frontend developer can run it faster.

export interface Scheduled {
  cancel(): void;
}

// A task is its own handle: no closure per scheduled move (thousands per second under load).
class Task<T = unknown> implements Scheduled {
  cancelled = false;
  constructor(
    readonly at: number,
    readonly seq: number,
    readonly run: (arg: T) => void,
    readonly arg: T,
  ) {}

  cancel(): void {
    this.cancelled = true;
  }
}

export class SimClock {
  #speed: number;
  /** Wall time and simulated time at the last speed change or jump. */
  #wallBase: number;
  #simBase: number;
  /** While a task runs, `now()` reads the task's own time so timestamps are exact. */
  #pinned: number | undefined;
  #heap = new TaskHeap();
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

  /** Runs `run(arg)` when simulated time reaches `at`. */
  at(at: number, run: () => void): Scheduled;
  at<T>(at: number, run: (arg: T) => void, arg: T): Scheduled;
  at<T>(at: number, run: (arg: T) => void, arg?: T): Scheduled {
    const task = new Task<unknown>(at, this.#seq++, run as (arg: unknown) => void, arg);
    this.#push(task);
    // Scheduled inside a running task: the loop picks it up; otherwise re-arm.
    if (!this.#running) this.#arm();
    return task;
  }

  /** Forgets every pending task (state reset). */
  clear(): void {
    this.#heap = new TaskHeap();
    this.#disarm();
  }

  stop(): void {
    this.clear();
  }

  pending(): number {
    return this.#heap.tasks.filter((t) => !t.cancelled).length;
  }

  #runDue(limit: number): void {
    if (this.#running) return;
    this.#running = true;
    try {
      for (;;) {
        const top = this.#heap.peek();
        if (!top || top.at > limit) break;
        this.#pop();
        if (top.cancelled) continue;
        this.#pinned = Math.max(top.at, this.#pinned ?? top.at);
        try {
          top.run(top.arg);
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
    while (this.#heap.peek()?.cancelled) this.#pop();
    return this.#heap.peek();
  }

  #push(task: Task): void {
    this.#heap.push(task);
  }

  #pop(): Task | undefined {
    return this.#heap.pop();
  }
}

/**
 * A binary min-heap of tasks on (at, seq): tasks due at the same moment run in scheduling
 * order. The keys sit in typed arrays beside the tasks, so a sift compares numbers in one
 * block of memory instead of reading a task object (a cache miss each) on every level.
 */
class TaskHeap {
  readonly tasks: Task[] = [];
  #at = new Float64Array(1024);
  #seq = new Float64Array(1024);

  peek(): Task | undefined {
    return this.tasks[0];
  }

  push(task: Task): void {
    const t = this.tasks;
    let i = t.length;
    if (i === this.#at.length) this.#grow();
    const a = this.#at;
    const s = this.#seq;
    const at = task.at;
    const seq = task.seq;
    t.push(task);
    // Sifts move a hole instead of swapping pairs: one write per level.
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pa = a[p]!;
      if (at > pa || (at === pa && seq > s[p]!)) break;
      a[i] = pa;
      s[i] = s[p]!;
      t[i] = t[p]!;
      i = p;
    }
    a[i] = at;
    s[i] = seq;
    t[i] = task;
  }

  pop(): Task | undefined {
    const t = this.tasks;
    const top = t[0];
    const last = t.pop();
    const n = t.length;
    if (n > 0 && last) {
      const a = this.#at;
      const s = this.#seq;
      const la = a[n]!;
      const ls = s[n]!;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && (a[r]! < a[l]! || (a[r] === a[l] && s[r]! < s[l]!)) ? r : l;
        if (la < a[c]! || (la === a[c] && ls < s[c]!)) break;
        a[i] = a[c]!;
        s[i] = s[c]!;
        t[i] = t[c]!;
        i = c;
      }
      a[i] = la;
      s[i] = ls;
      t[i] = last;
    }
    return top;
  }

  #grow(): void {
    const at = new Float64Array(this.#at.length * 2);
    at.set(this.#at);
    this.#at = at;
    const seq = new Float64Array(this.#seq.length * 2);
    seq.set(this.#seq);
    this.#seq = seq;
  }
}
