// Request windows (seed, Limits: Request rate). Two fixed windows of equal length on
// the simulator's clock: `default` per key and `account` shared by the account's keys.
// A window starts at its first request (so `t` is predictable in tests and demos).
// The binding window is reported in RateLimit / RateLimit-Policy: while both suffice,
// the one with the smaller remainder; a refusing window describes itself. A refusal
// by the account ceiling consumes nothing, so the key's window is not spent.
import type { SimClock } from "../state/clock.ts";
import { refuse, type Refusal } from "./refusal.ts";
import type { RateLimitConfig, SpentWindow } from "../state/options.ts";

export type { RateLimitConfig, SpentWindow } from "../state/options.ts";

export interface WindowState {
  policy: "default" | "account";
  quota: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
  /** Window length in seconds. */
  window: number;
}

export type LimitResult = { ok: true; binding: WindowState } | { ok: false; binding: WindowState };

interface Counter {
  /** Simulated time of the window's first request. */
  start: number;
  count: number;
}

const SUBMIT_OK = { ok: true } as const;

export class RateLimiter {
  // One map per kind of window, keyed by the id itself (no key string built per request).
  #accounts = new Map<string, Counter>();
  #keys = new Map<string, Counter>();
  #submits = new Map<string, Counter>();
  #single = new Map<string, Counter>();

  constructor(
    private readonly clock: SimClock,
    public config: RateLimitConfig,
  ) {}

  reset(): void {
    this.#accounts.clear();
    this.#keys.clear();
    this.#submits.clear();
    this.#single.clear();
  }

  /** Windows already under way (a scenario's): the next request counts on from `used`. */
  restore(windows: readonly SpentWindow[]): void {
    for (const w of windows) this.#kind(w.window).set(w.id, { start: w.start, count: w.used });
  }

  /** The key, account and submit windows still under way, with what they have counted. */
  spent(): SpentWindow[] {
    const now = this.clock.now();
    const out: SpentWindow[] = [];
    for (const window of ["key", "account", "submit"] as const) {
      for (const [id, c] of this.#kind(window)) if (c.count > 0 && now < c.start + this.windowMs) out.push({ window, id, used: c.count, start: c.start });
    }
    return out;
  }

  #kind(window: SpentWindow["window"]): Map<string, Counter> {
    return window === "key" ? this.#keys : window === "account" ? this.#accounts : this.#submits;
  }

  get windowMs(): number {
    return this.config.windowSeconds * 1000;
  }

  /** Spends one request of both windows, or refuses without spending. */
  take(keyId: string, accountId: string): LimitResult {
    const now = this.clock.now();
    const account = this.#counter(this.#accounts, accountId, now);
    const key = this.#counter(this.#keys, keyId, now);
    const { accountQuota, keyQuota } = this.config;
    if (account.count >= accountQuota) return { ok: false, binding: this.#state("account", account, accountQuota, now) };
    if (key.count >= keyQuota) return { ok: false, binding: this.#state("default", key, keyQuota, now) };
    account.count++;
    key.count++;
    const binding = accountQuota - account.count < keyQuota - key.count
      ? this.#state("account", account, accountQuota, now)
      : this.#state("default", key, keyQuota, now);
    return { ok: true, binding };
  }

  /**
   * A credential with one window and no second counter (the site session cookie: one
   * account-owned window, the account ceiling of the keys does not apply).
   */
  takeSingle(counter: string, policy: "default" | "account", quota: number): LimitResult {
    const now = this.clock.now();
    const c = this.#counter(this.#single, counter, now);
    if (c.count >= quota) return { ok: false, binding: this.#state(policy, c, quota, now) };
    c.count++;
    return { ok: true, binding: this.#state(policy, c, quota, now) };
  }

  #state(policy: "default" | "account", c: Counter, quota: number, now: number): WindowState {
    return { policy, quota, remaining: Math.max(0, quota - c.count), reset: this.#resetOf(c, now), window: this.config.windowSeconds };
  }

  /** The account's submit window: spends one accepted submit, or says how long to wait. */
  takeSubmit(accountId: string, spend: boolean): { ok: true } | { ok: false; current: number; reset: number } {
    const now = this.clock.now();
    const counter = this.#counter(this.#submits, accountId, now);
    if (counter.count >= this.config.submitQuota) return { ok: false, current: counter.count, reset: this.#resetOf(counter, now) };
    if (spend) counter.count++;
    return SUBMIT_OK;
  }

  submitsUsed(accountId: string): number {
    return this.#counter(this.#submits, accountId, this.clock.now()).count;
  }

  #resetOf(c: Counter, now: number): number {
    return Math.max(1, Math.ceil((c.start + this.windowMs - now) / 1000));
  }

  #counter(counters: Map<string, Counter>, name: string, now: number): Counter {
    let c = counters.get(name);
    if (!c) {
      c = { start: now, count: 0 };
      counters.set(name, c);
    } else if (now >= c.start + this.windowMs) {
      c.start = now;
      c.count = 0;
    }
    return c;
  }
}

/** 429 `rate_limited` of an exhausted request window, which describes itself (seed, Limits). */
export function requestRateRefusal(w: WindowState): Refusal {
  return refuse("rate_limited", {
    message: `Too many requests: the ${w.policy} window allows ${w.quota} requests per ${w.window} s.`,
    details: [{ reason: "request_rate", message: `${w.policy} window exhausted`, scope: w.policy, limit: w.quota, current: w.quota }],
    retryAfter: w.reset,
    retryAfterInBody: true,
  });
}
