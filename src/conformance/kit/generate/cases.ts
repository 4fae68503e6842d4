// The requests the generator sends to one operation, from its plan and a seed: valid
// inputs (every field at each of its edges, then random ones from fast-check) and invalid
// inputs with exactly one fault each (every bound +-1, each other JSON type, null, a
// value a lenient parser would coerce, a value outside the set, a bad format, an unknown
// field, a field of another variant, a missing field or header, then the same faults on
// random bodies), plus the faults of the body as a whole (each JSON type but an object,
// not JSON, another content type, oversized). The contract's own validator confirms each:
// a valid body has no detail, an invalid one has details at the fault's field only. The
// same seed gives the same cases.
import fc from "fast-check";
import type { Json } from "../../../contract/index.ts";
import { FAULT_REASON, dotted, edgeValues, fieldFaults, fieldsOf, minimalValue, placed, propertiesOf, rootUnknownField, validValues, valueAt, view, type Field, type FieldFault, type Path, type RealValues } from "./schema.ts";
import { ruleOf, variantValues, type Known, type Param, type Plan, type Variant } from "./plans.ts";

/** Faults of the body as a whole. */
export type BodyFault = "malformed_json" | "wrong_content_type" | "oversized" | "not_an_object";

export interface Expected {
  /** Statuses that may refuse it (400; 413 also for an oversized body). */
  statuses: number[];
  codes: string[];
  /**
   * A details item must name `field` (or no field, for the body itself) with one of
   * `reasons`: the first item (`first`), or any; `optional`: only when details are given.
   */
  detail?: { field?: string; reasons: string[]; first?: boolean; optional?: boolean };
}

export interface Fault {
  kind: FieldFault["kind"] | BodyFault | "missing_header";
  where: "body" | "query" | "header";
  /** The field, parameter or header at fault. */
  field?: string;
  path?: Path;
  describe: string;
  expected: Expected;
  rule: string;
}

export interface Case {
  /** Position in the operation's cases (1-based), for the report. */
  index: number;
  kind: "valid" | "invalid";
  path: string;
  query: [string, string][];
  /** Optional headers sent (Accept-Language). */
  headers: Record<string, string>;
  /** Send the operation's required Idempotency-Key (a fresh value per request). */
  idempotency: boolean;
  variant?: string;
  /** The JSON body (before a body fault turns it into `raw`). */
  body?: Json;
  bodyFault?: BodyFault;
  fault?: Fault;
  /** The rule a valid case is held to. */
  validRule: string;
  /** The same fault on the smallest valid body: what shrinking tries first. */
  canonical?: Case;
}

const ACCEPT_LANGUAGES = ["ru", "en", "ru-RU, ru;q=0.9, en;q=0.8", "de-DE, de;q=0.9"];
/** An oversized body: above any cap an API of this kind sets (the seed does not show the cap). */
export const OVERSIZED_BYTES = 4 * 1024 * 1024;
const PADDING_FIELD = "conformance_padding";

/** The body text sent for a case. */
export function rawBody(c: Case): { text: string; contentType: string } | undefined {
  if (c.body === undefined) return undefined;
  const json = JSON.stringify(c.body);
  switch (c.bodyFault) {
    case "malformed_json":
      return { text: json.slice(0, -1), contentType: "application/json" };
    case "wrong_content_type":
      return { text: json, contentType: "text/plain" };
    case "oversized":
      return { text: `${json.slice(0, -1)}${json.length > 2 ? "," : ""}"${PADDING_FIELD}":"${"x".repeat(OVERSIZED_BYTES)}"}`, contentType: "application/json" };
    default:
      return { text: json, contentType: "application/json" };
  }
}

/** How many fields, parameters and headers a case carries (what shrinking reduces). */
export function sizeOf(c: Case): number {
  const fields = (v: Json | undefined): number => (v && typeof v === "object" && !Array.isArray(v) ? Object.values(v).reduce<number>((n, x) => n + 1 + fields(x), 0) : 0);
  return c.query.length + Object.keys(c.headers).length + fields(c.body);
}

