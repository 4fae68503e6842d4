// A fault the simulator injects on purpose (latency, error answers, a dropped connection,
// a truncated body, a cut or silent event stream), as defined once by `Fault` in
// scenarios/scenario.schema.json. Every way in reads faults here: `new Hub({ faults })`,
// `--faults`/SIM_FAULTS, POST /_sim/faults and a scenario's `faults`. A fault that is not
// valid is a FaultError whose details name each field at fault, as the API names fields.
import { operations, type Operation } from "../../contract/document.ts";
import { toDetails, type Detail } from "../../contract/validator.ts";
import { faultSchema, scenarioValidator } from "./scenario/schema.ts";

/** Which requests a fault acts on, and how often (the schema's `FaultWhen`). */
export interface FaultWhen {
  /** Left out: a new one (`flt_1`, ...). */
  id?: string;
  /** An operationId of the contract, or a path prefix starting with `/`; left out: every route but /_sim/. */
  route?: string;
  /** Probability per matching request (default 1), drawn from a generator seeded with `seed` (default 0). */
  rate?: number;
  seed?: number;
  /** Acts on this many requests, then no more; left out: no end. */
  count?: number;
}

/** A fault as written (`new Hub({ faults })`, a scenario, POST /_sim/faults). */
export type FaultSpec = FaultWhen &
  (
    | { kind: "latency"; latency_ms: number }
    | { kind: "internal_error" | "service_unavailable" }
    | { kind: "rate_limited"; retry_after_seconds: number }
    | { kind: "drop"; after_processing?: boolean }
    | { kind: "truncate"; sent_bytes?: number }
    | { kind: "stream_cut" | "stream_silent"; after_frames?: number }
  );

export type FaultKind = FaultSpec["kind"];

/** A fault once read: its defaults filled in. */
export type Fault = FaultSpec & { rate: number; seed: number };

/** The kinds, in the schema's order (its one list). */
export const FAULT_KINDS: readonly FaultKind[] = faultSchema.oneOf.map((branch) => branch.properties.kind.const as FaultKind);

export class FaultError extends Error {
  constructor(readonly details: readonly Detail[]) {
    super(details.map((d) => d.message).join("; "));
    this.name = "FaultError";
  }
}

/** True for a path prefix (`/storage/`), false for an operationId. */
export function isPathRoute(route: string): boolean {
  return route.startsWith("/");
}

/** The control interface is never faulted: a fault can always be cleared. */
export const CONTROL_PREFIX = "/_sim/";

/** Whether an operation declares this status among its answers (a 429 fault needs one). */
export function declares(operation: Operation, status: string): boolean {
  return Object.hasOwn((operation.op.responses ?? {}) as object, status);
}

/** Whether an operation's success is an event stream (where the stream faults act). */
export function answersEventStream(operation: Operation): boolean {
  const ok = (operation.op.responses as Record<string, { content?: object }> | undefined)?.["200"];
  return ok?.content !== undefined && "text/event-stream" in ok.content;
}

const STREAM_KINDS: ReadonlySet<FaultKind> = new Set(["stream_cut", "stream_silent"]);

export function isStreamKind(kind: FaultKind): boolean {
  return STREAM_KINDS.has(kind);
}

/** `prefix.field`, for a fault inside a list (`faults.2.kind`); the field alone without one. */
function under(prefix: string, detail: Detail): Detail {
  if (!prefix) return detail;
  const field = detail.field ? `${prefix}.${detail.field}` : prefix;
  const message = detail.field && detail.message.startsWith(detail.field) ? `${prefix}.${detail.message}` : `${prefix}: ${detail.message}`;
  return { ...detail, field, message };
}

function problem(field: string, reason: string, message: string): Detail {
  return { field, reason, message: `${field} ${message}` };
}

/**
 * The schema's discriminator words an unknown or missing `kind` as a "tag" of the fault;
 * these are said again as the API says them (`kind` is one of ...), once per fault.
 */
export function tidyKindDetails(details: readonly Detail[]): Detail[] {
  const out: Detail[] = [];
  for (const d of details) {
    if (!/tag "kind"/.test(d.message)) {
      out.push(d);
      continue;
    }
    const field = d.field ? `${d.field}.kind` : "kind";
    if (details.some((o) => o.field === field)) continue; // `kind is required` says it already
    out.push(problem(field, "not_allowed", `must be one of ${FAULT_KINDS.join(", ")}`));
  }
  return out;
}

/** What the schema cannot say: the route names an operation (or is a path prefix) the kind can act on. */
function routeDetails(fault: Fault): Detail[] {
  const route = fault.route;
  if (route === undefined) return [];
  if (isPathRoute(route)) {
    if (route.startsWith(CONTROL_PREFIX) || CONTROL_PREFIX.startsWith(route)) {
      return [problem("route", "not_allowed", `must not reach the control interface (${CONTROL_PREFIX}): faults there could not be cleared`)];
    }
    return [];
  }
  const operation = operations().find((o) => o.operationId === route);
  if (!operation) return [problem("route", "not_allowed", `names no operation of the contract: ${JSON.stringify(route)} (a path prefix starts with /)`)];
  if (fault.kind === "rate_limited" && !declares(operation, "429")) return [problem("route", "not_allowed", `names ${route}, which declares no 429 answer`)];
  const streams = answersEventStream(operation);
  if (isStreamKind(fault.kind) && !streams) return [problem("route", "not_allowed", `names ${route}, which answers no event stream (${fault.kind} acts on streams)`)];
  if (fault.kind === "truncate" && streams) return [problem("route", "not_allowed", `names ${route}, an event stream, which has no length to truncate (use stream_cut)`)];
  return [];
}

/** Details of one fault at `prefix` (`""`, `faults.0`), or the fault with its defaults. */
function readOne(value: unknown, prefix: string): Fault | Detail[] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return [under(prefix, { reason: "wrong_type", message: "a fault is a JSON object" })];
  }
  const copy = structuredClone(value);
  const validate = scenarioValidator("Fault");
  if (!validate(copy)) return tidyKindDetails(toDetails(validate.errors)).map((d) => under(prefix, d));
  const fault = copy as Fault;
  const details = routeDetails(fault);
  return details.length > 0 ? details.map((d) => under(prefix, d)) : fault;
}

/** Checks the faults of a scenario already read by the schema (its `faults`). */
export function faultListDetails(faults: readonly Fault[], prefix: string): Detail[] {
  return faults.flatMap((f, i) => routeDetails(f).map((d) => under(`${prefix}.${i}`, d)));
}

/**
 * Reads faults: one (`prefix` names its fields, `""` for none) or a list (each at
 * `prefix.<index>`). Throws FaultError naming every field at fault.
 */
export function readFaults(value: unknown, prefix = ""): Fault[] {
  const list = Array.isArray(value) ? value : [value];
  const at = (i: number) => (Array.isArray(value) ? (prefix ? `${prefix}.${i}` : String(i)) : prefix);
  const faults: Fault[] = [];
  const details: Detail[] = [];
  const ids = new Map<string, number>();
  list.forEach((v, i) => {
    const read = readOne(v, at(i));
    if (Array.isArray(read)) return void details.push(...read);
    faults.push(read);
    if (read.id === undefined) return;
    const first = ids.get(read.id);
    if (first === undefined) ids.set(read.id, i);
    else details.push(under(at(i), problem("id", "duplicate", `${JSON.stringify(read.id)} is already the id of fault ${at(first)}`)));
  });
  if (details.length > 0) throw new FaultError(details);
  return faults;
}
