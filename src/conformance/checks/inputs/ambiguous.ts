// Ambiguous requests (issue 12): a singular query parameter given twice and two
// `Authorization` headers. Which of two values, or of two credentials, a server would act
// on is a guess, so neither may be served: a server that reads the first (or the last)
// value of `limit=1&limit=100`, or authenticates with one of two Authorization headers,
// fails the rule of that parameter (`PAGE-3` for `limit`, `PAGE-2` for `cursor`, ...) or
// of the credential (`AUTH-1`). A refusal passes; `400 invalid_request` with a `details`
// item `{ field, reason: "duplicate" }` is the seed's reason for it, another refusal is
// noted. The two header lines go through node:http (fetch joins them into one).
import { operationById, singularQueryParameters, type Json } from "../../../contract/index.ts";
import { fieldOfParam, queryText } from "../../kit/generate/cases.ts";
import { planFor, ruleOf, type Known, type Plan } from "../../kit/generate/plans.ts";
import { edgeValues, fieldFaults } from "../../kit/generate/schema.ts";
import { unknownKeyLike } from "../../kit/ids.ts";
import { errorCodeOf, type Exchange } from "../../target/exchange.ts";
import { type Check, type CheckContext } from "../../facts/check.ts";

/** The paged collections: a cursor is known only from a first page. */
const PAGED: Record<string, string> = { listGenerations: "/v1/generations", listLibraryAssets: "/v1/library/assets", listCreditTransactions: "/v1/billing/transactions" };
/** The event stream's `types` (the stream is not a generated operation: its rule is named here). */
const STREAM_TYPES_RULE = "EVT-10";
/** A route that declares 400 and needs a credential: where two Authorization headers are sent. */
const AUTH_PATH = "/v1/generations?limit=1";

export const RULES = ["PAGE-2", "PAGE-3", "CAT-4", "CAT-5", STREAM_TYPES_RULE, "AUTH-1"];

function details(ex: Exchange): { field?: unknown; reason?: unknown }[] {
  const d = ex.json?.error?.details;
  return Array.isArray(d) ? d : [];
}

/** Judges the answer to a request that gave `field` twice (a parameter or a header). */
export function judgeAmbiguous(c: CheckContext, rule: string, ex: Exchange, field: string, what: string): void {
  const code = errorCodeOf(ex.json);
  if (ex.status >= 200 && ex.status < 300) {
    c.fail(rule, `${what} answered ${ex.status}: the server acted on one of the two, an ambiguous request is refused`, ex);
    return;
  }
  if (ex.status >= 500) {
    c.fail(rule, `${what} answered ${ex.status}${code ? ` ${code}` : ""}, not a refusal`, ex);
    return;
  }
  c.pass(rule);
  const named = details(ex).some((d) => String(d.field ?? "").toLowerCase() === field.toLowerCase() && d.reason === "duplicate");
  if (!(ex.status === 400 && code === "invalid_request" && named)) c.note(rule, `${what} was refused with ${ex.status}${code ? ` ${code}` : ""}, without a details item naming ${field} duplicate`);
}

/** The two requests that show a repeated parameter: two valid values, or a valid and an invalid one in both orders. */
function pairsOf(plan: Plan, name: string): [string, string][] {
  const param = plan.query.find((p) => p.name === name)!;
  const field = fieldOfParam(param);
  const valid = param.noValid ? [] : [...new Set(edgeValues(field, plan.real).map((v: Json) => queryText(v)))];
  if (valid.length >= 2) return [[valid[0]!, valid[1]!]];
  const wrong = fieldFaults(field, plan.real).find((f) => f.value !== undefined);
  if (valid.length === 0 || !wrong) return [];
  const bad = queryText(wrong.value!);
  return [[valid[0]!, bad], [bad, valid[0]!]];
}

function query(name: string, [a, b]: [string, string]): string {
  return `${encodeURIComponent(name)}=${encodeURIComponent(a)}&${encodeURIComponent(name)}=${encodeURIComponent(b)}`;
}

export const ambiguous: Check = {
  name: "ambiguous requests: a parameter or Authorization given twice",
  rules: RULES,
  needs: { uses: ["models", "secondAccount"] },
  async run(c) {
    const cursors: Record<string, string[]> = {};
    for (const [op, path] of Object.entries(PAGED)) {
      const first = await c.get(`${path}?limit=1`, "PAGE-2");
      cursors[op] = typeof first.json?.next_cursor === "string" ? [first.json.next_cursor] : [];
    }
    const known: Known = { models: c.known("models") ?? [], ownIds: [], createdIds: [], uploadRefs: [], assetIds: [], slugs: [], outputPaths: [], cursors };
    for (const op of ["listModels", "searchKnowledge", ...Object.keys(PAGED)]) {
      const plan = planFor(op, known);
      if ("skipped" in plan) continue;
      for (const name of singularQueryParameters(plan.operation)) {
        const rule = ruleOf(plan, name, plan.invalidRule);
        const pairs = pairsOf(plan, name);
        if (pairs.length === 0) c.skip([rule], `${op}: ${name} given twice not tried (no valid value of it is known in this run)`);
        for (const pair of pairs) {
          const ex = await c.get(`${plan.operation.path}?${query(name, pair)}`, rule);
          c.target.deliberate(ex);
          judgeAmbiguous(c, rule, ex, name, `${op}: ${name} given twice (${name}=${pair[0]} and ${name}=${pair[1]})`);
        }
      }
    }
    await streamTypes(c);
    await twoCredentials(c);
  },
};

/** `types` of the event stream given twice: the stream must not open. */
async function streamTypes(c: CheckContext): Promise<void> {
  const [a, b] = [...new Set((c.known("models") ?? []).map((m) => String(m.type)))];
  if (!a || !b || !singularQueryParameters(operationById("streamGenerationEvents")).includes("types")) {
    c.skip([STREAM_TYPES_RULE], "types given twice not tried (the catalog has fewer than two types)");
    return;
  }
  const opened = await c.target.openStream({ query: `?${query("types", [a, b])}`, rule: STREAM_TYPES_RULE }, {});
  opened.stream?.close();
  judgeAmbiguous(c, STREAM_TYPES_RULE, opened.exchange, "types", `streamGenerationEvents: types given twice (types=${a} and types=${b})`);
}

/** Two Authorization headers, in both orders, and two keys of two accounts: never served. */
async function twoCredentials(c: CheckContext): Promise<void> {
  const main = `Bearer ${c.apiKey}`;
  const unknown = `Bearer ${unknownKeyLike(c.apiKey)}`;
  const pairs: [string, string, string][] = [
    [main, unknown, "the main key, then an unknown key"],
    [unknown, main, "an unknown key, then the main key"],
  ];
  const second = c.known("secondAccount");
  if (second) pairs.push([main, `Bearer ${second.key}`, "the main key, then the second account's key"]);
  for (const [first, second, what] of pairs) {
    const ex = await c.request({ method: "GET", path: AUTH_PATH, key: null, label: "two credentials", lines: [["authorization", first], ["authorization", second]], rule: "AUTH-1", direct: true });
    c.target.deliberate(ex);
    judgeAmbiguous(c, "AUTH-1", ex, "Authorization", `two Authorization headers (${what})`);
  }
}
