// A sandbox's own API keys (the sandboxes' registry is sandboxes.ts): they carry the
// sandbox's id, so a request with one of them reaches its sandbox by itself, whatever
// else it carries. The scenario's keys (the demo keys) stay valid in every sandbox too,
// reached by a hint (a base path, a header or a cookie).
//
//   ghk_<sandbox id>            the sandbox's key: every scope, on the scenario's first account
//                               (acc_demo in the shipped scenarios)
//   ghk_<sandbox id>_<role>     its copy of each scenario key: `full` for ghk_demo_full, ...
//   ghk_<sandbox id>_sim_<...>  a key made in the sandbox through POST /_sim/keys
//
// They belong to every scenario the sandbox puts in force (its starting one, and one loaded
// later), so a reset or a load keeps them valid.
import { scopes as allScopes } from "../../contract/tables.ts";
import type { Scenario, ScenarioKey } from "./scenario/format.ts";

/** Every sandbox key starts so; the 12 characters after it name the sandbox. */
export const SANDBOX_KEY_PREFIX = "ghk_sbx_";

/** A sandbox's id: `sbx_` and 12 lower-case letters and digits. */
export const SANDBOX_ID = /^sbx_[0-9a-z]{12}$/;

const ID_LENGTH = 16;

/**
 * The sandbox a key names (`sbx_…`), or undefined for any other key. Reads the token of
 * `Bearer <token>` without a match array: it runs on requests with such a key only.
 */
export function sandboxOfKey(token: string): string | undefined {
  if (!token.startsWith(SANDBOX_KEY_PREFIX) || token.length < 4 + ID_LENGTH) return undefined;
  if (token.length > 4 + ID_LENGTH && token.charCodeAt(4 + ID_LENGTH) !== 95) return undefined; // "_"
  const id = token.slice(4, 4 + ID_LENGTH);
  return SANDBOX_ID.test(id) ? id : undefined;
}

/** A scenario key's role: `full` for `ghk_demo_full`, the secret after `ghk_` for another. */
export function roleOf(secret: string): string {
  return secret.startsWith("ghk_demo_") ? secret.slice(9) : secret.slice(4);
}

/** The id of the sandbox's own key (every scope). */
export const SANDBOX_KEY_ID = "key_sandbox";

/** What a sandbox hands its test: its own key and its copy of each scenario key, by role. */
export interface SandboxKeys {
  apiKey: string;
  keys: Record<string, string>;
}

/** The scenario's keys as the sandbox `id` holds them: its own key and a copy of each (the secret names the sandbox). */
export function sandboxKeysOf(scenario: Scenario, id: string): { keys: ScenarioKey[]; handed: SandboxKeys } {
  // Keys of a sandbox left in a scenario exported from it: never a scenario key of another.
  const own = scenario.keys.filter((k) => !k.secret.startsWith(SANDBOX_KEY_PREFIX));
  const ids = new Set(own.map((k) => k.id));
  const account = (own.find((k) => k.secret === "ghk_demo_full") ?? own[0])?.account_id ?? scenario.accounts[0]?.id;
  const made: ScenarioKey[] = [];
  const handed: SandboxKeys = { apiKey: `ghk_${id}`, keys: {} };
  if (account !== undefined && !ids.has(SANDBOX_KEY_ID)) {
    made.push({ secret: handed.apiKey, id: SANDBOX_KEY_ID, account_id: account, scopes: [...allScopes], expires_in_seconds: null, revoked: false, spend_limit_cc: null, spent_cc: 0, purpose: "the sandbox's own key: every scope" });
  }
  for (const k of own) {
    const role = roleOf(k.secret);
    const secret = `ghk_${id}_${role}`;
    const copyId = `sbx_${role}`;
    // A copy whose secret would be too long for a key, or whose id the scenario uses already, is left out.
    if (secret.length > 124 || ids.has(copyId)) continue;
    made.push({ ...k, scopes: Array.isArray(k.scopes) ? [...k.scopes] : k.scopes, secret, id: copyId, purpose: `the sandbox's copy of ${k.secret}: ${k.purpose}` });
    handed.keys[role] = secret;
  }
  return { keys: [...own, ...made], handed };
}

/** The scenario with the sandbox's keys added (what the sandbox starts from, resets to and loads). */
export function withSandboxKeys(scenario: Scenario, id: string): Scenario {
  return { ...scenario, keys: sandboxKeysOf(scenario, id).keys };
}
