// An account's records in creation order (creation time, then id), the oldest dropped
// first: the generations, the ledger and the library's assets of one account. A page read
// finds its place by binary search and reads only the records it answers, so its cost does
// not grow with the number of records kept; retention drops from the old end in O(1).

/** A record with a place in time: its creation time and its id (the tiebreaker). */
export interface Dated {
  readonly id: string;
  readonly created_at: number;
}

/** Whether `a` was created before `b` (by time, then id). */
export function older(a: Dated, b: Dated): boolean {
  return a.created_at < b.created_at || (a.created_at === b.created_at && a.id < b.id);
}

export class Timeline<T extends Dated> implements Iterable<T> {
  /** Records from `#start` on are kept; the ones before it were dropped (compacted lazily). */
  #items: T[] = [];
  #start = 0;

  get size(): number {
    return this.#items.length - this.#start;
  }

  /** The `i`-th record kept, 0 the oldest. */
  at(i: number): T | undefined {
    return i >= 0 && i < this.size ? this.#items[this.#start + i] : undefined;
  }

  get oldest(): T | undefined {
    return this.at(0);
  }

  /**
   * Adds a record at its place: at the end, unless it is older than the newest (a refund
   * a clock task dated at its own moment, a scenario's records), then after every older one.
   */
  add(item: T): void {
    const items = this.#items;
    const last = items.length > this.#start ? items[items.length - 1]! : undefined;
    if (!last || older(last, item)) {
      items.push(item);
      return;
    }
    items.splice(this.#start + this.countOlder(item.created_at, item.id), 0, item);
  }

  /** Drops the oldest record and answers it. */
  shift(): T | undefined {
    if (this.size === 0) return undefined;
    const item = this.#items[this.#start]!;
    this.#items[this.#start++] = undefined as unknown as T; // let it be collected
    if (this.#start === this.#items.length) {
      this.#items = [];
      this.#start = 0;
    } else if (this.#start >= 1024 && this.#start * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#start);
      this.#start = 0;
    }
    return item;
  }

  /**
   * Puts back a record older than every record kept (the ledger's opening row after the
   * rows it folds were shifted out): in O(1), in the place the last shift freed.
   */
  unshift(item: T): void {
    if (this.#start > 0) this.#items[--this.#start] = item;
    else this.#items.unshift(item);
  }

  /** How many records kept were created before the position (`at`, `id`): binary search. */
  countOlder(at: number, id: string): number {
    const items = this.#items;
    let lo = this.#start;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const r = items[mid]!;
      if (r.created_at < at || (r.created_at === at && r.id < id)) lo = mid + 1;
      else hi = mid;
    }
    return lo - this.#start;
  }

  /** The records kept, oldest first, as an array (a copy: later changes do not reach it). */
  toArray(): T[] {
    return this.#items.slice(this.#start);
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = this.#start; i < this.#items.length; i++) yield this.#items[i]!;
  }
}

/** The records of several timelines (copies of them) in one creation order: a merge, made as it is read. */
export function* merged<T extends Dated>(lists: readonly (readonly T[])[]): Generator<T> {
  const at = lists.map(() => 0);
  for (;;) {
    let best = -1;
    for (let k = 0; k < lists.length; k++) {
      const r = lists[k]![at[k]!];
      if (r !== undefined && (best < 0 || older(r, lists[best]![at[best]!]!))) best = k;
    }
    if (best < 0) return;
    yield lists[best]![at[best]!++]!;
  }
}

/** Factory for entryOf (state/util.ts). */
export const newTimeline = <T extends Dated>(): Timeline<T> => new Timeline<T>();
