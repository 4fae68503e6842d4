// Sends the generated cases, judges each answer by this API's rules, shrinks every
// distinct finding to a smallest request that still shows it (one field, parameter or
// header left out at a time, each step confirmed by the contract's validator and by the
// server), and charges it to its seed rule with the case, the seed to replay it, and the
// smallest request's curl line (through the exchange it cites).
import { errorCodes, type Json } from "../../../contract/index.ts";
import type { OperationRun } from "../../facts/generated.ts";
import { AnswerTooLarge, NoAnswer } from "../../target/stops.ts";
import { caseKey, rawBody, sizeOf, type Case } from "../../kit/generate/cases.ts";
import { ruleOf, SCHEMA_REASONS, type Plan } from "../../kit/generate/plans.ts";
import { placed, schemaAt, states, type Path } from "../../kit/generate/schema.ts";
import { errorCodeOf, operationLabel, said, type Cited, type Exchange } from "../../target/exchange.ts";
import { type CheckContext } from "../../facts/check.ts";

/** A departure of one answer from what the generated input must get. */
export interface Finding {
  rule: string;
  /** What kind of departure (5xx, accepted, wrong code, missing detail, refused valid): with the rule, what makes two findings the same. */
  category: string;
  /** The field concerned (indices as `*`), part of the identity too. */
  field: string;
  /** The fault of an invalid input (`above_maximum`), part of the identity too. */
  kind?: string;
  message: string;
}

/** Most requests spent shrinking one finding. */
const SHRINK_BUDGET = 40;
/** Requests in a row without an answer after which an operation's remaining cases are not sent. */
const NO_ANSWER_LIMIT = 2;

export interface Replay {
  seed: number;
  perOperation: number;
}

let keySeq = 0;

/**
 * Sends one case (a fresh Idempotency-Key each time: a key sent again with another body is
 * a conflict), with the main key unless `as` names another credential.
 */
export async function send(c: CheckContext, plan: Plan, kase: Case, replay: Replay, as: { key?: string; label?: string } = {}): Promise<Exchange> {
  const op = plan.operation;
  const query = kase.query.length > 0 ? `?${new URLSearchParams(kase.query).toString()}` : "";
  const headers: Record<string, string> = { ...kase.headers };
  if (kase.idempotency) headers["idempotency-key"] = `conformance-gen-${replay.seed}-${op.operationId}-${kase.index}-${++keySeq}`;
  const raw = rawBody(kase);
  if (raw) headers["content-type"] = raw.contentType;
  const rule = kase.fault?.rule ?? kase.validRule;
  const ex = await c.request({ method: op.method.toUpperCase(), path: kase.path + query, headers, ...(raw ? { raw: raw.text } : {}), rule, ...as });
  if (kase.kind === "invalid") c.target.deliberate(ex);
  await plan.after?.(c, { ...(kase.body !== undefined ? { body: kase.body } : {}), status: ex.status });
  return ex;
}

function detailsOf(ex: Exchange): { field?: string; reason?: string }[] {
  const d = ex.json?.error?.details;
  return Array.isArray(d) ? d.filter((x: unknown) => x && typeof x === "object") : [];
}

function shown(details: { field?: string; reason?: string }[]): string {
  return details.length === 0 ? "no details" : `details ${details.map((d) => `${d.field ?? "(no field)"} ${d.reason ?? "(no reason)"}`).join(", ")}`;
}

const star = (field: string) => field.replace(/\.\d+(?=\.|$)/g, ".*");

/**
 * A 5xx the input did not cause: a 503 whose code the error table gives 503 (a type not
 * submitted, an upload kind not signed, the API switched off or busy) is the API's own
 * answer to a valid request, not a crash.
 */
function declared503(ex: Exchange): boolean {
  const code = errorCodeOf(ex.json);
  return ex.status === 503 && code !== undefined && errorCodes.get(code)?.status === 503;
}

