// How much a run covered: the seed rules it exercised (a verdict other than n/a), held to
// an optional floor, and for every operation of the contract the statuses it declares
// against the answers the run saw.
import { operations } from "../../contract/index.ts";
import type { RuleRow } from "../judge/results.ts";

export interface RuleCoverage {
  /** Rules with a verdict (pass or fail). */
  exercised: number;
  total: number;
  /** `exercised / total` in percent, unrounded. */
  percent: number;
  /** The floor asked for (`--min-coverage`), in percent. */
  floor?: number;
  /** False when a floor was asked for and the run stayed under it. */
  met: boolean;
}

export interface OperationStatuses {
  operationId: string;
  method: string;
  path: string;
  /** Each status key the contract declares (`200`, `4XX`, `2XX`, `default`) with the answers seen under it. */
  declared: Record<string, number>;
  /** Statuses seen that the contract does not declare for the operation. */
  undeclared: Record<string, number>;
}

export interface StatusCoverage {
  operations: OperationStatuses[];
  /** Declared (operation, status) pairs, and how many of them the run saw at least once. */
  declared: number;
  observed: number;
}

export interface Coverage {
  rules: RuleCoverage;
  statuses: StatusCoverage;
}

export function ruleCoverage(rows: readonly RuleRow[], floor?: number): RuleCoverage {
  const exercised = rows.filter((r) => r.verdict !== "n/a").length;
  const percent = rows.length === 0 ? 0 : (exercised / rows.length) * 100;
  return { exercised, total: rows.length, percent, ...(floor !== undefined ? { floor } : {}), met: floor === undefined || percent >= floor };
}

/** The declared key an observed status falls under, in the contract's order of precedence. */
function declaredKey(keys: readonly string[], status: number): string | undefined {
  return [String(status), `${String(status)[0]}XX`, "default"].find((k) => keys.includes(k));
}

/** `seen`: operationId -> status -> number of answers. */
export function statusCoverage(seen: ReadonlyMap<string, ReadonlyMap<number, number>>): StatusCoverage {
  let declaredPairs = 0;
  let observedPairs = 0;
  const list = operations().map((op) => {
    const keys = Object.keys(op.op.responses as object);
    const declared: Record<string, number> = Object.fromEntries(keys.map((k) => [k, 0]));
    const undeclared: Record<string, number> = {};
    for (const [status, n] of seen.get(op.operationId) ?? []) {
      const key = declaredKey(keys, status);
      if (key) declared[key]! += n;
      else undeclared[String(status)] = (undeclared[String(status)] ?? 0) + n;
    }
    declaredPairs += keys.length;
    observedPairs += keys.filter((k) => declared[k]! > 0).length;
    return { operationId: op.operationId, method: op.method.toUpperCase(), path: op.path, declared, undeclared };
  });
  return { operations: list, declared: declaredPairs, observed: observedPairs };
}

export function percentText(percent: number): string {
  return `${Math.round(percent)}%`;
}

/** The rule-coverage clause of the headline: `75 of 161 rules exercised, 47%`. */
export function ruleCoverageText(c: RuleCoverage): string {
  return `${c.exercised} of ${c.total} rules exercised, ${percentText(c.percent)}`;
}

/** Why the run fails its floor, or undefined. */
export function floorShortfall(c: RuleCoverage): string | undefined {
  if (c.met || c.floor === undefined) return undefined;
  return `coverage ${c.percent.toFixed(1)}% (${c.exercised} of ${c.total} rules exercised) is under --min-coverage ${c.floor}%`;
}

/** One line per operation: `readWhoami  GET /v1/whoami  200:12 401:9 413:- ... | not declared 404:1`. */
export function renderStatusTable(s: StatusCoverage): string[] {
  const idWidth = Math.max(...s.operations.map((o) => o.operationId.length));
  const routeWidth = Math.max(...s.operations.map((o) => o.method.length + 1 + o.path.length));
  const out = [`Statuses by operation (declared in the contract: answers seen, - none; then statuses seen but not declared): ${s.observed} of ${s.declared} declared statuses seen`];
  for (const o of s.operations) {
    const declared = Object.entries(o.declared).map(([k, n]) => `${k}:${n > 0 ? n : "-"}`).join(" ");
    const undeclared = Object.entries(o.undeclared).map(([k, n]) => `${k}:${n}`).join(" ");
    out.push(`  ${o.operationId.padEnd(idWidth)}  ${`${o.method} ${o.path}`.padEnd(routeWidth)}  ${declared}${undeclared ? `  | not declared ${undeclared}` : ""}`);
  }
  return out;
}
