// Setup against the simulator only (the CLI's own simulator, the project's tests): keys of
// the demo account with fewer scopes, made through its documented control route
// `POST /_sim/keys`. The checks never call `/_sim/`; they get these keys as `scopedKeys`.
import { scopes as vocabulary } from "../../contract/index.ts";

/**
 * Two keys of the demo account with fewer scopes, made through the simulator's documented
 * `POST /_sim/keys` (setup only): one holding `models:read` alone, one holding every other
 * scope, so that every route of a scope meets a key without it.
 */
export async function simulatorScopedKeys(base: string): Promise<string[]> {
  const sets = [["models:read"], vocabulary.filter((s) => s !== "models:read")];
  const keys: string[] = [];
  for (const scopes of sets) {
    const res = await fetch(`${base}/_sim/keys`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ account_id: "acc_demo", scopes, purpose: "conformance: fewer scopes" }) });
    const body = (await res.json()) as { secret?: unknown };
    if (res.status !== 201 || typeof body.secret !== "string") throw new Error(`making a key with fewer scopes on the simulator answered ${res.status}`);
    keys.push(body.secret);
  }
  return keys;
}

