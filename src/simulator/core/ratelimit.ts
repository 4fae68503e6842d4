// Request windows (seed, Limits: Request rate). Two fixed windows of equal length on
// the simulator's clock: `default` per key and `account` shared by the account's keys.
// The binding window is reported in RateLimit / RateLimit-Policy: while both suffice,
// the one with the smaller remainder; a refusing window describes itself. A refusal
// by the account ceiling consumes nothing, so the key's window is not spent.
import type { SimClock } from "./clock.ts";

export interface RateLimitConfig {
  windowSeconds: number;
  /** Requests per window for one key (`default`). */
  keyQuota: number;
  /** Requests per window for the whole account (`account`). */
  accountQuota: number;
  /** Accepted submits per window for the whole account (reason `submit_rate`). */
  submitQuota: number;
  /** Generations in progress at once per account (reason `concurrency`). */
  concurrency: number;
}

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
  window: number;
  count: number;
}

export class RateLimiter {
  #counters = new Map<string, Counter>();

  constructor(
    private readonly clock: SimClock,
    public config: RateLimitConfig,
  ) {}

  reset(): void {
    this.#counters.clear();
  }

  get windowMs(): number {
    return this.config.windowSeconds * 1000;
  }

  /** Spends one request of both windows, or refuses without spending. */
  take(keyId: string, accountId: string): LimitResult {
    const now = this.clock.now();
    const index = Math.floor(now / this.windowMs);
    const reset = Math.max(1, Math.ceil(((index + 1) * this.windowMs - now) / 1000));
    const window = this.config.windowSeconds;
    const account = this.#counter(`a:${accountId}`, index);
    const key = this.#counter(`k:${keyId}`, index);
    const accountQuota = this.config.accountQuota;
    const keyQuota = this.config.keyQuota;
    if (account.count >= accountQuota) {
      return { ok: false, binding: { policy: "account", quota: accountQuota, remaining: 0, reset, window } };
    }
    if (key.count >= keyQuota) {
      return { ok: false, binding: { policy: "default", quota: keyQuota, remaining: 0, reset, window } };
    }
    account.count++;
    key.count++;
    const keyLeft = keyQuota - key.count;
    const accountLeft = accountQuota - account.count;
    const binding: WindowState = accountLeft < keyLeft
      ? { policy: "account", quota: accountQuota, remaining: accountLeft, reset, window }
      : { policy: "default", quota: keyQuota, remaining: keyLeft, reset, window };
    return { ok: true, binding };
  }

  /** The account's submit window: spends one accepted submit, or says how long to wait. */
  takeSubmit(accountId: string, spend: boolean): { ok: true } | { ok: false; current: number; reset: number } {
    const now = this.clock.now();
    const index = Math.floor(now / this.windowMs);
    const counter = this.#counter(`s:${accountId}`, index);
    if (counter.count >= this.config.submitQuota) {
      return { ok: false, current: counter.count, reset: Math.max(1, Math.ceil(((index + 1) * this.windowMs - now) / 1000)) };
    }
    if (spend) counter.count++;
    return { ok: true };
  }

  submitsUsed(accountId: string): number {
    const index = Math.floor(this.clock.now() / this.windowMs);
    return this.#counter(`s:${accountId}`, index).count;
  }

  #counter(name: string, index: number): Counter {
    let c = this.#counters.get(name);
    if (!c) {
      c = { window: index, count: 0 };
      this.#counters.set(name, c);
    } else if (c.window !== index) {
      c.window = index;
      c.count = 0;
    }
    return c;
  }
}

export function rateLimitHeaders(w: WindowState): Record<string, string> {
  return {
    ratelimit: `"${w.policy}";r=${w.remaining};t=${w.reset}`,
    "ratelimit-policy": `"${w.policy}";q=${w.quota};w=${w.window}`,
  };
}