export function caseKey(c: Case): string {
  return JSON.stringify([c.path, c.query, c.headers, c.idempotency, c.variant, c.body, c.bodyFault ?? null, c.fault?.kind ?? null, c.fault?.field ?? null]);
}

/** A seed per operation, so that one operation's cases do not depend on the others'. */
export function operationSeed(seed: number, operationId: string): number {
  let h = seed >>> 0;
  for (const ch of operationId) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h | 0;
}

export function fieldOfParam(p: Param): Field {
  return { path: [p.name], raw: p.raw, view: view(p.raw), required: p.required };
}

/** A query value as text (what a URL can carry). */
export function queryText(v: Json): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** The code a refused query parameter is answered with: the seed's own for paging. */
function queryCode(p: Param): string {
  return p.component === "PageLimit" ? "invalid_limit" : p.component === "PageCursor" ? "invalid_cursor" : "invalid_request";
}

export interface Context {
  plan: Plan;
  known: Known;
}

/** Cases that change nothing but the given parts of a base case. */
export function baseCase(ctx: Context, variant: Variant | undefined, real: RealValues, path: string): Case {
  const idempotency = ctx.plan.headers.some((h) => h.required && h.name.toLowerCase() === "idempotency-key");
  return {
    index: 0,
    kind: "valid",
    path,
    query: [],
    headers: {},
    idempotency,
    ...(variant ? { variant: variant.name, body: minimalValue(variant.raw, real) } : {}),
    validRule: variant?.validRule ?? ctx.plan.validRule,
  };
}

function variantsOf(plan: Plan): (Variant | undefined)[] {
  const list = plan.body?.variants.filter((v) => !v.unavailable) ?? [];
  return plan.body ? list : [undefined];
}

/** Whether a body is valid against the contract (no detail from its validator). */
function validBody(plan: Plan, body: Json | undefined): boolean {
  return body === undefined || !plan.body || plan.body.details(body).length === 0;
}

/** Whether a body's only fault is at `field` (the contract's details name it and nothing else). */
function onlyFaultAt(plan: Plan, body: Json, field: string | undefined): string[] | undefined {
  const details = plan.body!.details(body);
  if (details.length === 0 || details.some((d) => (d.field ?? "") !== (field ?? ""))) return undefined;
  return [...new Set(details.map((d) => d.reason))];
}

export function bodyFault(ctx: Context, base: Case, variant: Variant, real: RealValues, f: FieldFault, body: Json): Case | undefined {
  const faulty = placed(body, f.path, f.value, variant.raw, real);
  const field = dotted(f.path);
  const reasons = onlyFaultAt(ctx.plan, faulty, field || undefined);
  if (!reasons) return undefined;
  return {
    ...base,
    kind: "invalid",
    body: faulty,
    fault: {
      kind: f.kind,
      where: "body",
      ...(field ? { field } : {}),
      path: f.path,
      describe: f.describe,
      expected: { statuses: [400], codes: ["invalid_request"], detail: { ...(field ? { field } : {}), reasons: [...new Set([FAULT_REASON[f.kind], ...reasons])] } },
      rule: (f.kind === "unknown_field" || f.kind === "other_variant_field") && ctx.plan.operation.operationId === "submitGeneration" ? "SUB-0" : ruleOf(ctx.plan, f.path, ctx.plan.invalidRule),
    },
  };
}

/**
 * A closed variant's body with a field only another variant has (a valid value of it
 * there): a server that validates the union of the variants, not the one `type` chose,
 * takes it. (The variants are told apart by `type`, so no body matches two of them.)
 */
function otherVariantFields(plan: Plan, variant: Variant, real: RealValues): FieldFault[] {
  if (view(variant.raw).s.additionalProperties !== false) return [];
  const own = propertiesOf(view(variant.raw).s);
  const seen = new Set<string>();
  const out: FieldFault[] = [];
  for (const other of plan.body?.variants ?? []) {
    for (const [name, raw] of Object.entries(propertiesOf(view(other.raw).s))) {
      if (name in own || seen.has(name)) continue;
      seen.add(name);
      const value = minimalValue(raw, real, [name]);
      out.push({ kind: "other_variant_field", path: [name], value, describe: `${name} = ${JSON.stringify(value)} added (a field of ${other.name}, not of ${variant.name})` });
    }
  }
  return out;
}

