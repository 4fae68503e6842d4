// Generations as the hub keeps them: the record's data, the simulator's plan for its
// life, the idempotency store's entries and the reports made about it.
import type { Scheduled } from "./clock.ts";

/** One scheduled move of a generation (the simulator's plan for its life). */
export interface Step {
  afterMs: number;
  status: string;
  reason?: string;
  /** A late provider result: FAILED turns into DONE. */
  late?: boolean;
}

export interface Generation {
  id: string;
  account_id: string;
  key_id: string;
  type: string;
  model: string;
  prompt: string;
  title: string;
  status: string;
  created_at: number;
  updated_at: number;
  error_reason: string | null;
  refunded: boolean;
  charged_cc: number;
  /** Index of the free-quota row this generation used, or -1. */
  free_quota: number;
  output_kind: "image" | "video" | "model";
  output_count: number;
  deleted: boolean;
  steps: Step[];
  pending: Scheduled | null;
  /** Simulated time of the next planned move, or null. */
  next_at: number | null;
  /** The record as JSON for one base address; dropped on every change. */
  cache: { base: string; text: string } | null;
  /** The `Idempotency-Key` it was submitted with (forgotten with it); null for a scenario's. */
  idempotency_key: string | null;
}

/**
 * A scenario export under way (state/scenario/export.ts): told before a generation
 * changes or is dropped, so it writes the generation as it was when the export began.
 */
export interface GenerationCapture {
  keep(gen: Generation): void;
}

export interface IdempotencyEntry {
  /** The accepted body as received (JSON text). */
  body: string;
  generation_id: string;
  /** When the key was accepted: it is remembered for `retention.idempotencySeconds` from then. */
  created_at: number;
}

export interface ReportRecord {
  account_id: string;
  generation_id: string;
  client_msg_id: string | null;
  text: string;
  reason: string;
  support_request_id: string;
  message_id: string;
  created_at: number;
}
