// The credentials of a run with fewer scopes than the main key: the `read-only` role key
// and the keys given as `scopedKeys`, each with the scopes `GET /v1/whoami` says it holds
// (learnt once per run).
import { errorCodeOf, type Exchange } from "../target/exchange.ts";
import { type CheckContext } from "../facts/check.ts";

export interface Scoped {
  label: string;
  secret: string;
  /** An OAuth access token (its refusals name the missing scope in `WWW-Authenticate`). */
  oauth: boolean;
  /** What `GET /v1/whoami` said it holds; empty when that was not learnt. */
  scopes: string[];
  /** Why its scopes were not learnt. */
  unknown?: string;
  /** The `whoami` answer they were read from. */
  who: Exchange;
}

const learnt = new WeakMap<CheckContext, Promise<Scoped[]>>();

/** The keys with fewer scopes, each with what it holds (one `whoami` each per run). */
export function scopedKeys(c: CheckContext): Promise<Scoped[]> {
  let keys = learnt.get(c);
  if (!keys) {
    keys = learn(c);
    learnt.set(c, keys);
  }
  return keys;
}

async function learn(c: CheckContext): Promise<Scoped[]> {
  const given: { label: string; secret: string }[] = [];
  const readOnly = c.role("read-only");
  if (readOnly) given.push({ label: "read-only", secret: readOnly });
  (c.settings.options.scopedKeys ?? []).forEach((secret, i) => given.push({ label: `scoped-${i + 1}`, secret }));
  const out: Scoped[] = [];
  for (const k of given) out.push(await whoHolds(c, { ...k, oauth: false }));
  return out;
}

/** Reads what a credential holds from `GET /v1/whoami`. */
export async function whoHolds(c: CheckContext, cred: { label: string; secret: string; oauth: boolean }): Promise<Scoped> {
  const who = await c.get("/v1/whoami", "AUTH-6", { key: cred.secret, label: cred.label });
  const scopes: string[] = who.status === 200 && Array.isArray(who.json?.scopes) ? who.json.scopes.map(String) : [];
  if (scopes.length > 0) return { ...cred, scopes, who };
  return { ...cred, scopes, who, unknown: `whoami ${who.status}${errorCodeOf(who.json) ? ` ${errorCodeOf(who.json)}` : ""}` };
}

/**
 * The key a probe of a route of `scope` goes with: a key of the run with fewer scopes that
 * holds it, else the main key. Each key has a rate window of its own (two keys of one
 * account do not share the `default` window), so the properties' many requests do not
 * stall the main key's.
 */
export async function keyFor(c: CheckContext, scope: string | null): Promise<{ key: string; label: string }> {
  const key = scope ? (await scopedKeys(c)).find((k) => !k.oauth && k.scopes.includes(scope)) : undefined;
  return key ? { key: key.secret, label: key.label } : { key: c.apiKey, label: "main" };
}
