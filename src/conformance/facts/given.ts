// What a run is given: the server, its keys, and what it may do there.
import { seedRules } from "../../contract/index.ts";
import type { ServerControl } from "../target/control.ts";

/**
 * Extra keys, each reaching one rung of the refusal ladder or one refusal of a submit.
 * Only the rungs whose keys are given are exercised; the report names the others.
 */
export const KEY_ROLES = {
  expired: { code: "api_key_expired", help: "an expired key" },
  revoked: { code: "api_key_revoked", help: "a revoked key" },
  "no-api-access": { code: "api_access_not_granted", help: "a key of an account without public API access" },
  suspended: { code: "account_suspended", help: "a key of a suspended account" },
  terms: { code: "legal_consent_required", help: "a key of an account that has not accepted the current terms" },
  "read-only": { code: "insufficient_scope", help: "a key without generations:write (read scopes only)" },
  free: { code: "payment_required", help: "a key of an account without an active paid plan" },
  "spend-capped": { code: "key_spend_limit_reached", help: "a key whose monthly spend limit is reached" },
  "oauth-invalid": { code: "invalid_token", help: "an unusable OAuth access token (unknown, expired or revoked)" },
} as const;

export type KeyRole = keyof typeof KEY_ROLES;

/**
 * The redirect address of the clients the suite registers (a native client's loopback
 * address; the suite never listens there: it reads the 303's Location). A client ID
 * metadata document given with `--oauth-client-document` lists it, unless
 * `--oauth-redirect-uri` names another.
 */
export const SUITE_REDIRECT_URI = "http://127.0.0.1:8976/conformance/callback";

export interface ConformanceOptions {
  /** The server, e.g. `https://api.example.com` (no trailing `/v1`). */
  baseUrl: string;
  /** The main API key (every scope, active paid plan for the spending checks). */
  apiKey: string;
  /** A key of a second account, for the cross-account checks. */
  otherApiKey?: string;
  keys?: Partial<Record<KeyRole, string>>;
  /**
   * More keys of the main account with fewer scopes (what each holds is read from
   * `GET /v1/whoami`): every route that needs a scope one lacks must refuse it with 403
   * `insufficient_scope`.
   */
  scopedKeys?: string[];
  /**
   * A site session (the seed shows neither the cookie's name nor how it is obtained, so
   * the caller brings one): the `Cookie` header value, and an `Origin` the server allows
   * on mutating requests over it. Checks AUTH-3; with writes, the subscription actions.
   */
  session?: { cookie: string; origin?: string };
  /** An OAuth access token of a user (any scopes): checks what a token may do on `/v1`. */
  oauthToken?: string;
  /**
   * The OAuth code flow without a browser. `autoConsent`: the caller declares that the
   * server consents at once at `GET /oauth/authorize` (a test deployment: every
   * authorization request is a new consent granting every requested scope, answered by
   * the 303 with a code). `clientId` and `redirectUri`: a public (`none`) client to use
   * instead of registering one (with writes the suite registers its own). `clientDocument`:
   * the https address of a client ID metadata document the caller published, listing
   * `redirectUri` (default `SUITE_REDIRECT_URI`) among its `redirect_uris`.
   */
  oauth?: { autoConsent?: boolean; clientId?: string; redirectUri?: string; clientDocument?: string };
  /** Allow requests that change state without spending credits (reports, refused submits, ...). */
  allowWrites?: boolean;
  /** Allow submits that cost credits (implies allowWrites). */
  allowSpend?: boolean;
  /** The target is a static mock of the document (e.g. `prism mock`): behaviour checks do not apply. */
  staticMock?: boolean;
  /** Send requests through this address (a `prism proxy` in front of the server); streams go direct. */
  viaUrl?: string;
  /** Requests to leave in every rate window: below it the suite waits for the reset (default 5). */
  reserve?: number;
  /** Most seconds the suite may wait in total for rate windows (default 120). */
  maxWaitSeconds?: number;
  /** Most seconds to wait for a submitted generation to finish (default 300). */
  settleSeconds?: number;
  /** Per-request timeout in ms (default 30000). */
  requestTimeoutMs?: number;
  /**
   * Most bytes of one answer the suite reads and keeps (default 16 MiB); a larger answer
   * is not read further and fails the rule its request exercised ("answer too large"). For
   * an event stream, the most bytes of one frame.
   */
  maxAnswerBytes?: number;
  /** Skip the checks that wait in real time (the heartbeat: up to 15 s + slack). */
  quick?: boolean;
  /**
   * A floor for the share of seed rules the run exercises (pass or fail), in percent: a
   * run under it fails (`report.coverage.rules.met` false, exit status 1).
   */
  minCoverage?: number;
  /**
   * Generated inputs: `perOperation` requests for each operation of the contract, built
   * from its schemas with `seed` (the same seed sends the same requests; default a random
   * one, reported), for `operations` only when given (operationIds).
   */
  generate?: { perOperation: number; seed?: number; operations?: string[] };
  /** Only these rule ids (or id prefixes such as `PAGE`); default all. */
  only?: string[];
  /**
   * Moves the target's clock by that many seconds instead of sleeping (a simulator
   * whose clock the caller controls). Without it the suite waits in real time.
   */
  advance?: (seconds: number) => Promise<void>;
  /**
   * What the caller can do to the server that the seed shows no public route for (cancel
   * and delete a generation, make and revoke a key): the sequences that need it run with
   * it (`simulatorControl(baseUrl)` for the simulator), and are `n/a` without it.
   */
  control?: ServerControl;
  /** Progress lines (verbose output). */
  log?: (line: string) => void;
  /**
   * What a long wait is for (a rate window's reset, generations to finish, the heartbeat),
   * said when it starts and every 15 s while it lasts: the CLI prints these on stderr
   * always. Only waits in real time are said (not with `advance`).
   */
  progress?: (line: string) => void;
}

