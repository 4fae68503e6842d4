// The bounds of every input: every bounded number, length and count of every operation's
// query parameters and bodies (each submit variant, the batch ids, paging, the report
// text, the support images, the upload length, ...), read from the contract, never
// retyped. One past each bound is refused with the seed's code and reason (400
// `invalid_request` naming the field `out_of_range`; `invalid_limit` for `limit` and the
// batch ids, `invalid_cursor` for `cursor`); each bound is accepted at its edge where
// accepting changes nothing (reads, the price estimate, an upload ticket: every bounded
// field of a variant at its upper edges in one body, at its lower edges in another, and the
// model id at both lengths); without `limit` a page holds the contract's default. The
// submit's body is probed through the price estimate (the same body, refused the same
// way, PRICE-7, and free). The cases and their judgement are the generator's
// (kit/generate/, send-cases.ts), one request each.
import { type Json } from "../../../contract/index.ts";
import { baseCase, bodyFault, fieldOfParam, queryFault, queryText, specialExpectation, type Case, type Context } from "../../kit/generate/cases.ts";
import { generatedRules, ruleOf, variantValues, type Known, type Plan, type Variant } from "../../kit/generate/plans.ts";
import { everyOperation, sample } from "./every-operation.ts";
import { fieldFaults, fieldsOf, minimalValue, placed, stringOfLength, view, type Field, type RealValues } from "../../kit/generate/schema.ts";
import { selects } from "../../kit/routes.ts";
import { KNOWN_FACTS } from "../../kit/known.ts";
import { operationLabel } from "../../target/exchange.ts";
import { type Check, type CheckContext } from "../../facts/check.ts";

/** The faults that put a value one past a bound. */
const PAST_A_BOUND: ReadonlySet<string> = new Set(["above_maximum", "below_minimum", "too_long", "too_short", "too_many_items", "too_few_items"]);
/** Operations whose accepted request changes nothing that lasts: an upload ticket only signs a PUT (nothing exists until it is done). */
const TICKETS: ReadonlySet<string> = new Set(["createUpload"]);

type End = "lower" | "upper";

/** A field's value at one end of its declared bounds, if it has one there. */
function edge(field: Field, end: End, real: RealValues): Json | undefined {
  const s = field.view.s;
  const integer = s.type === "integer";
  const num = (v: unknown) => (typeof v === "number" ? v : undefined);
  if (end === "upper") {
    const max = num(s.maximum) ?? (num(s.exclusiveMaximum) !== undefined ? num(s.exclusiveMaximum)! - (integer ? 1 : 0.001) : undefined);
    if (max !== undefined) return max;
    if (typeof s.maxLength === "number" && !s.format && !s.pattern && !s.enum) return stringOfLength(s.maxLength);
    if (typeof s.maxItems === "number") return Array.from({ length: s.maxItems }, (_, i) => minimalValue(s.items ?? {}, real, [...field.path, i]));
    return undefined;
  }
  const min = num(s.minimum) ?? (num(s.exclusiveMinimum) !== undefined ? num(s.exclusiveMinimum)! + (integer ? 1 : 0.001) : undefined);
  if (min !== undefined) return min;
  if (typeof s.minLength === "number" && !s.format && !s.pattern && !s.enum) return stringOfLength(s.minLength);
  if (typeof s.minItems === "number") return Array.from({ length: s.minItems }, (_, i) => minimalValue(s.items ?? {}, real, [...field.path, i]));
  return undefined;
}

/** Fields whose value the server knows better than the schema (a model of the catalog): their edges go alone. */
function catalogued(field: Field): boolean {
  return field.view.name === "SubmitModel";
}

