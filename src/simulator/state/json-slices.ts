// JSON text made a slice at a time: a large document (an export of a hundred thousand
// generations is tens of megabytes) is written in parts, so whoever writes it can let
// other work run between them. The text is exactly what JSON.stringify writes.

/** A list whose records are made as they are written, in order, not before. */
export class LazyList<T> {
  constructor(readonly items: () => Iterable<T>) {}

  toArray(): T[] {
    return Array.from(this.items());
  }
}

function holdsLazy(value: unknown): boolean {
  if (value instanceof LazyList) return true;
  if (value === null || typeof value !== "object") return false;
  return Object.values(value).some(holdsLazy);
}

/** `value` with every LazyList (in plain objects) made whole. */
export function whole(value: unknown): unknown {
  if (value instanceof LazyList) return value.toArray();
  if (value === null || typeof value !== "object" || Array.isArray(value) || !holdsLazy(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, whole(v)]));
}

/**
 * The text of `JSON.stringify(whole(value))`, in slices: a slice ends after the LazyList
 * record that brings it to `sliceChars` characters (or at the end), so making one is
 * bounded work whatever the records hold (a prompt may be 100,000 characters). LazyLists
 * are looked for in plain objects only.
 */
export function* jsonSlices(value: unknown, sliceChars: number): Generator<string> {
  let buffer = "";
  function* write(v: unknown): Generator<string> {
    if (v instanceof LazyList) {
      buffer += "[";
      let first = true;
      for (const item of v.items() as Iterable<unknown>) {
        if (!first) buffer += ",";
        first = false;
        buffer += JSON.stringify(item) ?? "null";
        if (buffer.length >= sliceChars) {
          yield buffer;
          buffer = "";
        }
      }
      buffer += "]";
    } else if (v !== null && typeof v === "object" && !Array.isArray(v) && holdsLazy(v)) {
      buffer += "{";
      let first = true;
      for (const [k, x] of Object.entries(v)) {
        // As JSON.stringify does: no property for undefined or a function.
        if (x === undefined || typeof x === "function") continue;
        buffer += `${first ? "" : ","}${JSON.stringify(k)}:`;
        first = false;
        yield* write(x);
      }
      buffer += "}";
    } else {
      buffer += JSON.stringify(v);
    }
  }
  yield* write(value);
  if (buffer !== "") yield buffer;
}
