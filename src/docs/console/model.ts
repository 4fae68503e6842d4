// What the try-it panel knows of each operation, worked out from the contract when the docs
// are built (the page carries it as data; nothing here runs in the browser): where the
// operation lives in the reference, its parameters with the contract's examples, its
// request body's examples (one per submit variant), the schema the body is checked
// against, a ready wrong request that provokes the operation's most common refusal, the
// demo keys, and the meanings of the error codes and detail reasons the answers name.
import { deref, errorCodes, operations, schema, type Json, type JsonObject, type Operation } from "../../contract/index.ts";
import { detailReasonMeanings } from "../../contract/tables.ts";
import demoScenario from "../../simulator/scenarios/demo.json" with { type: "json" };
import { errorRows } from "../enrich.ts";
import { referenceOperations } from "../routes.ts";

export interface ConsoleParameter {
  name: string;
  in: "path" | "query" | "header";
  /** The schema's type (`string`, `integer`, ...): how client code writes the value. */
  type: string;
  required: boolean;
  /** The value the field starts with: the contract's example of a required parameter, else empty. */
  value: string;
  /** Shown in the empty field: the contract's example or default. */
  placeholder: string;
}

export interface BodyExample {
  name: string;
  summary: string;
  /** The body as sent (JSON pretty-printed, or a form's `a=b&c=d`). */
  text: string;
}

export type BodyForm = "json" | "form" | "file";

export interface ConsoleBody {
  form: BodyForm;
  /** Media types the body is sent as (the first by default). */
  mediaTypes: string[];
  required: boolean;
  /** The schema component the body is checked against before sending (json and form bodies). */
  schema: string | null;
  examples: BodyExample[];
  /** The requirements' gap on this body, quoted, when they do not show it. */
  notShown: string | null;
}

/** A request that provokes the operation's most common refusal, ready to send. */
export interface WrongRequest {
  /** What is wrong, in words. */
  what: string;
  /** The body to send instead of the first example (json and form bodies). */
  body?: string;
  /** Parameters to send with other values. */
  params?: Record<string, string>;
  /** Send without a credential. */
  noCredential?: boolean;
  /** What the simulator answers to it. */
  status: number;
  code: string;
}

export interface ConsoleOperation {
  /** The operation's element id in the reference (its route without `#/`). */
  id: string;
  operationId: string;
  method: string;
  path: string;
  summary: string;
  /** Security schemes that may call it (`api_key`, `oauth2`, `session_cookie`); empty: none needed. */
  schemes: string[];
  scope: string | null;
  parameters: ConsoleParameter[];
  body: ConsoleBody | null;
  /** How the success answers: JSON, an event stream, a page, or a file. */
  answers: "json" | "event-stream" | "html" | "file";
  wrong: WrongRequest | null;
}

export interface DemoKey {
  secret: string;
  id: string;
  purpose: string;
}

export interface ConsoleModel {
  operations: ConsoleOperation[];
  keys: DemoKey[];
  /** Meaning of each `error.code`. */
  codes: Record<string, string>;
  /** Meaning of each `details[].reason`. */
  reasons: Record<string, string>;
}

/** Headers the panel sets itself (X-Request-Id: the id it reads the verdict by). */
const SET_BY_PANEL = new Set(["x-request-id"]);

const text = (value: Json | undefined) => (value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value));

function parameterOf(p: JsonObject): ConsoleParameter {
  const s = deref(p.schema ?? {});
  const examples = p.examples ? Object.values(p.examples as JsonObject).map((e) => deref(e).value) : [];
  const example = p.example ?? examples[0] ?? (s.examples as Json[] | undefined)?.[0] ?? s.example;
  const required = p.required === true;
  return {
    name: String(p.name),
    in: p.in as ConsoleParameter["in"],
    type: typeof s.type === "string" ? s.type : "string",
    required,
    value: required ? text(example) : "",
    placeholder: text(example ?? s.default),
  };
}

const FORM = "application/x-www-form-urlencoded";