/** The faults of one variant's body, each a template applied to a base body. */
function bodyFaultTemplates(plan: Plan, variant: Variant, real: RealValues): FieldFault[] {
  const { s } = view(variant.raw);
  const fields = fieldsOf(variant.raw);
  const root: FieldFault[] = s.additionalProperties === false ? [rootUnknownField()] : [];
  return [...root, ...otherVariantFields(plan, variant, real), ...fields.flatMap((f) => fieldFaults(f, real))];
}

/** A body of each JSON type but an object (the variants are all objects). */
const NOT_AN_OBJECT: [Json, string][] = [
  [[], "a JSON array"],
  ["conformance", "a JSON string"],
  [12345, "a JSON number"],
  [true, "a JSON boolean"],
  [null, "JSON null"],
];

/** The batch status read's own refusal (BATCH-1): more ids than the maximum answer `invalid_limit`, `details[0]` naming `ids`. */
export function specialExpectation(ctx: Context, c: Case): void {
  const f = c.fault;
  if (!f || ctx.plan.operation.operationId !== "readGenerationStatuses" || f.kind !== "too_many_items" || f.field !== "ids") return;
  f.expected = { statuses: [400], codes: ["invalid_limit"], detail: { field: "ids", reasons: ["out_of_range"], first: true } };
}

/** Every systematic case: the edges of every field (valid) and every single fault (invalid). */
function systematic(ctx: Context, seed: number, noise: Case[]): { valid: Case[]; invalid: Case[] } {
  const { plan } = ctx;
  const valid: Case[] = [];
  const invalid: Case[] = [];
  const path = fc.sample(plan.paths, { seed, numRuns: 1 })[0]!;
  for (const variant of variantsOf(plan)) {
    const real = variant ? variantValues(plan, variant, ctx.known) : plan.real;
    const base = baseCase(ctx, variant, real, path);
    if (validBody(plan, base.body)) valid.push(base);
    if (variant) {
      for (const field of fieldsOf(variant.raw)) {
        for (const value of edgeValues(field, real)) {
          const body = placed(base.body!, field.path, value, variant.raw, real);
          if (validBody(plan, body)) valid.push({ ...base, body });
        }
      }
      // Each fault goes into a random valid body of the variant (other fields present, as
      // real requests have them), and shrinking then looks for the smallest one showing
      // it, the fault on the smallest body first.
      const pool = noise.filter((n) => n.variant === variant.name);
      bodyFaultTemplates(plan, variant, real).forEach((f, i) => {
        const canonical = bodyFault(ctx, base, variant, real, f, base.body!);
        const host = pool.length > 0 ? pool[i % pool.length]! : undefined;
        const noisy = host ? bodyFault(ctx, host, variant, real, f, host.body!) : undefined;
        if (noisy) invalid.push({ ...noisy, ...(canonical ? { canonical } : {}) });
        else if (canonical) invalid.push(canonical);
      });
    }
  }
  // Parameters and headers vary on a valid body (the first variant's smallest, or its
  // first valid edge when the smallest is not valid: a body that needs one property).
  const first = variantsOf(plan)[0];
  const base = valid.find((c) => c.variant === first?.name) ?? valid[0];
  if (!base) return { valid, invalid };
  for (const p of plan.query) {
    const field = fieldOfParam(p);
    if (!p.noValid) for (const value of edgeValues(field, plan.real)) valid.push({ ...base, query: [[p.name, queryText(value)]] });
    for (const f of fieldFaults(field, plan.real)) {
      const c = queryFault(plan, base, p, f);
      if (c) invalid.push(c);
    }
  }
  for (const lang of ACCEPT_LANGUAGES) if (plan.headers.some((h) => h.name.toLowerCase() === "accept-language")) valid.push({ ...base, headers: { "accept-language": lang } });
  if (base.idempotency) {
    invalid.push({ ...base, kind: "invalid", idempotency: false, fault: { kind: "missing_header", where: "header", field: "Idempotency-Key", describe: "Idempotency-Key left out (required)", expected: { statuses: [400], codes: ["invalid_request"], detail: { field: "Idempotency-Key", reasons: ["required"] } }, rule: ruleOf(plan, "Idempotency-Key", plan.invalidRule) } });
  }
  if (first && base.body !== undefined) {
    const whole = (kind: BodyFault, describe: string, expected: Expected): Case => ({ ...base, kind: "invalid", bodyFault: kind, fault: { kind, where: "body", describe, expected, rule: plan.invalidRule } });
    for (const [body, what] of NOT_AN_OBJECT) {
      if (onlyFaultAt(plan, body, undefined)) invalid.push({ ...base, kind: "invalid", body, fault: { kind: "not_an_object", where: "body", describe: `the body is ${what}, not an object`, expected: { statuses: [400], codes: ["invalid_request"], detail: { reasons: ["wrong_type"] } }, rule: plan.invalidRule } });
    }
    invalid.push(whole("malformed_json", "the body is not JSON (its last character cut)", { statuses: [400], codes: ["invalid_request"] }));
    invalid.push(whole("wrong_content_type", "a JSON body sent as text/plain", { statuses: [400], codes: ["invalid_request"] }));
    invalid.push(whole("oversized", `a body of ${OVERSIZED_BYTES} bytes and more (an unknown field ${PADDING_FIELD} holding them)`, { statuses: [400, 413], codes: ["invalid_request", "request_too_large"] }));
  }
  for (const c of invalid) specialExpectation(ctx, c);
  return { valid, invalid };
}

