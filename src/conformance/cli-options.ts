// The CLI's flags that take a value to check, as the library takes them (kept apart from
// cli.ts, which runs on import, so that they can be tested in-process). A bad value is a
// `Usage` error: one clear line and exit status 2.
import { operations } from "../contract/index.ts";
import type { ConformanceOptions } from "./options.ts";

export class Usage extends Error {}

export function num(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Usage(`--${flag} must be a non-negative number, got ${JSON.stringify(value)}`);
  return n;
}

/** `--min-coverage PERCENT`. */
export function coverageFloor(value: string | undefined): number | undefined {
  const floor = num(value, "min-coverage");
  if (floor !== undefined && floor > 100) throw new Usage(`--min-coverage is a percentage of the seed rules, 0 to 100; got ${floor}`);
  return floor;
}

/** Requests per operation with a bare `--generate`. */
export const DEFAULT_GENERATED = 100;

/** `--generate[=N]`, `--seed`, `--operations` as the library takes them. */
export function generateOption(count: string | undefined, seed: string | undefined, list: string | undefined): ConformanceOptions["generate"] {
  if (count === undefined) {
    if (seed !== undefined || list !== undefined) throw new Usage("--seed and --operations choose generated requests: give --generate too");
    return undefined;
  }
  const perOperation = count === "" ? DEFAULT_GENERATED : Number(count);
  if (!Number.isInteger(perOperation) || perOperation <= 0) throw new Usage(`--generate takes a number of requests per operation (a positive integer): --generate=${count}`);
  const parsedSeed = seed === undefined ? undefined : Number(seed);
  if (parsedSeed !== undefined && !Number.isSafeInteger(parsedSeed)) throw new Usage(`--seed takes an integer, got ${JSON.stringify(seed)}`);
  const operationIds = list?.split(",").map((x) => x.trim()).filter(Boolean);
  const unknown = operationIds?.filter((id) => !operations().some((o) => o.operationId === id)) ?? [];
  if (unknown.length > 0) throw new Usage(`--operations names no operation of the contract: ${unknown.join(", ")}`);
  return { perOperation, ...(parsedSeed !== undefined ? { seed: parsedSeed } : {}), ...(operationIds ? { operations: operationIds } : {}) };
}

/** A bare `--generate` (no value) is `--generate=` for parseArgs, which needs one. */
export function withGenerateValue(argv: string[]): string[] {
  return argv.map((a) => (a === "--generate" ? "--generate=" : a));
}