/** What a valid input must not get: a 5xx, or a refusal for a schema reason (or paging's codes). */
function judgeValid(c: CheckContext, plan: Plan, kase: Case, ex: Exchange): Finding | undefined {
  const what = kase.body !== undefined ? `a ${kase.variant ?? "body"} valid against the contract` : "a request valid against the contract";
  if (ex.status >= 500 && !declared503(ex)) return { rule: kase.validRule, category: "5xx", field: "", message: `${what} answered ${said(ex)}` };
  if (ex.status !== 400) return undefined;
  const code = errorCodeOf(ex.json);
  if (code === "invalid_limit" || code === "invalid_cursor") {
    const param = code === "invalid_limit" ? "limit" : "cursor";
    const value = kase.query.find(([k]) => k === param)?.[1];
    return { rule: ruleOf(plan, param, kase.validRule), category: `refused ${code}`, field: param, message: `${value === undefined ? `without ${param}` : `${param}=${JSON.stringify(value)}`}, valid against the contract, answered ${said(ex)}` };
  }
  // A bound, set or format the contract does not state (the seed leaves it to the server:
  // a folder name's length, a position within the account's folders) is the server's own,
  // not a departure: it is noted. Types, closedness and required fields are all stated.
  const variant = plan.body?.variants.find((v) => v.name === kase.variant);
  const stated = (d: { field?: string; reason?: string }) => {
    if (!variant || d.field === undefined || d.field === "") return true;
    const at = schemaAt(variant.raw, d.field.split("."));
    return at === undefined || states(at.s, String(d.reason));
  };
  const schemaRefusals = detailsOf(ex).filter((d) => typeof d.reason === "string" && SCHEMA_REASONS.has(d.reason));
  for (const d of schemaRefusals.filter((x) => !stated(x))) c.note(ruleOf(plan, String(d.field).split(".")[0], kase.validRule), `${plan.operation.operationId}: the server refuses ${star(String(d.field))} ${d.reason} where the contract states no bound, set or format (a bound or set of its own)`);
  const wrong = schemaRefusals.find(stated);
  if (!wrong) return undefined;
  const field = String(wrong.field ?? "");
  return { rule: ruleOf(plan, field.split(".")[0], kase.validRule), category: `refused ${wrong.reason}`, field: star(field), message: `${what} was refused ${said(ex)} naming ${field || "the body"} ${wrong.reason}, a schema reason for a valid ${field ? "field" : "body"}` };
}

/** What an input with one fault must get: 400 (or the seed's own code) naming the field and the reason. */
function judgeInvalid(kase: Case, ex: Exchange): Finding | undefined {
  const f = kase.fault!;
  const base = { rule: f.rule, field: star(f.field ?? ""), kind: f.kind };
  const what = `${f.describe}`;
  if (ex.status >= 500 && !declared503(ex)) return { ...base, category: "5xx", message: `${what}: answered ${said(ex)}, not a refusal` };
  if (ex.status < 400) return { ...base, category: "accepted", message: `${what}: accepted with ${ex.status}; expected ${f.expected.statuses.join(" or ")} ${f.expected.codes.join(" or ")}` };
  const code = errorCodeOf(ex.json);
  // Refusals outside the input's making (quota, an API switched off now) say nothing of it.
  if (ex.status === 429 || code === "service_unavailable") return undefined;
  if (!f.expected.statuses.includes(ex.status) || !code || !f.expected.codes.includes(code)) {
    return { ...base, category: "wrong refusal", message: `${what}: answered ${said(ex)}; expected ${f.expected.statuses.join(" or ")} ${f.expected.codes.join(" or ")}` };
  }
  const want = f.expected.detail;
  if (!want || code === "request_too_large") return undefined;
  const details = detailsOf(ex);
  if (details.length === 0 && want.optional) return undefined;
  const matches = (d: { field?: string; reason?: string }) => {
    const sameField = f.where === "header" ? String(d.field ?? "").toLowerCase() === String(want.field ?? "").toLowerCase() : (d.field ?? "") === (want.field ?? "") || (want.field === undefined && (d.field === "body" || d.field === ""));
    return sameField && typeof d.reason === "string" && want.reasons.includes(d.reason);
  };
  const ok = want.first ? details.length > 0 && matches(details[0]!) : details.some(matches);
  if (ok) return undefined;
  const named = want.field ? `${want.field} ${want.reasons.join(" or ")}` : `the body ${want.reasons.join(" or ")}`;
  return { ...base, category: "details", message: `${what}: ${said(ex)} with ${shown(details)}; expected ${want.first ? "details[0]" : "an item"} naming ${named}` };
}

