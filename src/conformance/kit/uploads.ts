// Upload tickets as a client uses them: a header of the ticket, the direct PUT to storage
// with the ticket's headers (as they are, one left out, one replaced), the completion
// through the proxy path, the newest library assets, a file's bytes compared.
import { type Exchange } from "../target/exchange.ts";
import { type CheckContext } from "../facts/check.ts";

export type Ticket = Record<string, any>;

/** A header of a ticket's `headers`, whatever the case of its name. */
export function ticketHeader(t: Ticket, name: string): string | undefined {
  for (const [k, v] of Object.entries((t.headers ?? {}) as Record<string, unknown>)) if (k.toLowerCase() === name.toLowerCase()) return String(v);
  return undefined;
}

/** A PUT to the ticket's storage address: not an API answer, counted as `storage`. */
export async function storagePut(c: CheckContext, t: Ticket, headers: Record<string, string>, bytes: Uint8Array, rule: string): Promise<Exchange> {
  const url = new URL(String(t.url), c.settings.baseUrl);
  return c.request({ method: "PUT", url: url.href, path: url.pathname, key: null, label: "storage", requestId: false, bare: true, noRetry: true, headers, bytes, rule });
}

/** The ticket's headers as they are (names and values), the body as given. */
export function exactly(t: Ticket): Record<string, string> {
  return Object.fromEntries(Object.entries(t.headers as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
}

export function without(t: Ticket, name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(exactly(t)).filter(([k]) => k.toLowerCase() !== name.toLowerCase()));
}

export function replaced(t: Ticket, name: string, value: string): Record<string, string> {
  return { ...without(t, name), [name]: value };
}

export async function proxyPut(c: CheckContext, t: Ticket, contentType: string, bytes: Uint8Array, rule: string): Promise<Exchange | undefined> {
  const path = c.target.pathOf(String(t.proxy_path));
  if (!path) return undefined;
  // Never through `prism proxy`: Prism 5.14 re-encodes a binary body as text.
  return c.request({ method: "PUT", path, headers: { "content-type": contentType }, bytes, rule, direct: true });
}

/** The newest assets (ids and records), or undefined when the list cannot be read. */
export async function assetHead(c: CheckContext, rule: string): Promise<Record<string, any>[] | undefined> {
  const ex = await c.get("/v1/library/assets?limit=10", rule);
  return ex.status === 200 && Array.isArray(ex.json?.data) ? ex.json.data : undefined;
}

/** Whether an answer's bytes are exactly the file written. */
export function sameBytes(a: Uint8Array | undefined, b: Uint8Array): boolean {
  return a !== undefined && a.length === b.length && a.every((x, i) => x === b[i]);
}
