// How the suite reads and names what it quotes of an answer: its error code, its operation,
// its status and code, a body (an empty one said as such, a long one cut with its size), a
// value that may be absent.
import type { Operation } from "../../contract/index.ts";

/** The envelope's `error.code`, when the body has one. */
export function errorCodeOf(body: unknown): string | undefined {
  const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
  return typeof code === "string" ? code : undefined;
}

/** How the report names an operation: `readWhoami (GET /v1/whoami)`. */
export function operationLabel(operation: Operation): string {
  return `${operation.operationId} (${operation.method.toUpperCase()} ${operation.path})`;
}

/** `404 not_found`, or `200` without an error code. */
export function answered(ex: { status: number; json?: unknown }): string {
  const code = errorCodeOf(ex.json);
  return `${ex.status}${code ? ` ${code}` : ""}`;
}

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