export function judge(c: CheckContext, plan: Plan, kase: Case, ex: Exchange): Finding | undefined {
  return kase.kind === "valid" ? judgeValid(c, plan, kase, ex) : judgeInvalid(kase, ex);
}

function identity(f: Finding): string {
  return `${f.rule}|${f.category}|${f.field}|${f.kind ?? ""}`;
}

/** Every present property of a body as a path, deepest last. */
function propertyPaths(v: Json, path: Path = []): Path[] {
  if (!v || typeof v !== "object" || Array.isArray(v)) return [];
  return Object.entries(v).flatMap(([k, x]) => [[...path, k], ...propertyPaths(x as Json, [...path, k])]);
}

function onFaultPath(p: Path, fault: Path | undefined): boolean {
  if (!fault) return false;
  return p.every((k, i) => fault[i] === k);
}

/** Smaller cases: the same fault on the smallest body first, then one query parameter, optional header or body property less. */
function smaller(plan: Plan, kase: Case): Case[] {
  const out: Case[] = kase.canonical ? [{ ...kase.canonical, index: kase.index }] : [];
  for (let i = 0; i < kase.query.length; i++) {
    if (kase.fault?.where === "query" && kase.query[i]![0] === kase.fault.field) continue;
    out.push({ ...kase, query: kase.query.filter((_, j) => j !== i) });
  }
  for (const h of Object.keys(kase.headers)) {
    const { [h]: _gone, ...rest } = kase.headers;
    out.push({ ...kase, headers: rest });
  }
  if (kase.body !== undefined && plan.body) {
    const variant = plan.body.variants.find((v) => v.name === kase.variant);
    for (const p of propertyPaths(kase.body)) {
      if (onFaultPath(p, kase.fault?.path)) continue;
      const body = placed(kase.body, p, undefined, variant?.raw ?? {}, plan.real);
      // The contract still sees the same case: valid stays valid, the one fault stays the only one.
      const details = plan.body.details(body);
      const same = kase.kind === "valid" || kase.bodyFault ? details.length === 0 : details.length > 0 && details.every((d) => (d.field ?? "") === (kase.fault?.field ?? ""));
      if (same) out.push({ ...kase, body });
    }
  }
  return out;
}

/**
 * Shrinks a failing case: leaves out what the finding does not need, confirming each step
 * with the server. `alone`: whether the fault on the smallest body (tried first) showed
 * it too (undefined when the case has no such twin). Answers are kept by what a failure
 * cites (their records keep a bounded prefix), never whole.
 */
async function shrink(c: CheckContext, plan: Plan, kase: Case, finding: Finding, cite: Cited, replay: Replay): Promise<{ kase: Case; cite: Cited; finding: Finding; steps: number; alone?: boolean }> {
  let current = { kase, cite, finding };
  let steps = 0;
  let alone: boolean | undefined;
  const tried = new Set<string>([caseKey(kase)]);
  for (let progress = true; progress && steps < SHRINK_BUDGET; ) {
    progress = false;
    for (const candidate of smaller(plan, current.kase)) {
      const key = caseKey(candidate);
      if (tried.has(key) || steps >= SHRINK_BUDGET) continue;
      tried.add(key);
      steps++;
      let answer: Exchange;
      try {
        answer = await send(c, plan, candidate, replay);
      } catch (error) {
        if (error instanceof NoAnswer) continue; // not the same finding
        throw error;
      }
      const again = judge(c, plan, candidate, answer);
      const same = again !== undefined && identity(again) === identity(finding);
      if (kase.canonical && alone === undefined) alone = same;
      if (same) {
        current = { kase: candidate, cite: answer.cite, finding: again };
        progress = true;
        break;
      }
    }
  }
  return { ...current, steps, ...(alone !== undefined ? { alone } : {}) };
}


