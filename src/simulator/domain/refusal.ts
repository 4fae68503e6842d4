// Refusals and the error envelope. The English `message` defaults to the meaning of
// the code in the seed's error table (read from the contract); `user_message` is
// Russian only for `Accept-Language: ru` where a translation exists.
import { errorCodes, statusOf } from "../../contract/tables.ts";
import type { Detail as FieldDetail } from "../../contract/validator.ts";
import { russian } from "./messages-ru.ts";

export type Lang = "en" | "ru";

/** A detail of the envelope; rate-limit refusals refine it with `scope`, `limit`, `current`. */
export type Detail = FieldDetail & { scope?: string; limit?: number; current?: number };

export interface RefusalOptions {
  message?: string;
  details?: Detail[];
  /** Seconds for `Retry-After` (required by the contract on every 429). */
  retryAfter?: number;
  /** Adds `error.retry_after_seconds` (minute windows of `rate_limited`). */
  retryAfterInBody?: boolean;
  headers?: Record<string, string>;
}

/**
 * Returned by handlers (never thrown: anything thrown answers 500 `internal_error`); the
 * pipeline turns it into an envelope answer.
 */
export class Refusal {
  readonly status: number;
  constructor(
    readonly code: string,
    readonly options: RefusalOptions = {},
  ) {
    this.status = statusOf(code);
  }
}

export function refuse(code: string, options?: RefusalOptions): Refusal {
  return new Refusal(code, options);
}

export function envelope(refusal: Refusal, requestId: string, lang: Lang): { error: Record<string, unknown> } {
  const message = refusal.options.message ?? errorCodes.get(refusal.code)?.meaning ?? refusal.code;
  const error: Record<string, unknown> = {
    code: refusal.code,
    message,
    user_message: (lang === "ru" && russian[refusal.code]) || message,
    request_id: requestId,
  };
  if (refusal.options.details && refusal.options.details.length > 0) error.details = refusal.options.details;
  if (refusal.options.retryAfterInBody && refusal.options.retryAfter !== undefined) {
    error.retry_after_seconds = refusal.options.retryAfter;
  }
  return { error };
}

/** `ru` when the most preferred language of `Accept-Language` is Russian. */
export function languageOf(header: string | undefined): Lang {
  if (!header) return "en";
  let best = "";
  let bestQ = -1;
  for (const part of header.split(",", 20)) {
    const [tag, ...params] = part.trim().split(";");
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p);
      if (m) q = Number(m[1]);
    }
    if (tag && q > bestQ) {
      best = tag.toLowerCase();
      bestQ = q;
    }
  }
  return best === "ru" || best.startsWith("ru-") ? "ru" : "en";
}