function bodyOf(op: JsonObject): ConsoleBody | null {
  if (!op.requestBody) return null;
  const rb = deref(op.requestBody);
  const content = rb.content as JsonObject;
  const types = Object.keys(content);
  const form: BodyForm = types[0] === "application/json" ? "json" : types[0] === FORM ? "form" : "file";
  const media = content[types[0]!] as JsonObject;
  const ref = (media.schema as JsonObject | undefined)?.$ref;
  const examples = Object.entries((media.examples as JsonObject | undefined) ?? {}).map(([name, raw]) => {
    const e = deref(raw);
    const value = e.value as Json;
    return {
      name,
      summary: String(e.summary ?? name),
      text: form === "form" ? new URLSearchParams(value as Record<string, string>).toString() : JSON.stringify(value, null, 2),
    };
  });
  const gap = (op["x-not-shown"] ?? media["x-not-shown"] ?? rb["x-not-shown"]) as Json | undefined;
  return {
    form,
    mediaTypes: types,
    required: rb.required === true,
    schema: form !== "file" && typeof ref === "string" ? ref.split("/").pop()! : null,
    examples,
    notShown: typeof gap === "string" ? gap : null,
  };
}

function answersOf(op: JsonObject): ConsoleOperation["answers"] {
  const types = Object.entries(op.responses as JsonObject)
    .filter(([status]) => /^[23]/.test(status))
    .flatMap(([, r]) => Object.keys((deref(r).content as JsonObject | undefined) ?? {}));
  if (types.includes("text/event-stream")) return "event-stream";
  if (types.includes("text/html")) return "html";
  if (types.length === 0 || types.includes("application/json")) return "json";
  return "file";
}

/** A word for a small number, so a wrong-type body reads as a person's mistake (`"five"`). */
const WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];

/**
 * A body with its first typed field given a value of another type (a number as a word, a
 * string as a number, a list as one string): the refusal a hand-written request meets first.
 */
function wrongTypeBody(example: Record<string, Json>, schemaName: string): { body: string; field: string } | undefined {
  const root = schema(schemaName);
  const branches = ((root.oneOf as JsonObject[] | undefined) ?? [root]).map((b) => deref(b));
  const branch = branches.find((b) => Object.keys(example).every((k) => k in ((b.properties as JsonObject | undefined) ?? {}))) ?? branches[0]!;
  const properties = (branch.properties as JsonObject | undefined) ?? {};
  // A discriminating constant (a submit's `type`) picks the branch: leave it as it is.
  const keys = Object.keys(example).filter((k) => {
    const s = deref(properties[k] ?? {});
    return !("const" in s) && !(Array.isArray(s.enum) && s.enum.length === 1);
  });
  const order = (k: string) => {
    const v = example[k];
    return typeof v === "number" ? 0 : typeof v === "boolean" ? 1 : Array.isArray(v) ? 2 : typeof v === "string" ? 3 : 4;
  };
  const field = keys.sort((a, b) => order(a) - order(b))[0];
  if (field === undefined) return undefined;
  const v = example[field]!;
  const wrong: Json =
    typeof v === "number" ? (Number.isInteger(v) && v >= 0 && v < WORDS.length ? WORDS[v]! : String(v))
    : typeof v === "boolean" ? (v ? "yes" : "no")
    : Array.isArray(v) ? String(v[0] ?? "")
    : typeof v === "string" ? 5
    : "not an object";
  return { body: JSON.stringify({ ...example, [field]: wrong }, null, 2), field };
}

/**
 * The operation's most common refusal, ready to send: a body field of the wrong type (or
 * a body that is not JSON, where the requirements do not show the body), an OAuth client
 * the server does not know, an id that does not exist, a page size out of bounds, or no
 * credential at all. None for an operation that needs no credential and takes nothing.
 */
