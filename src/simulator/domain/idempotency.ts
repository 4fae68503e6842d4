// Idempotency of submits: one stored answer per account and `Idempotency-Key`. A replay
// (the same body, compared as JSON with sorted keys) answers the stored generation at
// its current status; another body under the same key is a conflict. Handlers run
// synchronously, so concurrent submits with one key cannot both create a generation.
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
export function lookup(state: HubState, accountId: string, key: string, body: unknown, text: string): Lookup {
  const stored = state.idempotency.get(accountId)?.get(key);
  if (!stored) return NEW;
  const generation = state.generations.get(stored.generation_id);
  const same = stored.body === text || sameJson(stored.body, body);
  return same && generation ? { kind: "replay", generation } : CONFLICT;
}

/** Stores the accepted body under the key, after a lookup answered `new`. */
export function remember(state: HubState, accountId: string, key: string, text: string, gen: Generation): void {
  entryOf(state.idempotency, accountId, newMap).set(key, { body: text, generation_id: gen.id });
}

function sameJson(storedText: string, body: unknown): boolean {
  const given = canonicalJson(body);
  // A body too deep to compare cannot be the stored (valid) one.
  return given !== undefined && given === canonicalJson(JSON.parse(storedText));
}
