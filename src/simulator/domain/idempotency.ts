// Idempotency of submits: one stored answer per account and `Idempotency-Key`. A replay
// (the same body, compared as JSON with sorted keys) answers the stored generation at
// its current status; another body under the same key is a conflict. Handlers run
// synchronously, so concurrent submits with one key cannot both create a generation.
// A key is remembered for `retention.idempotencySeconds` after it was accepted, and no
// longer than its generation is kept (it goes with it): then it is new again.
import type { Generation } from "../state/generations.ts";
import type { HubState } from "../state/hub-state.ts";
import { canonicalJson, entryOf, newMap } from "../state/util.ts";

export const IDEMPOTENCY_KEY_MAX = 255;

export type Lookup =
  | { kind: "new" }
  | { kind: "replay"; generation: Generation }
  | { kind: "conflict" };

// Shared answers: a lookup allocates nothing unless the key comes back.
const NEW: Lookup = { kind: "new" };
const CONFLICT: Lookup = { kind: "conflict" };

/**
 * `text` is the body as received: it is stored as is (`remember`), and bodies are
 * brought to their canonical form only when a key comes back (most keys never do).
 */
export function lookup(state: HubState, accountId: string, key: string, body: unknown, text: string, forgetBefore: number): Lookup {
  const keys = state.idempotency.get(accountId);
  const stored = keys?.get(key);
  if (!stored) return NEW;
  if (stored.created_at < forgetBefore) {
    keys!.delete(key);
    return NEW;
  }
  const generation = state.generations.get(stored.generation_id);
  const same = stored.body === text || sameJson(stored.body, body);
  return same && generation ? { kind: "replay", generation } : CONFLICT;
}

/** Stores the accepted body under the key, after a lookup answered `new`. */
export function remember(state: HubState, accountId: string, key: string, text: string, gen: Generation): void {
  entryOf(state.idempotency, accountId, newMap).set(key, { body: text, generation_id: gen.id, created_at: gen.created_at });
}

/** Forgets the key a generation was submitted with, as the generation is dropped. */
export function forgetKeyOf(state: HubState, gen: Generation): void {
  if (gen.idempotency_key === null) return;
  const keys = state.idempotency.get(gen.account_id);
  // The key may name a newer generation already (it was forgotten by time and used again).
  if (keys?.get(gen.idempotency_key)?.generation_id === gen.id) keys.delete(gen.idempotency_key);
}

function sameJson(storedText: string, body: unknown): boolean {
  const given = canonicalJson(body);
  // A body too deep to compare cannot be the stored (valid) one.
  return given !== undefined && given === canonicalJson(JSON.parse(storedText));
}