/** The faults of a body's JSON types and shape, as a default run sends them (the rest are bounds, or --generate's). */
const TYPE_FAULTS: ReadonlySet<string> = new Set(["wrong_type", "null_value", "coercible", "unknown_field", "other_variant_field"]);

/**
 * The types and shape of every body field, once each: for every field of every variant
 * (a field the variants share goes with the first that has it), its first value of another
 * JSON type, null, and its first value a lenient parser would take for a valid one; a field
 * the body does not have, and one field of another variant per variant; the body as JSON
 * null, and a JSON body sent as text/plain. Each on the variant's smallest valid body, alone.
 */
export function typeCases(plan: Plan, known: Known, path: string): Case[] {
  const ctx: Context = { plan, known };
  const out: Case[] = [];
  const sent = new Set<string>();
  let first: Case | undefined;
  for (const variant of variantsOf(plan)) {
    if (!variant) continue;
    const real = variantValues(plan, variant, known);
    const base = baseCase(ctx, variant, real, path);
    if (!validBody(plan, base.body)) continue;
    first ??= base;
    for (const f of bodyFaultTemplates(plan, variant, real)) {
      // A field once per fault; another variant's fields once per variant (a server that
      // validates the union of the variants takes any of them).
      const once = f.kind === "other_variant_field" ? `${f.kind} of ${variant.name}` : `${f.kind} ${dotted(f.path)}`;
      if (!TYPE_FAULTS.has(f.kind) || sent.has(once)) continue;
      const kase = bodyFault(ctx, base, variant, real, f, base.body!);
      if (!kase) continue;
      sent.add(once);
      specialExpectation(ctx, kase);
      out.push(kase);
    }
  }
  if (!first) return out;
  // JSON null may be read as no body at all (a proxy in between may send none): `required` then.
  if (onlyFaultAt(plan, null, undefined)) out.push({ ...first, kind: "invalid", body: null, fault: { kind: "not_an_object", where: "body", describe: "the body is JSON null, not an object", expected: { statuses: [400], codes: ["invalid_request"], detail: { reasons: ["wrong_type", "required"] } }, rule: plan.invalidRule } });
  out.push({ ...first, kind: "invalid", bodyFault: "wrong_content_type", fault: { kind: "wrong_content_type", where: "body", describe: "a JSON body sent as text/plain", expected: { statuses: [400], codes: ["invalid_request"] }, rule: plan.invalidRule } });
  return out.map((c, i) => ({ ...c, index: i + 1 }));
}

