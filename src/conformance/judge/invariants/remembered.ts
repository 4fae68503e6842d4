// What an invariant remembers of a run, bounded: beyond `limit` keys the oldest is
// forgotten, so a long run (or a long recorded trace) cannot grow a watch without end.
export class Remembered<V> {
  readonly #map = new Map<string, V>();
  constructor(readonly limit: number) {}
  get(key: string): V | undefined {
    return this.#map.get(key);
  }
  set(key: string, value: V): void {
    if (!this.#map.has(key) && this.#map.size >= this.limit) this.#map.delete(this.#map.keys().next().value!);
    this.#map.set(key, value);
  }
  entries(): IterableIterator<[string, V]> {
    return this.#map.entries();
  }
  /** Forgets everything (the target's state started anew). */
  clear(): void {
    this.#map.clear();
  }
}

/** The simulator's control routes that start its state anew (its reset, a scenario; a sandbox's too): what a watch remembered of the target is gone. */
const STATE_RESET = /^POST (?:\/sandboxes\/[^/]+)?\/_sim\/(?:reset|scenario)(?:\?|$)/;

export function resetsState(ex: { method: string; path: string; status: number }): boolean {
  return ex.status < 300 && STATE_RESET.test(`${ex.method} ${ex.path}`);
}