/** Sends a plan's cases, then shrinks and reports each distinct finding. */
export async function runCases(c: CheckContext, plan: Plan, cases: Case[], replay: Replay): Promise<OperationRun> {
  const op = plan.operation.operationId;
  const before = c.target.requestCount;
  const first = new Map<string, { kase: Case; cite: Cited; finding: Finding; seen: number }>();
  let failing = 0;
  let noted = 0;
  let silent = 0;
  for (const kase of cases) {
    let ex: Exchange;
    try {
      ex = await send(c, plan, kase, replay);
      silent = 0;
    } catch (error) {
      if (!(error instanceof NoAnswer)) throw error;
      // A request the server never answers is a finding of its own (not shrunk: each try
      // waits for the timeout); a server that stops answering ends the operation.
      failing++;
      c.results.fail(kase.fault?.rule ?? kase.validRule, `${op}: ${kase.fault ? kase.fault.describe : `a ${kase.variant ?? "request"} valid against the contract`}: ${error.message} (${kase.kind} case ${kase.index} of ${cases.length}; replay: --generate=${replay.perOperation} --seed ${replay.seed} --operations ${op})`, { request: error.request, operation: operationLabel(plan.operation), ...(error.sent ? { sent: error.sent } : {}) });
      if (!(error instanceof AnswerTooLarge) && ++silent >= NO_ANSWER_LIMIT) {
        c.note(kase.fault?.rule ?? kase.validRule, `${op}: the server stopped answering; the operation's other cases were not sent`);
        break;
      }
      continue;
    }
    const finding = judge(c, plan, kase, ex);
    if (!finding) {
      // A quota refusal judged nothing.
      if (ex.status !== 429) c.pass(kase.fault?.rule ?? kase.validRule);
      continue;
    }
    failing++;
    const id = identity(finding);
    const known = first.get(id);
    if (known) known.seen++;
    else first.set(id, { kase, cite: ex.cite, finding, seen: 1 });
  }
  for (const { kase, cite, finding, seen } of first.values()) {
    const small = await shrink(c, plan, kase, finding, cite, replay);
    const shown = small.finding;
    // A refusal that names another cause than the fault only while other fields are
    // present may be the server checking those first (the seed does not fix an order):
    // noted, not failed. A crash or an acceptance fails whatever else is present.
    if (small.alone === false && (finding.category === "details" || finding.category === "wrong refusal")) {
      c.note(shown.rule, `${op}: ${shown.message}, but not with the fault alone (${kase.kind} case ${kase.index}; replay: --generate=${replay.perOperation} --seed ${replay.seed} --operations ${op})`);
      noted++;
      continue;
    }
    const was = sizeOf(kase);
    const now = sizeOf(small.kase);
    const how = [
      `${kase.kind} case ${kase.index} of ${cases.length}`,
      seen > 1 ? `seen in ${seen} cases` : undefined,
      now < was ? `shrunk from ${was} to ${now} fields in ${small.steps} requests` : undefined,
      `replay: --generate=${replay.perOperation} --seed ${replay.seed} --operations ${op}`,
    ].filter(Boolean).join("; ");
    c.fail(shown.rule, `${op}: ${shown.message} (${how})`, { cite: small.cite });
  }
  await plan.finish?.(c);
  return {
    operationId: op,
    cases: cases.length,
    valid: cases.filter((k) => k.kind === "valid").length,
    invalid: cases.filter((k) => k.kind === "invalid").length,
    findings: first.size - noted,
    failingCases: failing,
    requests: c.target.requestCount - before,
  };
}
