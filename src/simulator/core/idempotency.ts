// Idempotency of submits: one stored answer per account and `Idempotency-Key`. A replay
// (the same body, compared as JSON with sorted keys) answers the stored generation at
// its current status; another body under the same key is a conflict. Handlers run
// synchronously, so concurrent submits with one key cannot both create a generation.
import type { Generation, HubState } from "./state.ts";
import { canonicalJson } from "./util.ts";

export const IDEMPOTENCY_KEY_MAX = 255;

export type Lookup =
  | { kind: "new"; remember: (gen: Generation) => void }
  | { kind: "replay"; generation: Generation }
  | { kind: "conflict" };

/**
 * `text` is the body as received: it is stored as is, and bodies are brought to their
 * canonical form only when a key comes back (most keys never do).
 */
export function lookup(state: HubState, accountId: string, key: string, body: unknown, text: string): Lookup {
  const slot = `${accountId}\n${key}`;
  const stored = state.idempotency.get(slot);
  if (!stored) return { kind: "new", remember: (gen) => state.idempotency.set(slot, { body: text, generation_id: gen.id }) };
  const generation = state.generations.get(stored.generation_id);
  const same = stored.body === text || sameJson(stored.body, body);
  return same && generation ? { kind: "replay", generation } : { kind: "conflict" };
}

function sameJson(storedText: string, body: unknown): boolean {
  const given = canonicalJson(body);
  // A body too deep to compare cannot be the stored (valid) one.
  return given !== undefined && given === canonicalJson(JSON.parse(storedText));
}