/** The environment variable of the `i`-th (0-based) key with fewer scopes: `HUB_SCOPED_KEY_1`, ... */
export function scopedKeyVariable(i: number): string {
  return `HUB_SCOPED_KEY_${i + 1}`;
}

/** Whether `--only` (ids or prefixes: `PAGE`, `EVT-9`, `SUB-`) selects the rule `id`. */
export function onlyMatches(id: string, only: readonly string[]): boolean {
  return only.some((o) => id === o || id.startsWith(`${o}-`) || (o.endsWith("-") && id.startsWith(o)));
}

/**
 * What is wrong with a selection by name (`--only` rule ids or prefixes, `--operations`
 * operationIds): the names that select nothing, each with the closest known ones; undefined
 * when every name selects something. `what` says what the flag names no one of.
 */
export function unknownNames(given: readonly string[], selects: (name: string) => boolean, known: readonly string[], what: string): string | undefined {
  const unknown = given.filter((name) => !selects(name));
  if (unknown.length === 0) return undefined;
  const each = unknown.map((name) => {
    const near = closest(name, known);
    return `${name} (${near.length > 0 ? `closest: ${near.join(", ")}` : "nothing close"})`;
  });
  return `${what}: ${each.join("; ")}`;
}

/** Unknown `--only` ids or prefixes, said with the closest rule ids and prefixes of the registry. */
export function unknownRules(only: readonly string[]): string | undefined {
  const ids = seedRules().map((r) => r.id);
  const prefixes = [...new Set(ids.map((id) => id.replace(/-[^-]*$/, "")))];
  return unknownNames(only, (o) => ids.some((id) => onlyMatches(id, [o])), [...prefixes, ...ids], "--only names no rule id or prefix");
}

/** The known names nearest to `name` (edit distance, case aside), at most three, none far off. */
export function closest(name: string, known: readonly string[]): string[] {
  const scored = known.map((k) => ({ k, d: distance(name.toUpperCase(), k.toUpperCase()) }));
  const best = Math.min(...scored.map((x) => x.d));
  if (best > Math.max(2, Math.floor(name.length / 2))) return [];
  return scored.filter((x) => x.d === best).slice(0, 3).map((x) => x.k);
}

function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** `read-only` -> `HUB_KEY_READ_ONLY`. */
export function keyVariable(role: string): string {
  return `HUB_KEY_${role.toUpperCase().replace(/-/g, "_")}`;
}

/** Bytes of one answer the suite reads at most by default. */
export const DEFAULT_MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** What a run was given (`options`) and what follows from it: defaults filled in, the seed chosen, what the flags allow. */
export interface RunSettings extends Required<Pick<ConformanceOptions, "reserve" | "maxWaitSeconds" | "settleSeconds" | "requestTimeoutMs" | "maxAnswerBytes">> {
  options: ConformanceOptions;
  baseUrl: string;
  writes: boolean;
  spend: boolean;
  staticMock: boolean;
  /** `generate` with its seed chosen. */
  generate?: { perOperation: number; seed: number; operations?: string[] };
}

export function resolve(o: ConformanceOptions): RunSettings {
  if (o.generate && !(Number.isInteger(o.generate.perOperation) && o.generate.perOperation > 0)) throw new RangeError(`generate.perOperation is a number of requests per operation, a positive integer; got ${o.generate.perOperation}`);
  if (o.generate?.seed !== undefined && !Number.isSafeInteger(o.generate.seed)) throw new RangeError(`generate.seed is an integer; got ${o.generate.seed}`);
  const unknown = o.only ? unknownRules(o.only) : undefined;
  if (unknown) throw new RangeError(unknown);
  if (o.maxAnswerBytes !== undefined && !(Number.isSafeInteger(o.maxAnswerBytes) && o.maxAnswerBytes > 0)) throw new RangeError(`maxAnswerBytes is a number of bytes, a positive integer; got ${o.maxAnswerBytes}`);
  if (o.minCoverage !== undefined && !(o.minCoverage >= 0 && o.minCoverage <= 100)) {
    throw new RangeError(`minCoverage is a percentage of the rules, 0 to 100; got ${o.minCoverage}`);
  }
  return {
    options: o,
    baseUrl: o.baseUrl.replace(/\/+$/, "").replace(/\/v1$/, ""),
    writes: Boolean(o.allowWrites || o.allowSpend),
    spend: Boolean(o.allowSpend),
    staticMock: Boolean(o.staticMock),
    ...(o.generate ? { generate: { ...o.generate, seed: o.generate.seed ?? Math.floor(Math.random() * 2 ** 31) } } : {}),
    reserve: o.reserve ?? 5,
    maxWaitSeconds: o.maxWaitSeconds ?? 120,
    settleSeconds: o.settleSeconds ?? 300,
    requestTimeoutMs: o.requestTimeoutMs ?? 30_000,
    maxAnswerBytes: o.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES,
  };
}
