// A request the contract refuses whatever the server's state, answered 2xx: the server took
// what it must refuse. Passive judging sees requests it did not write (a client's, some
// wrong on purpose), and this is what such a request proves on its own: a query parameter
// outside its schema (a `limit` of 0, a type no value of it has) or a JSON body its
// operation's schema refuses (an unknown field, a bound crossed). It holds whatever the
// account's state, since the contract checks input before anything else a 2xx needs. Not
// judged: a parameter given twice (which one a server reads is not for this check), a body
// the record kept only the start of, a body not sent as JSON. (Here, not in judge/: the
// rule a field is charged to is the generator's table, kit/generate/plans.ts.)
import { deref, type Json, type JsonObject } from "../../../contract/index.ts";
import { ajv, validatorAt } from "../../../contract/validator.ts";
import { bodyDetailsOf, refusalRuleOf } from "../../kit/generate/plans.ts";
import type { RefusedInput } from "../../judge/passive.ts";
import type { Exchange } from "../../target/exchange.ts";
import type { ValidateFunction } from "ajv";

const inline = new WeakMap<object, ValidateFunction>();

/** The validator of a parameter's schema: a component by its $ref, an inline one compiled once. */
function validatorOf(schema: JsonObject): ValidateFunction | undefined {
  if (typeof schema.$ref === "string") return validatorAt(schema.$ref);
  let fn = inline.get(schema);
  if (!fn) {
    try {
      fn = ajv().compile(schema);
    } catch {
      return undefined;
    }
    inline.set(schema, fn);
  }
  return fn;
}

/** A query value as its schema reads it: a number for a numeric schema when it is one. */
function typed(value: string, schema: JsonObject): Json {
  const type = deref<JsonObject>(schema).type;
  if ((type === "integer" || type === "number") && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (type === "boolean" && (value === "true" || value === "false")) return value === "true";
  return value;
}

export function refusedInput(ex: Exchange): RefusedInput | undefined {
  const op = ex.operation;
  if (!op || ex.status < 200 || ex.status >= 300) return undefined;
  const said = `${ex.method} ${ex.path} answered ${ex.status}`;
  const query = new URL(ex.path, "http://x").searchParams;
  for (const p of op.parameters) {
    if (p.in !== "query" || !p.schema) continue;
    const name = String(p.name);
    const values = query.getAll(name);
    if (values.length !== 1) continue;
    const schema = p.schema as JsonObject;
    if (deref<JsonObject>(schema).type === "array") continue;
    const validate = validatorOf(schema);
    if (!validate || validate(typed(values[0]!, schema))) continue;
    const rule = refusalRuleOf(op.operationId, name, undefined);
    if (rule) return { rule, message: `${said}: \`${name}\` ${JSON.stringify(values[0])} ${validate.errors?.[0]?.message ?? "is not valid"}, which the contract refuses whatever the state (400)` };
  }
  const sent = ex.record.sent;
  const type = sent.headers["content-type"] ?? "";
  const details = bodyDetailsOf(op);
  if (!details || typeof sent.body !== "string" || sent.bodySize !== undefined || !/json/i.test(type)) return undefined;
  let body: Json;
  try {
    body = JSON.parse(sent.body) as Json;
  } catch {
    return undefined;
  }
  const found = details(body)[0];
  if (!found) return undefined;
  const rule = refusalRuleOf(op.operationId, found.field?.split(".")[0], found.reason);
  return rule ? { rule, message: `${said} to a body the contract refuses whatever the state (400): ${found.field ?? "the body"}: ${found.reason} (${found.message})` } : undefined;
}
