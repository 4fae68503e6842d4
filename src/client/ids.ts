// Random ids for `X-Request-Id` and `Idempotency-Key`: `crypto.randomUUID` (Node 20+,
// browsers' secure contexts), else a v4 UUID from `crypto.getRandomValues`.
export function randomId(): string {
  const c = globalThis.crypto;
  return c.randomUUID?.() ?? "10000000-1000-4000-8000-100000000000".replace(/[018]/g, (d) => (+d ^ (c.getRandomValues(new Uint8Array(1))[0]! & (15 >> (+d / 4)))).toString(16));
}
