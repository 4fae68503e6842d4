// The faults in force and the one decision per request: which fault (if any) acts on it.
// Faults that replace the answer or delay it are asked before the handler; those that
// spoil an answer (a drop after processing, a truncated body, a cut or silent stream)
// once the answer is known. A request gets at most one fault: the first in force, in the
// order they were added, whose route matches and that fires (its count and its seeded
// draw are spent only then). The pipeline carries the decision out (pipeline/faults.ts).
import type { Operation } from "../../contract/document.ts";
import { CONTROL_PREFIX, declares, FaultError, isPathRoute, isStreamKind, type Fault } from "../state/faults.ts";

/** When a fault acts: before the handler, or on its answer. */
export type FaultPhase = "before" | "answer";

/** The request a fault is asked about. */
export interface FaultTarget {
  path: string;
  /** The contract's operation; undefined for a mount (`/storage/`, `/site/`). */
  operation?: Operation;
}

/** What the handler answered, for faults that act on the answer. */
export type AnswerShape = "body" | "empty" | "stream";

/** Where a fault in force came from: the options (and flags), the scenario, the control interface. */
export type FaultOrigin = "options" | "scenario" | "control";

/** A fault in force as the control interface shows it. */
export type FaultView = Fault & { id: string; origin: FaultOrigin; remaining: number | null; fired: number };

interface Rule {
  readonly fault: Fault & { id: string };
  readonly origin: FaultOrigin;
  remaining: number | null;
  fired: number;
  readonly draw: () => number;
}

/** A small seeded generator (mulberry32): the same seed gives the same draws on every platform. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export function phaseOf(fault: Fault): FaultPhase {
  switch (fault.kind) {
    case "drop":
      return fault.after_processing ? "answer" : "before";
    case "truncate":
    case "stream_cut":
    case "stream_silent":
      return "answer";
    default:
      return "before";
  }
}

function routeMatches(route: string | undefined, target: FaultTarget): boolean {
  if (target.path.startsWith(CONTROL_PREFIX)) return false;
  if (route === undefined) return true;
  return isPathRoute(route) ? target.path.startsWith(route) : target.operation?.operationId === route;
}

/** Whether the fault's kind can act on this request (and answer): a 429 where one is declared, a stream fault on a stream. */
function kindFits(fault: Fault, target: FaultTarget, answer: AnswerShape | undefined): boolean {
  if (fault.kind === "rate_limited") return target.operation === undefined || declares(target.operation, "429");
  if (fault.kind === "truncate") return answer === "body";
  if (isStreamKind(fault.kind)) return answer === "stream";
  return true;
}

export class FaultPlan {
  #rules: Rule[] = [];
  #made = 0;

  /** How many faults are in force (none: the pipeline asks nothing). */
  get size(): number {
    return this.#rules.length;
  }

  /** Back to these faults, their counts and draws anew (the hub's reset and a scenario's load). Throws FaultError on an id given twice. */
  restart(faults: readonly { fault: Fault; origin: FaultOrigin }[]): void {
    const before = this.#rules;
    const made = this.#made;
    this.#rules = [];
    this.#made = 0;
    try {
      for (const { fault, origin } of faults) this.add([fault], origin);
    } catch (error) {
      this.#rules = before;
      this.#made = made;
      throw error;
    }
  }

  /**
   * Puts faults in force, after the others (all or none). Throws FaultError when an id is
   * already in force, naming the field `<at(index)>.id` (`id` where `at` answers "").
   */
  add(faults: readonly Fault[], origin: FaultOrigin = "control", at: (index: number) => string = String): FaultView[] {
    const taken = new Set(this.#rules.map((r) => r.fault.id));
    const clashes = faults.flatMap((f, i) => (f.id !== undefined && taken.has(f.id) ? [i] : []));
    if (clashes.length > 0) {
      const field = (i: number) => (at(i) ? `${at(i)}.id` : "id");
      throw new FaultError(clashes.map((i) => ({ field: field(i), reason: "duplicate", message: `${field(i)} ${JSON.stringify(faults[i]!.id)} is already the id of a fault in force` })));
    }
    const added = faults.map((f) => {
      let id = f.id;
      while (id === undefined || taken.has(id)) id = `flt_${++this.#made}`;
      taken.add(id);
      const rule: Rule = { fault: { ...f, id }, origin, remaining: f.count ?? null, fired: 0, draw: seeded(f.seed) };
      this.#rules.push(rule);
      return rule;
    });
    return added.map(view);
  }

  /** Takes one fault out of force; undefined when no fault has this id. */
  remove(id: string): FaultView | undefined {
    const i = this.#rules.findIndex((r) => r.fault.id === id);
    if (i < 0) return undefined;
    return view(this.#rules.splice(i, 1)[0]!);
  }

  /** Takes every fault out of force; answers how many there were. */
  clear(): number {
    const n = this.#rules.length;
    this.#rules = [];
    return n;
  }

  list(): FaultView[] {
    return this.#rules.map(view);
  }

  /** The faults a scenario captures: those not given by the options, with what remains of their counts. */
  exported(): Fault[] {
    return this.#rules
      .filter((r) => r.origin !== "options" && r.remaining !== 0)
      .map((r) => (r.remaining === null ? { ...r.fault } : { ...r.fault, count: r.remaining }));
  }

  /** The fault that acts on this request at this phase, if any; its count and draw are spent. */
  decide(phase: FaultPhase, target: FaultTarget, answer?: AnswerShape): Fault | undefined {
    for (const rule of this.#rules) {
      const f = rule.fault;
      if (rule.remaining === 0 || phaseOf(f) !== phase || !routeMatches(f.route, target) || !kindFits(f, target, answer)) continue;
      if (f.rate < 1 && rule.draw() >= f.rate) continue;
      rule.fired++;
      if (rule.remaining !== null) rule.remaining--;
      return f;
    }
    return undefined;
  }
}

function view(rule: Rule): FaultView {
  const { id, ...fault } = rule.fault; // the id first: what a listing is read by
  return { id, ...fault, origin: rule.origin, remaining: rule.remaining, fired: rule.fired } as FaultView;
}
