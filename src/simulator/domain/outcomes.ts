// Deterministic, selectable outcomes. A frontend developer picks one with a marker in
// the prompt (no control API needed); tests can also force one through /_sim/.
//
//   [sim:fail]            FAILED with error.reason provider_error
//   [sim:fail=timeout]    FAILED with that reason (any FailureReason value)
//   [sim:hold]            held for review (MODERATION_PENDING), then DONE
//   [sim:hold=block]      held for review, then FAILED with moderation_block
//   [sim:slow]            stays RUNNING for the slow duration, then DONE
//   [sim:late]            FAILED (provider_error), then a late result turns it DONE (refunded)
//   [sim:late=timeout]    the same with another failure reason
//   [sim:blocked]         the submit itself is refused: 403 moderation_blocked
// Without a marker a generation goes QUEUED, PENDING, RUNNING, DONE.
import type { Step } from "../state/generations.ts";
import type { Timing } from "../state/options.ts";
import { entryOf, newMap } from "../state/util.ts";

export type Outcome =
  | { kind: "done" }
  | { kind: "fail"; reason: string }
  | { kind: "hold"; block: boolean }
  | { kind: "slow" }
  | { kind: "late"; reason: string };

export const FAILURE_REASONS = ["provider_error", "moderation_block", "timeout", "no_content", "invalid_input", "unknown"] as const;

const MARKER = /\[sim:([a-z_]+)(?:=([a-z_]+))?\]/g;

export interface Markers {
  outcome: Outcome;
  /** `[sim:blocked]`: the submit is refused by content moderation. */
  blocked: boolean;
}

// Most prompts carry no marker: one shared (frozen) answer for them.
const NO_MARKERS: Markers = Object.freeze({ outcome: Object.freeze({ kind: "done" }), blocked: false });

export function parseMarkers(prompt: unknown): Markers {
  if (typeof prompt !== "string" || !prompt.includes("[sim:")) return NO_MARKERS;
  let outcome: Outcome = { kind: "done" };
  let blocked = false;
  for (const m of prompt.matchAll(MARKER)) {
    const parsed = outcomeOf(m[1]!, m[2]);
    if (parsed === "blocked") blocked = true;
    else if (parsed) outcome = parsed;
  }
  return { outcome, blocked };
}

/** Reads an outcome name as the markers and the control interface spell it. */
export function outcomeOf(name: string, value?: string): Outcome | "blocked" | undefined {
  const reason = value && (FAILURE_REASONS as readonly string[]).includes(value) ? value : undefined;
  switch (name) {
    case "done":
      return { kind: "done" };
    case "fail":
      return { kind: "fail", reason: reason ?? "provider_error" };
    case "hold":
      return { kind: "hold", block: value === "block" };
    case "slow":
      return { kind: "slow" };
    case "late":
      return { kind: "late", reason: reason ?? "provider_error" };
    case "blocked":
      return "blocked";
    default:
      return undefined;
  }
}

/** The whole life of a generation for an outcome, as moves after the previous one. */
function lifeOf(outcome: Outcome, type: string, t: Timing): Step[] {
  const running = t.runningMs[type] ?? 3_000;
  const start: Step[] = [
    { status: "QUEUED", afterMs: 0 },
    { status: "PENDING", afterMs: t.queuedMs },
    { status: "RUNNING", afterMs: t.pendingMs },
  ];
  switch (outcome.kind) {
    case "done":
      return [...start, { status: "DONE", afterMs: running }];
    case "slow":
      return [...start, { status: "DONE", afterMs: t.slowMs }];
    case "fail":
      return [...start, { status: "FAILED", reason: outcome.reason, afterMs: running }];
    case "hold":
      return [
        ...start,
        { status: "MODERATION_PENDING", afterMs: Math.ceil(running / 2) },
        outcome.block ? { status: "FAILED", reason: "moderation_block", afterMs: t.holdMs } : { status: "DONE", afterMs: t.holdMs },
      ];
    case "late":
      return [
        ...start,
        { status: "FAILED", reason: outcome.reason, afterMs: running },
        { status: "DONE", late: true, afterMs: t.lateMs },
      ];
  }
}

// The life without a marker, shared by every such generation (made on each submit otherwise).
// Steps are never changed in place (a generation's plan is replaced, not edited), so the
// cached ones are frozen; an entry is remade if the timing it was made from has changed.
// The array itself is not frozen (copying a frozen array takes V8's slow path) and never
// leaves this module: callers get slices.
interface CachedLife {
  queuedMs: number;
  pendingMs: number;
  runningMs: number | undefined;
  life: readonly Step[];
}
const plainLives = new WeakMap<Timing, Map<string, CachedLife>>();

function plainLife(type: string, t: Timing): readonly Step[] {
  const byType = entryOf(plainLives, t, newMap<string, CachedLife>);
  const cached = byType.get(type);
  const runningMs = t.runningMs[type];
  if (cached && cached.queuedMs === t.queuedMs && cached.pendingMs === t.pendingMs && cached.runningMs === runningMs) return cached.life;
  const life = lifeOf({ kind: "done" }, type, t).map((step) => Object.freeze(step));
  byType.set(type, { queuedMs: t.queuedMs, pendingMs: t.pendingMs, runningMs, life });
  return life;
}

/**
 * The moves left for a generation now at `status` under `outcome`. A generation past
 * the point where the outcome would diverge takes the outcome's ending from here.
 */
export function stepsFrom(status: string, outcome: Outcome, type: string, t: Timing): Step[] | undefined {
  const life = outcome.kind === "done" ? plainLife(type, t) : lifeOf(outcome, type, t);
  let at = -1;
  for (let i = 0; i < life.length; i++) {
    if (life[i]!.status === status) {
      at = i;
      break;
    }
  }
  if (at >= 0 && !(status === "FAILED" && outcome.kind !== "late")) return life.slice(at + 1);
  switch (status) {
    case "MODERATION_PENDING":
      // Held for review: only the review's verdict is left.
      if (outcome.kind === "fail") return [{ status: "FAILED", reason: outcome.reason, afterMs: t.holdMs }];
      if (outcome.kind === "hold" && outcome.block) return [{ status: "FAILED", reason: "moderation_block", afterMs: t.holdMs }];
      if (outcome.kind === "late") return [{ status: "FAILED", reason: outcome.reason, afterMs: t.holdMs }, { status: "DONE", late: true, afterMs: t.lateMs }];
      return [{ status: "DONE", afterMs: t.holdMs }];
    case "FAILED":
      // Only a late result can change a failed attempt.
      if (outcome.kind === "done" || outcome.kind === "late") return [{ status: "DONE", late: true, afterMs: outcome.kind === "done" ? 0 : t.lateMs }];
      return undefined;
    default:
      return undefined;
  }
}
