// What the properties over every route share: the operations a credential may call, read
// from the contract's security; for each a request that changes nothing even if it were
// served (this account's objects for reads, ids nobody has and an empty body for writes,
// a fresh Idempotency-Key); and how such a request is sent (the event stream is opened
// and closed at once: its opening is the answer).
import { deref, errorCodes, operations, type JsonObject, type Operation } from "../../contract/index.ts";
import { isUnrouted } from "../judge/broken-rule.ts";
import { BEFORE_A_HANDLER } from "../judge/answer-checks/index.ts";
import { propertiesOf } from "./generate/schema.ts";
import { ASSETS, GENERATIONS } from "./objects.ts";
import { kindOf } from "./links.ts";
import { concrete, fakeIds, randomToken } from "./ids.ts";
import { errorCodeOf, type Exchange, type RequestSpec } from "../target/exchange.ts";
import type { AnyFact } from "../facts/learnt.ts";
import { onlyMatches } from "../judge/results.ts";
import { type CheckContext } from "../facts/check.ts";

export const STREAM = "streamGenerationEvents";

/**
 * The `/v1` operations a credential of `scheme` may call (`api_key`, `oauth2`,
 * `session_cookie`), or every `/v1` operation that takes a credential.
 */
export function v1Operations(scheme?: string): Operation[] {
  return operations().filter((op) => op.path.startsWith("/v1/") && (scheme ? op.schemes.includes(scheme) : op.schemes.length > 0));
}

/** The operations only the site session may call: API keys and OAuth tokens get `insufficient_scope` there. */
export function sessionOnlyOperations(): Operation[] {
  return v1Operations("session_cookie").filter((op) => !op.schemes.includes("api_key") && !op.schemes.includes("oauth2"));
}

/** Objects of this account a read can address, so that a read served by mistake answers 2xx, not 404. */
export interface Held {
  generation?: string;
  asset?: string;
  slug?: string;
  /** The path of a result file (`output_urls` as given). */
  output?: string;
}

/** The facts `held` reads: a check that calls it uses them (`needs.uses`). */
export const HELD_FACTS: readonly AnyFact[] = ["ownGenerations", "uploads"];

/** What this run holds of the account: its first generation, the file it uploaded, a result file's path. */
export function held(c: CheckContext, extra: Held = {}): Held {
  const own = c.known("ownGenerations") ?? [];
  const done = own.find((g) => Array.isArray(g.output_urls) && g.output_urls.length > 0);
  const output = done ? c.target.pathOf(String(done.output_urls[0])) : undefined;
  const generation = own.find((g) => typeof g.id === "string")?.id as string | undefined;
  const asset = c.known("uploads").find((u) => u.assetId)?.assetId;
  return { ...(generation ? { generation } : {}), ...(asset ? { asset } : {}), ...(output ? { output } : {}), ...extra };
}

/**
 * A request of `op` that changes nothing even if it were served: a read addresses an
 * object of this account (`held`), so that serving it shows (2xx); a write addresses ids
 * nobody has, with an empty JSON body and a fresh Idempotency-Key where the route takes one.
 */
export function harmless(op: Operation, rule: string, objects: Held = {}): RequestSpec {
  const method = op.method.toUpperCase();
  const read = method === "GET";
  if (read && op.operationId === "downloadGenerationOutput" && objects.output) return { method, path: objects.output, rule };
  const kind = kindOf(op);
  const id = !read ? undefined : kind === GENERATIONS ? objects.generation : kind === ASSETS ? objects.asset : undefined;
  const path = op.path.replace(/\{([^}]+)\}/g, (m, name: string) =>
    name === "id" && id ? encodeURIComponent(id) : name === "slug" && objects.slug ? encodeURIComponent(objects.slug) : name === "id" ? fakeIds(1)[0]! : concrete(m),
  );
  const headers: Record<string, string> = takesIdempotencyKey(op) ? { "idempotency-key": `conformance-property-${randomToken()}` } : {};
  return { method, path, headers, ...(op.op.requestBody ? { json: {} } : {}), rule };
}

function takesIdempotencyKey(op: Operation): boolean {
  return op.parameters.some((p) => p.in === "header" && String(p.name).toLowerCase() === "idempotency-key");
}

/** Sends a request of `op`; the event stream is opened and closed at once (the opening is the answer). */
export async function sendTo(c: CheckContext, op: Operation, spec: RequestSpec): Promise<Exchange> {
  if (op.operationId !== STREAM || spec.path.split("?")[0] !== op.path) return c.request(spec);
  const query = spec.path.includes("?") ? spec.path.slice(spec.path.indexOf("?")) : "";
  const headers = { ...spec.headers, ...(spec.authorization !== undefined ? { authorization: spec.authorization } : {}) };
  const opened = await c.target.openStream({ key: spec.authorization !== undefined ? null : spec.key, ...(spec.label ? { label: spec.label } : {}), query, rule: spec.rule, headers }, {});
  opened.stream?.close();
  return opened.exchange;
}

/** The names a request of `op` gives: its query parameters, headers and body fields (every variant's). */
export function inputNames(op: Operation): Set<string> {
  const names = new Set(op.parameters.filter((p) => p.in !== "path").map((p) => String(p.name).toLowerCase()));
  const body = op.op.requestBody ? deref<JsonObject>(op.op.requestBody as JsonObject) : undefined;
  const schema = ((body?.content as JsonObject | undefined)?.["application/json"] as JsonObject | undefined)?.schema;
  if (schema) {
    const s = deref<JsonObject>(schema);
    const branches = [s, ...(((s.oneOf ?? s.anyOf) as unknown[] | undefined) ?? []).map((b) => deref<JsonObject>(b))];
    for (const b of branches) for (const k of Object.keys(propertiesOf(b))) names.add(k.toLowerCase());
  }
  return names;
}

/**
 * Whether the route's handler acted on the request: a success, a refusal only a handler
 * gives (a business code of the error table), or `invalid_request` whose details name an
 * input of the operation (the body or a parameter was read).
 */
export function served(op: Operation, ex: Exchange): boolean {
  if (ex.status >= 200 && ex.status < 300) return true;
  const code = errorCodeOf(ex.json);
  if (code === undefined || !errorCodes.has(code)) return false;
  if (code !== "invalid_request") return !BEFORE_A_HANDLER.has(code);
  const inputs = inputNames(op);
  const details: unknown[] = Array.isArray(ex.json?.error?.details) ? ex.json.error.details : [];
  return details.some((d) => typeof (d as { field?: unknown })?.field === "string" && inputs.has(String((d as { field: string }).field).split(".")[0]!.toLowerCase()));
}

/**
 * The server does not have the route (EP-4 reports it) or does not offer it now (503
 * `service_unavailable`): the answer says nothing of a property of the route.
 */
export function absent(op: Operation, ex: Exchange): boolean {
  return isUnrouted(op, ex.status) || (ex.status === 503 && errorCodeOf(ex.json) === "service_unavailable");
}

/** Whether `--only` selects the rule (a property sends the requests of the rules selected only). */
export function selects(c: CheckContext, rule: string): boolean {
  const only = c.settings.options.only;
  return !only?.length || onlyMatches(rule, only);
}
