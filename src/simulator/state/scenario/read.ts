// Reading a scenario: the file's JSON Schema (scenarios/scenario.schema.json, with its
// defaults filled in), then what a schema cannot say (references between records, unique
// ids, ledgers that add up, times within reach). Every fault is a detail naming its field
// the way the API names fields (`accounts.2.balance_cc`); a bad scenario is a
// ScenarioError, never a crash.
import { toDetails, type Detail } from "../../../contract/validator.ts";
import { shippedScenarios } from "../../scenarios/index.ts";
import { KEY_PATTERN } from "../accounts.ts";
import { faultListDetails, tidyKindDetails } from "../faults.ts";
import { catalog } from "../fixtures/catalog.ts";
import { LEDGER_REASONS } from "../ledger.ts";
import { FOLDER_NAME_MAX, sameName } from "../library.ts";
import { LONGEST_SPAN_DAYS } from "../util.ts";
import type { Scenario, ScenarioFile } from "./format.ts";
import { scenarioValidator } from "./schema.ts";

export class ScenarioError extends Error {
  constructor(readonly details: readonly Detail[]) {
    super(details.map((d) => d.message).join("; "));
    this.name = "ScenarioError";
  }
}

function fault(field: string, reason: string, message: string): Detail {
  return { field, reason, message: `${field} ${message}` };
}

/** Validates a scenario (a parsed file); answers it with its defaults filled in, or throws ScenarioError. */
export function readScenario(value: unknown): Scenario {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ScenarioError([{ reason: "wrong_type", message: "a scenario is a JSON object" }]);
  }
  // A copy: the defaults are written into it, and the caller's object stays as it was.
  const copy = structuredClone(value);
  const validate = scenarioValidator();
  if (!validate(copy)) throw new ScenarioError(tidyKindDetails(toDetails(validate.errors)));
  const scenario = copy as Scenario;
  const details = crossChecks(scenario);
  if (details.length > 0) throw new ScenarioError(details);
  return scenario;
}

const SHIPPED = new Map<string, Scenario>();

/** The names of the scenarios shipped with the simulator, the default first. */
export const shippedNames: readonly string[] = Object.keys(shippedScenarios);

/** A shipped scenario by name (read once), or undefined. */
export function shippedScenario(name: string): Scenario | undefined {
  if (!Object.hasOwn(shippedScenarios, name)) return undefined;
  let s = SHIPPED.get(name);
  if (!s) SHIPPED.set(name, (s = deepFreeze(readScenario(shippedScenarios[name]))));
  return s;
}

/** Shared by every hub that loads it: nothing may change it. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** A scenario given by name (shipped) or as a parsed file, read; throws ScenarioError. */
export function scenarioFrom(given: string | ScenarioFile): Scenario {
  if (typeof given !== "string") return readScenario(given);
  const found = shippedScenario(given);
  if (!found) throw new ScenarioError([fault("name", "not_allowed", `names no shipped scenario: ${JSON.stringify(given)} (shipped: ${shippedNames.join(", ")})`)]);
  return found;
}

// ----------------------------------------------------------------------- cross-checks

const SPAN_SECONDS = LONGEST_SPAN_DAYS * 86_400;

/** Times within ±100 years (every time stays a writable date), integers exact. */
function numberFaults(value: unknown, path: string, out: Detail[]): void {
  if (Array.isArray(value)) value.forEach((v, i) => numberFaults(v, path ? `${path}.${i}` : String(i), out));
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) numberFaults(v, path ? `${path}.${k}` : k, out);
  else if (typeof value === "number") {
    const days = /_(in_days|days_ago)$/.test(path);
    const seconds = /(_seconds_ago|_in_seconds|after_seconds)$/.test(path);
    if (days && Math.abs(value) > LONGEST_SPAN_DAYS) out.push(fault(path, "out_of_range", `must be within ±${LONGEST_SPAN_DAYS} days`));
    else if (seconds && Math.abs(value) > SPAN_SECONDS) out.push(fault(path, "out_of_range", `must be within ±${SPAN_SECONDS} seconds (100 years)`));
    else if (Number.isInteger(value) && !Number.isSafeInteger(value)) out.push(fault(path, "out_of_range", `must be within ±${Number.MAX_SAFE_INTEGER}`));
  }
}