/** The cases of one operation: one past every bound, and where accepting changes nothing, every bound at its edge. */
export function boundCases(plan: Plan, known: Known): { valid: Case[]; invalid: Case[] } {
  const ctx: Context = { plan, known };
  const valid: Case[] = [];
  const invalid: Case[] = [];
  const op = plan.operation.operationId;
  const acceptable = !plan.needs || TICKETS.has(op);
  const isValid = (body: Json | undefined) => body === undefined || !plan.body || plan.body.details(body).length === 0;
  const variants: (Variant | undefined)[] = plan.body ? plan.body.variants.filter((v) => !v.unavailable) : [undefined];
  let first: Case | undefined;
  for (const variant of variants) {
    const real = variant ? variantValues(plan, variant, known) : plan.real;
    const base = baseCase(ctx, variant, real, plan.operation.path.includes("{") ? sample(plan) : plan.operation.path);
    if (!isValid(base.body)) continue;
    first ??= base;
    if (!variant) continue;
    const fields = fieldsOf(variant.raw);
    for (const field of fields) {
      for (const f of fieldFaults(field, real)) {
        if (!PAST_A_BOUND.has(f.kind)) continue;
        const kase = bodyFault(ctx, base, variant, real, f, base.body!);
        if (!kase) continue;
        specialExpectation(ctx, kase);
        invalid.push(kase);
      }
    }
    if (!acceptable) continue;
    for (const end of ["upper", "lower"] as const) {
      // Every bounded field at this end, in one body (the catalog's model kept, so that the
      // body can be priced); the model id's own lengths alone. A combination the contract
      // refuses is split into one body per field.
      let all: Json = base.body!;
      const alone: Json[] = [];
      for (const field of fields) {
        const value = edge(field, end, real);
        if (value === undefined) continue;
        if (catalogued(field)) alone.push(placed(base.body!, field.path, value, variant.raw, real));
        else all = placed(all, field.path, value, variant.raw, real);
      }
      if (all !== base.body && isValid(all)) valid.push({ ...base, body: all });
      else if (all !== base.body) {
        for (const field of fields.filter((x) => !catalogued(x))) {
          const value = edge(field, end, real);
          if (value !== undefined) alone.push(placed(base.body!, field.path, value, variant.raw, real));
        }
      }
      for (const body of alone) if (isValid(body)) valid.push({ ...base, body });
    }
  }
  if (!first) return { valid, invalid };
  for (const p of plan.query) {
    const field = fieldOfParam(p);
    for (const f of fieldFaults(field, plan.real)) {
      if (!PAST_A_BOUND.has(f.kind)) continue;
      const kase = queryFault(plan, first, p, f);
      if (kase) invalid.push(kase);
    }
    if (!acceptable || p.noValid) continue;
    for (const end of ["lower", "upper"] as const) {
      const value = edge(field, end, plan.real);
      if (value !== undefined) valid.push({ ...first, query: [[p.name, queryText(value)]] });
    }
  }
  return { valid, invalid };
}

/** Without `limit`, a page holds the contract's default number of records (all of them when fewer). */
async function defaults(c: CheckContext, plan: Plan, path: string, as: { key: string; label: string }): Promise<void> {
  for (const p of plan.query) {
    const d = view(p.raw).s.default;
    const max = view(p.raw).s.maximum;
    if (typeof d !== "number" || typeof max !== "number") continue;
    const rule = ruleOf(plan, p.name, plan.validRule);
    if (!selects(c, rule)) continue;
    const all = await c.get(`${path}?${p.name}=${max}`, rule, as);
    const plain = await c.get(path, rule, as);
    if (all.status !== 200 || plain.status !== 200 || !Array.isArray(all.json?.data) || !Array.isArray(plain.json?.data)) continue;
    const want = Math.min(d, all.json.data.length);
    c.expect(plain.json.data.length === want, rule, `${operationLabel(plan.operation)}: without ${p.name} the answer holds ${plain.json.data.length} records; ${p.name}=${max} holds ${all.json.data.length}, so the default ${d} gives ${want}`, plain);
  }
}

export const boundsEveryInput: Check = {
  name: "the bounds of every input",
  rules: generatedRules(),
  needs: { uses: KNOWN_FACTS },
  run: (c) =>
    everyOperation(c, "the bounds of every input", (plan, known) => {
      const { valid, invalid } = boundCases(plan, known);
      return [...valid, ...invalid];
    }, async (plan, as) => {
      if (plan.operation.method === "get" && !plan.operation.path.includes("{")) await defaults(c, plan, plan.operation.path, as);
    }),
};
