// What a caller that controls the server can do that the seed shows no public route for:
// cancel or delete a generation ("The path and method of the cancel/delete operation for a
// generation: not shown"), make a provider's result come late (no client can), make and
// revoke an API key (the user does it in the account settings), and move the server's
// clock. With it, the suite holds what the seed says follows (one event, then 404 on every
// route; a revoked key refused everywhere and its stream ended; a late result's own
// event), and checks the rules that take time (a ticket's signature expiring, the
// event history's 7 days) by moving the clock instead of waiting. A test deployment can
// pass its own `ServerControl`; the simulator's is its control interface (`/_sim/`)
// through its typed client, `HubControl`, the only way the suite reaches it. The checks
// call `control`, never `/_sim/`; without it those sequences are `n/a`, and time is waited
// for in real time (within `--max-wait`).
import { HubControl } from "../../simulator/msw/control.ts";

export interface ServerControl {
  /** Cancels a generation of the main account (one not yet taken into work). */
  cancelGeneration?(id: string): Promise<void>;
  /** Deletes a finished generation of the main account. */
  deleteGeneration?(id: string): Promise<void>;
  /**
   * Makes the provider's result for a generation of the main account come late: its
   * attempt is closed as `FAILED`, then the result comes and it turns `DONE` (ST-4).
   */
  lateResult?(id: string): Promise<void>;
  /** A new API key of the main account with every scope. */
  newKey?(): Promise<string>;
  /** Revokes an API key (as its user would in the account settings). */
  revokeKey?(key: string): Promise<void>;
  /**
   * Moves the server's clock forward by `seconds`, running what falls due on the way
   * (generations move on, windows reset, signatures and history expire); resolves with the
   * server's time after the move (ms since the epoch), so `advanceClock(0)` reads it. The
   * suite then owns the clock: every other client of that server sees it jump.
   */
  advanceClock?(seconds: number): Promise<number>;
}

/** The simulator's control interface at `base` as a `ServerControl` for the demo account (or `accountId`). */
export function simulatorControl(base: string, accountId = "acc_demo", control = HubControl.overHttp(base)): ServerControl {
  return {
    cancelGeneration: async (id) => void (await control.cancelGeneration(id)),
    deleteGeneration: async (id) => void (await control.deleteGeneration(id)),
    lateResult: async (id) => void (await control.forceOutcome(id, "late")),
    newKey: async () => (await control.createKey({ account_id: accountId, purpose: "conformance: a key revoked during the run" })).secret,
    revokeKey: async (key) => void (await control.revokeKey(key)),
    advanceClock: async (seconds) => (await control.advance(seconds)).now_ms,
  };
}

/** How long the reads that look for the control interface wait for an answer, at most. */
const DETECT_MS = 5_000;

/**
 * The simulator's control interface when the target exposes it (the standalone mock as
 * `generation-hub mock` starts it, or a proxy in front of one), for the account of the
 * main key; undefined for any other server. One harmless read of `GET /_sim/scenarios`
 * tells: a server without it answers 404 (or nothing), and the run goes on without. Each
 * read waits DETECT_MS at most, or the run's per-request timeout (--timeout) when shorter:
 * a server that answers nothing costs no more here than on the run's first request.
 */
export async function detectSimulatorControl(base: string, apiKey: string, requestTimeoutMs?: number): Promise<ServerControl | undefined> {
  const timeoutMs = Math.min(DETECT_MS, requestTimeoutMs ?? DETECT_MS);
  const control = HubControl.overHttp(base, { fetch: (url, init) => fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) }) });
  try {
    const listed = await control.scenarios();
    if (!Array.isArray(listed?.data) || typeof listed?.loaded !== "string") return undefined;
    const who = await fetch(`${base}/v1/whoami`, { headers: { authorization: `Bearer ${apiKey}` }, signal: AbortSignal.timeout(timeoutMs) });
    const account = ((await who.json().catch(() => undefined)) as { user_id?: unknown } | undefined)?.user_id;
    return typeof account === "string" ? simulatorControl(base, account) : undefined;
  } catch {
    return undefined;
  }
}
