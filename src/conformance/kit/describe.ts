// How a check's messages quote what it saw: a body (an empty one said as such, a long one
// cut with its size), a value that may be absent. (An answer's error code, operation and
// `404 not_found` are named where the exchange is made: target/exchange.ts.)

/** `an empty body`, or `a body of 57 bytes: "{\"error\":…"` (its first characters, quoted). */
export function bodyShown(text: string, max = 80): string {
  if (text.length === 0) return "an empty body";
  const size = Buffer.byteLength(text);
  return `a body of ${size} byte${size === 1 ? "" : "s"}: ${JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text)}`;
}

/** A value a message quotes: a text as is, another value as JSON, an absent one said as such. */
export function shown(value: unknown): string {
  return value === undefined ? "(absent)" : typeof value === "string" ? value : JSON.stringify(value);
}
