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
  #queue = new TaskQueue();
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
    this.#queue = new TaskQueue();
    this.#disarm();
  }

  stop(): void {
    this.clear();
  }

  pending(): number {
    let n = 0;
    for (const t of this.#queue) if (!t.cancelled) n++;
    return n;
  }

  #runDue(limit: number): void {
    if (this.#running) return;
    this.#running = true;
    try {
      for (;;) {
        const top = this.#queue.popDue(limit);
        if (!top) break;
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
    while (this.#queue.peek()?.cancelled) this.#pop();
    return this.#queue.peek();
  }

  #push(task: Task): void {
    this.#queue.push(task);
  }

  #pop(): Task | undefined {
    return this.#queue.pop();
  }
}

/**
 * The pending tasks, in (at, seq) order: tasks due at the same moment run in scheduling
 * order. Most tasks are a generation's next move, scheduled a fixed delay after "now",
 * so per delay they arrive already sorted. They are appended to sorted lanes (a lane
 * takes a task not earlier than its tail), and the next task is the least of the lane
 * heads: O(lanes) per task instead of a heap's O(log n) over ~10^5 pending moves under
 * load. A task that fits no lane while every lane is in use goes to a binary heap.
 */
export class TaskQueue<T extends Keyed = Task> {
  static readonly MAX_LANES = 16;
  readonly #lanes: Lane<T>[] = [];
  readonly #heap = new TaskHeap<T>();

  *[Symbol.iterator](): IterableIterator<T> {
    for (const lane of this.#lanes) for (let i = lane.head; i < lane.items.length; i++) yield lane.items[i]!;
    yield* this.#heap.tasks;
  }

  push(task: T): void {
    // The lane whose tail is the latest one not after the task, so the lanes with later
    // tails stay free for the tasks they fit.
    let best: Lane<T> | undefined;
    let bestAt = -Infinity;
    let empty: Lane<T> | undefined;
    for (const lane of this.#lanes) {
      if (lane.head === lane.items.length) {
        empty ??= lane;
        continue;
      }
      const at = lane.items[lane.items.length - 1]!.at;
      if (at <= task.at && at >= bestAt) {
        best = lane;
        bestAt = at;
      }
    }
    const lane = best ?? empty ?? (this.#lanes.length < TaskQueue.MAX_LANES ? this.#newLane() : undefined);
    if (lane) lane.items.push(task);
    else this.#heap.push(task);
  }

  peek(): T | undefined {
    const i = this.#least();
    return i === undefined ? undefined : i < 0 ? this.#heap.peek() : this.#lanes[i]!.items[this.#lanes[i]!.head];
  }

  pop(): T | undefined {
    return this.popDue(Infinity);
  }

  /** Removes and gives the least task when it is due by `limit` (one scan of the lanes). */
  popDue(limit: number): T | undefined {
    const i = this.#least();
    if (i === undefined) return undefined;
    if (i < 0) return this.#heap.peek()!.at > limit ? undefined : this.#heap.pop();
    const lane = this.#lanes[i]!;
    const task = lane.items[lane.head]!;
    if (task.at > limit) return undefined;
    lane.items[lane.head++] = undefined as unknown as T; // let it be collected
    if (lane.head === lane.items.length) {
      lane.items.length = 0;
      lane.head = 0;
    } else if (lane.head >= 4096 && lane.head * 2 >= lane.items.length) {
      lane.items.splice(0, lane.head);
      lane.head = 0;
    }
    return task;
  }

  #newLane(): Lane<T> {
    const lane: Lane<T> = { items: [], head: 0 };
    this.#lanes.push(lane);
    return lane;
  }

  /** Index of the lane whose head is the least task, -1 for the heap, undefined when empty. */
  #least(): number | undefined {
    let best: number | undefined;
    let least: T | undefined;
    const lanes = this.#lanes;
    for (let i = 0; i < lanes.length; i++) {
      const lane = lanes[i]!;
      const t = lane.items[lane.head];
      if (t !== undefined && (least === undefined || before(t, least))) {
        best = i;
        least = t;
      }
    }
    const h = this.#heap.peek();
    return h !== undefined && (least === undefined || before(h, least)) ? -1 : best;
  }
}

interface Keyed {
  readonly at: number;
  readonly seq: number;
}

interface Lane<T> {
  items: T[];
  head: number;
}

function before(a: Keyed, b: Keyed): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/**
 * A binary min-heap of tasks on (at, seq): tasks due at the same moment run in scheduling
 * order. The keys sit in typed arrays beside the tasks, so a sift compares numbers in one
 * block of memory instead of reading a task object (a cache miss each) on every level.
 */
class TaskHeap<T extends Keyed> {
  readonly tasks: T[] = [];
  #at = new Float64Array(1024);
  #seq = new Float64Array(1024);

  peek(): T | undefined {
    return this.tasks[0];
  }

  push(task: T): void {
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

  pop(): T | undefined {
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
