// A request body as the invariants compare them: JSON with every object's keys in order,
// nested ones too, so two bodies are the same request whatever order they name their
// fields in (a replay, a body priced and then submitted).

/** A JSON value with its object keys in order, at every depth. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}