/** A query parameter with one fault (`f`), on a valid base case; undefined when a query cannot carry it. */
export function queryFault(plan: Plan, base: Case, p: Param, f: FieldFault): Case | undefined {
  const text = f.value === undefined ? undefined : queryText(f.value);
  // A query carries text: another type (null too) is only wrong for a parameter that is
  // not a string, and what a lenient parser coerces (`"20"` for 20) is the query's own form.
  if (text === undefined || f.kind === "coercible" || ((f.kind === "wrong_type" || f.kind === "null_value") && view(p.raw).s.type === "string")) return undefined;
  const code = queryCode(p);
  const why = /\(([^)]*)\)$/.exec(f.describe)?.[1];
  // The seed gives paging its own codes; `details` are asked of `invalid_request` (and
  // held to the field and reason when an `invalid_limit` carries them).
  const detail = { field: p.name, reasons: [FAULT_REASON[f.kind]], ...(code === "invalid_request" ? {} : { optional: true }) };
  return { ...base, kind: "invalid", query: [[p.name, text]], fault: { kind: f.kind, where: "query", field: p.name, describe: `${p.name}=${JSON.stringify(text)}${why ? ` (${why})` : ""}`, expected: { statuses: [400], codes: [code], ...(code === "invalid_cursor" ? {} : { detail }) }, rule: ruleOf(plan, p.name, plan.invalidRule) } };
}

/** Random valid cases (fast-check), confirmed valid by the contract's validator. */
function randomValid(ctx: Context, seed: number, count: number): Case[] {
  const { plan } = ctx;
  const variants = variantsOf(plan);
  const arbs = variants.map((variant) => {
    const real = variant ? variantValues(plan, variant, ctx.known) : plan.real;
    const sendable = plan.query.filter((p) => !p.noValid);
    const query = fc.record(Object.fromEntries(sendable.map((p) => [p.name, validValues(p.raw, plan.real, [p.name])])), { requiredKeys: sendable.filter((p) => p.required).map((p) => p.name) });
    const language = plan.headers.some((h) => h.name.toLowerCase() === "accept-language") ? fc.option(fc.constantFrom(...ACCEPT_LANGUAGES), { nil: undefined }) : fc.constant(undefined);
    const body = variant ? validValues(variant.raw, real) : fc.constant(undefined);
    return fc.record({ path: plan.paths, query, language, body }).map(({ path, query: q, language: lang, body: b }): Case => ({
      ...baseCase(ctx, variant, real, path),
      query: Object.entries(q).map(([k, v]) => [k, queryText(v as Json)]),
      headers: lang ? { "accept-language": lang } : {},
      ...(b !== undefined ? { body: b as Json } : {}),
    }));
  });
  const all = fc.oneof(...arbs);
  return fc.sample(all, { seed, numRuns: count }).filter((c) => validBody(plan, c.body));
}

/** Random invalid cases: a fault of the systematic list put into a random valid case. */
function randomInvalid(ctx: Context, seed: number, count: number, validPool: Case[], templates: Case[]): Case[] {
  if (validPool.length === 0 || templates.length === 0) return [];
  const picks = fc.sample(fc.tuple(fc.nat(validPool.length - 1), fc.nat(templates.length - 1)), { seed, numRuns: count });
  const out: Case[] = [];
  for (const [v, t] of picks) {
    const base = validPool[v]!;
    const template = templates[t]!;
    const f = template.fault!;
    if (f.where === "body" && f.path && base.body !== undefined && template.variant === base.variant) {
      const variant = ctx.plan.body!.variants.find((x) => x.name === base.variant)!;
      const real = variantValues(ctx.plan, variant, ctx.known);
      const value = template.body === undefined ? undefined : valueAt(template.body, f.path);
      const c = bodyFault(ctx, base, variant, real, { kind: f.kind as FieldFault["kind"], path: f.path, describe: f.describe, ...(value !== undefined ? { value } : {}) }, base.body);
      if (c) {
        specialExpectation(ctx, c);
        out.push({ ...c, ...(template.canonical ? { canonical: template.canonical } : { canonical: template }) });
      }
    } else if (f.where === "query") {
      out.push({ ...base, kind: "invalid", query: [...base.query.filter(([k]) => k !== f.field), ...template.query], fault: f, canonical: template });
    } else if (f.where === "header") {
      out.push({ ...base, kind: "invalid", idempotency: false, fault: f, canonical: template });
    }
  }
  return out;
}