function wrongRequestOf(operation: Operation, body: ConsoleBody | null, parameters: ConsoleParameter[]): WrongRequest | null {
  const first = body?.examples[0];
  if (body?.form === "json" && body.schema && first) {
    const wrong = wrongTypeBody(JSON.parse(first.text) as Record<string, Json>, body.schema);
    if (wrong) return { what: `\`${wrong.field}\` of the wrong type`, body: wrong.body, status: 400, code: badBodyCode(operation, wrong.field) };
  }
  if (body?.form === "json" && body.notShown !== null) {
    return { what: "a body that is not JSON", body: "{ title: untitled }", status: 400, code: "invalid_request" };
  }
  if (body?.form === "form" && first) {
    // The OAuth routes authenticate the client first: an unknown one is what they refuse most.
    const fields = new URLSearchParams(first.text);
    fields.set("client_id", "cli_does_not_exist");
    return { what: "a `client_id` this server never registered", body: fields.toString(), status: 401, code: "invalid_client" };
  }
  const id = parameters.find((p) => p.in === "path");
  if (id) {
    const missing = id.value.includes("_") ? `${id.value.split("_")[0]}_does_not_exist` : "does-not-exist";
    return { what: `\`${id.name}\` naming nothing that exists`, params: { [id.name]: missing }, status: 404, code: "not_found" };
  }
  const limit = parameters.find((p) => p.in === "query" && p.name === "limit");
  if (limit) return { what: "`limit=0`, below the page size's bounds", params: { limit: "0" }, status: 400, code: "invalid_limit" };
  if (operation.schemes.length > 0) return { what: "no credential", noCredential: true, status: 401, code: "unauthorized" };
  return null;
}

/**
 * The code a 400 for a bad body carries: `invalid_request` in the envelope; on an OAuth
 * route answering its protocol's form (RFC 7591 registration), the code naming the field
 * (`invalid_redirect_uri` for `redirect_uris`), else the one for the rest of the metadata.
 */
function badBodyCode(operation: Operation, field: string): string {
  const oauth = errorRows(operation.op).filter((r) => r.status === "400" && r.form === "oauth").map((r) => r.code);
  if (oauth.length === 0) return "invalid_request";
  return oauth.find((c) => c.includes(field.replace(/s$/, ""))) ?? oauth.find((c) => c.endsWith("_metadata")) ?? oauth[0]!;
}

/** The panel's model of every operation under `paths` (webhooks are not sent from the page). */
export function consoleModel(): ConsoleModel {
  const routes = new Map(referenceOperations().filter((o) => !o.webhook).map((o) => [o.operationId, o]));
  const list = operations().map((operation): ConsoleOperation => {
    const ref = routes.get(operation.operationId);
    if (!ref) throw new Error(`${operation.operationId}: not in the reference`);
    const parameters = operation.parameters.filter((p) => !SET_BY_PANEL.has(String(p.name).toLowerCase())).map(parameterOf);
    const order = { path: 0, query: 1, header: 2 } as const;
    parameters.sort((a, b) => order[a.in] - order[b.in]);
    const body = bodyOf(operation.op);
    return {
      id: ref.route.slice(2),
      operationId: operation.operationId,
      method: operation.method.toUpperCase(),
      path: operation.path,
      summary: ref.summary,
      schemes: operation.schemes,
      scope: operation.scope,
      parameters,
      body,
      answers: answersOf(operation.op),
      wrong: wrongRequestOf(operation, body, parameters),
    };
  });
  return {
    operations: list,
    keys: demoScenario.keys.map((k) => ({ secret: k.secret, id: k.id, purpose: k.purpose })),
    codes: Object.fromEntries([...errorCodes.values()].map((r) => [r.code, r.meaning])),
    reasons: Object.fromEntries(detailReasonMeanings),
  };
}

/** The schema components the panel checks bodies against, with the `oneOf` branches they choose between. */
export function bodySchemas(model: ConsoleModel): string[] {
  const names = new Set<string>();
  for (const op of model.operations) if (op.body?.schema) names.add(op.body.schema);
  const refs = new Set<string>();
  for (const name of names) {
    refs.add(`#/components/schemas/${name}`);
    const root = schema(name);
    for (const branch of (root.oneOf as JsonObject[] | undefined) ?? []) if (typeof branch.$ref === "string") refs.add(branch.$ref);
  }
  return [...refs].sort();
}
