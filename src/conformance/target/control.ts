// What a caller that controls the server can do that the seed shows no public route for:
// cancel or delete a generation ("The path and method of the cancel/delete operation for a
// generation: not shown"), and make and revoke an API key (the user does it in the
// account settings). With it, the suite holds what the seed says follows (one event, then
// 404 on every route; a revoked key refused everywhere and its stream ended). The
// simulator offers all four through its documented control interface (`/_sim/`), used
// here in setup only, as the keys with fewer scopes are: the checks call `control`, never
// `/_sim/`. A test deployment can pass its own; without it those sequences are `n/a`.

export interface ServerControl {
  /** Cancels a generation of the main account (one not yet taken into work). */
  cancelGeneration?(id: string): Promise<void>;
  /** Deletes a finished generation of the main account. */
  deleteGeneration?(id: string): Promise<void>;
  /** A new API key of the main account with every scope. */
  newKey?(): Promise<string>;
  /** Revokes an API key (as its user would in the account settings). */
  revokeKey?(key: string): Promise<void>;
}

/** The simulator's control interface as a `ServerControl` for the demo account (or `accountId`). */
export function simulatorControl(base: string, accountId = "acc_demo"): ServerControl {
  const call = async (method: string, path: string, body?: unknown): Promise<any> => {
    // The control interface takes JSON only, a POST without a body too (its guard against cross-site requests).
    const res = await fetch(`${base}/_sim/${path}`, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}) });
    const json = await res.json().catch(() => undefined);
    if (res.status >= 300) throw new Error(`the simulator's control route ${method} /_sim/${path} answered ${res.status} ${json?.error?.code ?? ""}`.trim());
    return json;
  };
  return {
    cancelGeneration: async (id) => void (await call("POST", `generations/${encodeURIComponent(id)}/cancel`)),
    deleteGeneration: async (id) => void (await call("DELETE", `generations/${encodeURIComponent(id)}`)),
    newKey: async () => String((await call("POST", "keys", { account_id: accountId, purpose: "conformance: a key revoked during the run" })).secret),
    revokeKey: async (key) => void (await call("POST", `keys/${encodeURIComponent(key)}/revoke`)),
  };
}

/**
 * The simulator's control interface when the target exposes it (the standalone mock as
 * `generation-hub mock` starts it, or a proxy in front of one), for the account of the
 * main key; undefined for any other server. One harmless read of `GET /_sim/scenarios`
 * tells: a server without it answers 404 (or nothing), and the run goes on without.
 */
export async function detectSimulatorControl(base: string, apiKey: string, timeoutMs = 5_000): Promise<ServerControl | undefined> {
  try {
    const scenarios = await fetch(`${base}/_sim/scenarios`, { signal: AbortSignal.timeout(timeoutMs) });
    const listed = (await scenarios.json().catch(() => undefined)) as { data?: unknown; loaded?: unknown } | undefined;
    if (scenarios.status !== 200 || !Array.isArray(listed?.data) || typeof listed?.loaded !== "string") return undefined;
    const who = await fetch(`${base}/v1/whoami`, { headers: { authorization: `Bearer ${apiKey}` }, signal: AbortSignal.timeout(timeoutMs) });
    const account = ((await who.json().catch(() => undefined)) as { user_id?: unknown } | undefined)?.user_id;
    return typeof account === "string" ? simulatorControl(base, account) : undefined;
  } catch {
    return undefined;
  }
}