function distinct(list: Case[]): Case[] {
  const seen = new Set<string>();
  return list.filter((c) => {
    const key = caseKey(c);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function shuffled<T>(list: T[], seed: number): T[] {
  if (list.length < 2) return list;
  return fc.sample(fc.shuffledSubarray(list, { minLength: list.length, maxLength: list.length }), { seed, numRuns: 1 })[0]!;
}

/** What a case varies: its variant and fault kind, or the field or parameter it sets at an edge. */
function groupOf(c: Case): string {
  if (c.fault) return `${c.variant ?? ""}|${c.fault.where}|${c.fault.kind}`;
  return `${c.variant ?? ""}|${c.query.map(([k]) => k).join(",")}|${Object.keys(c.headers).join(",")}`;
}

/**
 * The cases in a seeded order that takes one of every group before a second of any (every
 * kind of fault in every variant first, when fewer cases fit than there are).
 */
function spread(list: Case[], seed: number): Case[] {
  const groups = new Map<string, Case[]>();
  for (const c of shuffled(list, seed)) groups.set(groupOf(c), [...(groups.get(groupOf(c)) ?? []), c]);
  const lanes = [...groups.values()];
  const out: Case[] = [];
  for (let i = 0; out.length < list.length; i++) for (const lane of lanes) if (lane[i]) out.push(lane[i]!);
  return out;
}

/**
 * Up to `n` cases for the plan: half valid, half invalid (all valid when nothing can be
 * made invalid), the systematic ones first (a seeded choice when there are more than
 * fit), then random ones; fewer when the operation has fewer distinct inputs.
 */
export function casesFor(plan: Plan, known: Known, n: number, seed: number): Case[] {
  const ctx: Context = { plan, known };
  const sys = systematic(ctx, seed, randomValid(ctx, seed + 303, 4 * Math.max(1, plan.body?.variants.length ?? 1)));
  const sysValid = distinct(sys.valid);
  const sysInvalid = distinct(sys.invalid);
  const invalidTarget = sysInvalid.length > 0 ? Math.floor(n / 2) : 0;
  const validTarget = n - invalidTarget;
  const take = (pool: Case[], extra: (k: number) => Case[], target: number, salt: number): Case[] => {
    // The faults of the body as a whole and of a header (a handful per operation) come
    // first: a server that reads any body as JSON, or takes a submit without its
    // Idempotency-Key, is met by the fewest cases.
    const whole = pool.filter((c) => c.bodyFault !== undefined || c.fault?.kind === "not_an_object" || c.fault?.where === "header");
    let out = distinct([...whole, ...spread(pool.filter((c) => !whole.includes(c)), seed + salt)]).slice(0, target);
    for (let round = 0; out.length < target && round < 4; round++) {
      out = distinct([...out, ...extra((target - out.length) * 2 + 4)]).slice(0, target);
    }
    return out;
  };
  let round = 0;
  const valid = take(sysValid, (k) => randomValid(ctx, seed + 101 + round++, k), validTarget, 1);
  const invalid = take(sysInvalid, (k) => randomInvalid(ctx, seed + 202 + round++, k, valid, sysInvalid), invalidTarget, 2);
  return [...valid, ...invalid].map((c, i) => ({ ...c, index: i + 1 }));
}
