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

export function lookup(state: HubState, accountId: string, key: string, body: unknown): Lookup {
  const fingerprint = canonicalJson(body);
  const slot = `${accountId}\n${key}`;
  const stored = state.idempotency.get(slot);
  if (!stored) {
    // A body too deep to fingerprint cannot be valid; it is never stored.
    return { kind: "new", remember: (gen) => fingerprint !== undefined && state.idempotency.set(slot, { fingerprint, generation_id: gen.id }) };
  }
  const generation = state.generations.get(stored.generation_id);
  if (fingerprint !== undefined && stored.fingerprint === fingerprint && generation) return { kind: "replay", generation };
  return { kind: "conflict" };
}