/** Each value of `pick` (when given) appears once in `rows`. */
function uniqueFaults<T>(rows: readonly T[], list: string, key: string, pick: (row: T) => string | undefined, out: Detail[]): void {
  const seen = new Map<string, number>();
  rows.forEach((row, i) => {
    const v = pick(row);
    if (v === undefined) return;
    const first = seen.get(v);
    if (first !== undefined) out.push(fault(`${list}.${i}.${key}`, "duplicate", `${JSON.stringify(v)} is already the ${key} of ${list}.${first}`));
    else seen.set(v, i);
  });
}

function crossChecks(s: Scenario): Detail[] {
  const out: Detail[] = [];
  numberFaults(s, "", out);
  const accounts = new Map(s.accounts.map((a) => [a.id, a]));
  const account = (field: string, id: string | undefined) => {
    if (id !== undefined && !accounts.has(id)) out.push(fault(field, "not_allowed", `names no account of the scenario: ${JSON.stringify(id)}`));
  };
  uniqueFaults(s.accounts, "accounts", "id", (a) => a.id, out);
  uniqueFaults(s.keys, "keys", "secret", (k) => k.secret, out);
  uniqueFaults(s.keys, "keys", "id", (k) => k.id, out);
  s.keys.forEach((k, i) => {
    account(`keys.${i}.account_id`, k.account_id);
    if (!KEY_PATTERN.test(k.secret)) out.push(fault(`keys.${i}.secret`, "bad_format", `must match ${KEY_PATTERN.source}`));
  });

  const models = new Map(catalog().map((m) => [m.id, m]));
  uniqueFaults(s.generations, "generations", "id", (g) => g.id, out);
  s.generations.forEach((g, i) => {
    const at = `generations.${i}`;
    account(`${at}.account_id`, g.account_id);
    const model = models.get(g.model);
    if (!model) out.push(fault(`${at}.model`, "not_allowed", `names no model of the catalog: ${JSON.stringify(g.model)}`));
    else if (g.output_count > (model.constraints.max_variants ?? 1)) out.push(fault(`${at}.output_count`, "out_of_range", `must be at most ${model.constraints.max_variants ?? 1} for ${model.id}`));
    if (g.status === "FAILED" && g.error_reason === undefined) out.push(fault(`${at}.error_reason`, "required", "is required for a FAILED generation"));
    if (g.status !== "FAILED" && g.error_reason !== undefined) out.push(fault(`${at}.error_reason`, "not_allowed", `is for a FAILED generation only (this one is ${g.status})`));
    if (g.updated_seconds_ago !== undefined && g.updated_seconds_ago > g.created_seconds_ago) out.push(fault(`${at}.updated_seconds_ago`, "out_of_range", "must not be before its creation (at most created_seconds_ago)"));
    const quotas = accounts.get(g.account_id)?.free_quotas.length ?? 0;
    if (g.free_quota_row !== null && g.free_quota_row >= quotas) out.push(fault(`${at}.free_quota_row`, "out_of_range", `names no free-quota row of ${g.account_id} (it has ${quotas})`));
  });

  if (s.ledger) {
    const generations = new Set(s.generations.map((g) => g.id));
    const sums = new Map<string, number>();
    uniqueFaults(s.ledger, "ledger", "id", (r) => r.id, out);
    s.ledger.forEach((r, i) => {
      account(`ledger.${i}.account_id`, r.account_id);
      if (r.reason !== null && !(LEDGER_REASONS as readonly string[]).includes(r.reason)) out.push(fault(`ledger.${i}.reason`, "not_allowed", `must be one of ${LEDGER_REASONS.join(", ")} or null`));
      if (r.generation_id !== null && !generations.has(r.generation_id)) out.push(fault(`ledger.${i}.generation_id`, "not_allowed", `names no generation of the scenario: ${JSON.stringify(r.generation_id)}`));
      sums.set(r.account_id, (sums.get(r.account_id) ?? 0) + r.amount_cc);
    });
    s.accounts.forEach((a, i) => {
      const sum = sums.get(a.id) ?? 0;
      if (sum !== a.balance_cc) out.push(fault(`accounts.${i}.balance_cc`, "invalid", `is ${a.balance_cc}, but the ledger rows of ${a.id} add up to ${sum}`));
    });
  }

  const { folders, assets } = s.library;
  uniqueFaults(folders, "library.folders", "id", (f) => f.id, out);
  folders.forEach((f, i) => {
    account(`library.folders.${i}.account_id`, f.account_id);
    const length = f.name.trim().length;
    if (length === 0 || length > FOLDER_NAME_MAX) out.push(fault(`library.folders.${i}.name`, "out_of_range", `must have 1 to ${FOLDER_NAME_MAX} characters besides surrounding spaces`));
    const clash = folders.findIndex((o) => o.account_id === f.account_id && sameName(o.name, f.name));
    if (clash < i) out.push(fault(`library.folders.${i}.name`, "duplicate", `is the name of library.folders.${clash} (names compare without case and surrounding spaces)`));
  });
  uniqueFaults(assets, "library.assets", "id", (a) => a.id, out);
  uniqueFaults(assets, "library.assets", "reference", (a) => a.reference, out);
  assets.forEach((a, i) => {
    const at = `library.assets.${i}`;
    account(`${at}.account_id`, a.account_id);
    if (a.folder !== null && !folders.some((f) => f.account_id === a.account_id && sameName(f.name, a.folder!))) {
      out.push(fault(`${at}.folder`, "not_allowed", `names no folder of ${a.account_id}: ${JSON.stringify(a.folder)}`));
    }
    if ((a.data_base64 === undefined) !== (a.content_type === undefined)) out.push(fault(`${at}.${a.data_base64 === undefined ? "data_base64" : "content_type"}`, "required", "is required with the other (a file's bytes and its type go together)"));
    if (a.data_base64 !== undefined && decodeBase64(a.data_base64) === undefined) out.push(fault(`${at}.data_base64`, "bad_format", "must be base64"));
  });

  uniqueFaults(s.support_messages, "support_messages", "id", (m) => m.id, out);
  s.support_messages.forEach((m, i) => account(`support_messages.${i}.account_id`, m.account_id));

  const keys = new Set(s.keys.map((k) => k.id));
  s.rate_limits.spent.forEach((w, i) => {
    const at = `rate_limits.spent.${i}`;
    const needs = w.window === "key" ? "key_id" : "account_id";
    const other = w.window === "key" ? "account_id" : "key_id";
    if (w[needs] === undefined) out.push(fault(`${at}.${needs}`, "required", `is required for a ${w.window} window`));
    if (w[other] !== undefined) out.push(fault(`${at}.${other}`, "not_allowed", `is not for a ${w.window} window`));
    if (w.key_id !== undefined && !keys.has(w.key_id)) out.push(fault(`${at}.key_id`, "not_allowed", `names no key of the scenario: ${JSON.stringify(w.key_id)}`));
    account(`${at}.account_id`, w.account_id);
  });

  uniqueFaults(s.faults, "faults", "id", (f) => f.id, out);
  out.push(...faultListDetails(s.faults, "faults"));
  return out;
}

/** Standard base64 to bytes; undefined for anything that is not base64. */
export function decodeBase64(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

export function encodeBase64(bytes: Uint8Array): string {
  let text = "";
  // In slices: one call with every byte as an argument overflows the stack on a large file.
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}
