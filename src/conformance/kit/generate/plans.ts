// What the generator sends to each operation of the contract: its path (with real ids
// where the suite has them), query parameters, headers and body variants; the flag a
// request needs; the seed rules a finding is charged to; and the values the schema cannot
// know (model ids from the catalog, ids of objects that exist, the 3D variant's `type`).
// Operations left out say why (`SKIPPED`).
import fc from "fast-check";
import { deref, detailReasons, operationById, schemaValidator, singleValue, toDetails, validateChosen, type Detail, type Json, type JsonObject, type Operation } from "../../../contract/index.ts";
import { anyText, arbitraryOf, pattern, stringOfLength, view, type Path, type Real, type RealValues } from "./schema.ts";
import { type CheckContext } from "../../facts/check.ts";

/** A body variant: one branch of a `oneOf` body (a submit type), or the body's one schema. */
export interface Variant {
  /** Component name (`VideoSubmit`). */
  name: string;
  raw: unknown;
  /** The rule a valid body of this variant is held to. */
  validRule: string;
  /** Why it cannot be sent in this run (no model of its type in the catalog). */
  unavailable?: string;
}

export interface Param {
  name: string;
  in: "query" | "header";
  raw: unknown;
  required: boolean;
  /** The component the parameter is (`PageLimit`). */
  component?: string;
  /** No valid value is known (a cursor before any page was read): sent only with a fault. */
  noValid?: boolean;
}

export interface Plan {
  operation: Operation;
  /** The flag a generated request needs. */
  needs?: "writes" | "spend";
  /** The rule invalid input is charged to, unless a field has its own (`fieldRules`). */
  invalidRule: string;
  /** The rule valid input is held to, unless a field or variant has its own. */
  validRule: string;
  /** Rules by top-level field or parameter name. */
  fieldRules: Record<string, string>;
  /** Concrete paths (path parameters filled in). */
  paths: fc.Arbitrary<string>;
  query: Param[];
  headers: Param[];
  body?: { variants: Variant[]; details(body: Json): Detail[] };
  real: RealValues;
  /** Why the operation is not generated in this run. */
  unavailable?: string;
  /** Runs after each answer: a folder the generator created is deleted again. */
  after?(c: CheckContext, sent: { body?: Json; status: number }): Promise<void>;
  /** Runs once after the operation's cases. */
  finish?(c: CheckContext): Promise<void>;
}

/** Operations the generator does not send, and why. */
export const SKIPPED: Readonly<Record<string, string>> = {
  streamGenerationEvents: "an event stream (its opening, types and Last-Event-ID are checked by the stream checks)",
  completeUpload: "a raw file body for a ticket (checked by the uploads check)",
  changeGenerationTitle: "its body is not shown in the seed",
  changeLibraryAssetTitle: "its body is not shown in the seed",
  resumeSubscription: "a site-session action on the live subscription (checked by the session check)",
  cancelSubscription: "a site-session action on the live subscription (checked by the session check)",
  startCardChange: "a site-session action on the live subscription (checked by the session check)",
  completeCardChange: "a site-session action on the live subscription (checked by the session check)",
  readAuthorizationServerMetadata: "a discovery document without inputs (checked by the OAuth checks)",
  readProtectedResourceMetadata: "a discovery document without inputs (checked by the OAuth checks)",
  authorize: "a browser redirect answering in the OAuth error form (checked by the OAuth checks)",
  exchangeToken: "answers the OAuth error form, not the envelope (checked by the OAuth checks)",
  revokeToken: "answers the OAuth error form, not the envelope (checked by the OAuth checks)",
  registerClient: "answers the OAuth error form, not the envelope (checked by the OAuth checks)",
};

/** Seed rules by operation: invalid input, valid input, and fields with a rule of their own. */
const RULES: Readonly<Record<string, { invalid: string; valid?: string; fields?: Record<string, string>; needs?: "writes" | "spend" }>> = {
  readWhoami: { invalid: "ACC-2" },
  readAccount: { invalid: "ACC-1" },
  listModels: { invalid: "CAT-4", valid: "CAT-4" },
  searchKnowledge: { invalid: "CAT-5", valid: "CAT-5", fields: { limit: "PAGE-3" } },
  readKnowledgeArticle: { invalid: "CAT-5", valid: "CAT-5" },
  listGenerations: { invalid: "PAGE-5", valid: "PAGE-5", fields: { limit: "PAGE-3", cursor: "PAGE-2" } },
  listCreditTransactions: { invalid: "PAGE-5", valid: "PAGE-5", fields: { limit: "PAGE-3", cursor: "PAGE-2" } },
  listLibraryAssets: { invalid: "PAGE-5", valid: "PAGE-5", fields: { limit: "PAGE-3", cursor: "PAGE-2" } },
  listLibraryFolders: { invalid: "PAGE-6", valid: "PAGE-6" },
  readGeneration: { invalid: "W-8", valid: "W-8" },
  downloadGenerationOutput: { invalid: "GEN-5", valid: "GEN-5" },
  readLibraryAssetContent: { invalid: "LIB-1", valid: "LIB-1" },
  readGenerationStatuses: { invalid: "BATCH-1", valid: "BATCH-1" },
  estimatePrice: { invalid: "PRICE-7", valid: "PRICE-2" },
  submitGeneration: { invalid: "SUB-6", fields: { "Idempotency-Key": "SUB-0" }, needs: "spend" },
  readBillingSubscription: { invalid: "BILL-3", valid: "W-7" },
  readSupportThread: { invalid: "SUP-2", valid: "SUP-2", needs: "writes" },
  sendSupportMessage: { invalid: "SUP-3", valid: "SUP-3", needs: "writes" },
  reportGeneration: { invalid: "REP-2", valid: "REP-2", needs: "spend" },
  createLibraryFolder: { invalid: "LIB-3", valid: "LIB-3", needs: "writes" },
  changeLibraryFolder: { invalid: "LIB-4", valid: "LIB-4", needs: "writes" },
  deleteLibraryFolder: { invalid: "LIB-5", valid: "LIB-5", needs: "writes" },
  moveLibraryItems: { invalid: "LIB-6", valid: "LIB-6", needs: "writes" },
  createUpload: { invalid: "UPL-2", valid: "UPL-2", fields: { content_type: "UPL-4", content_length: "UPL-5", kind: "UPL-3" }, needs: "writes" },
};

/** The rule a valid body of a submit variant is held to (the seed's table of that type). */
const VARIANT_RULE: Readonly<Record<string, string>> = { VideoSubmit: "SUB-V", ImageSubmit: "SUB-I", UpscaleSubmit: "SUB-U", Model3dSubmit: "SUB-3D", TextSubmit: "SUB-5" };

/** The rules of one operation's generated inputs (its variants' aside). */
function rulesOf(r: (typeof RULES)[string]): string[] {
  return [r.invalid, r.valid, ...Object.values(r.fields ?? {})].filter((x): x is string => Boolean(x));
}

/** Every rule a generated finding may be charged to (the check's `rules`). */
export function generatedRules(): string[] {
  return [...new Set([...Object.values(RULES).flatMap(rulesOf), ...Object.values(VARIANT_RULE), "SUB-0"])];
}

/**
 * The flag an operation's generated requests need, invalid ones as much as valid ones (a
 * server may wrongly accept an invalid submit, or an invalid write), with the rules they
 * exercise; known before the run has what a plan needs (a folder, a generation of its own).
 */
export function gateOf(operationId: string): { needs: "writes" | "spend"; rules: string[] } | undefined {
  const r = RULES[operationId];
  if (!r?.needs) return undefined;
  return { needs: r.needs, rules: [...new Set([...rulesOf(r), ...(operationId === "submitGeneration" ? [...Object.values(VARIANT_RULE), "SUB-0"] : [])])] };
}

/** A text that says what it is (support messages and reports reach people), then generated characters. */
const NOTICE = "Conformance check (generated input), please ignore: ";

function noticeText(maxLength: number | undefined): fc.Arbitrary<Json> {
  const random = anyText({ maxLength: 60 }).map((t) => NOTICE + t);
  if (maxLength === undefined) return random;
  return fc.oneof({ arbitrary: fc.constant(NOTICE + stringOfLength(maxLength - NOTICE.length)), weight: 1 }, { arbitrary: random, weight: 4 });
}

/** Ids the server cannot know, of a length an id can have. */
const unknownIds = fc.oneof(fc.string({ unit: "grapheme-ascii", minLength: 20, maxLength: 40 }), anyText({ minLength: 1, maxLength: 24 }));

function choose(known: readonly Json[], other?: fc.Arbitrary<Json>): Real {
  return { known: [...known], ...(other ? { other } : {}) };
}

/** The parameters of an operation, as the generator sends them (X-Request-Id stays the suite's own). */
function params(op: Operation): Param[] {
  return op.parameters
    .filter((p) => (p.in === "query" || p.in === "header") && String(p.name).toLowerCase() !== "x-request-id")
    .map((p) => ({ name: String(p.name), in: p.in as "query" | "header", raw: p.schema, required: p.required === true, ...(view(p.schema).name ? { component: view(p.schema).name } : {}) }));
}

function bodyRef(op: Operation): string | undefined {
  const body = op.op.requestBody ? deref(op.op.requestBody as JsonObject) : undefined;
  const json = (body?.content as JsonObject | undefined)?.["application/json"] as JsonObject | undefined;
  const ref = (json?.schema as JsonObject | undefined)?.$ref;
  return typeof ref === "string" ? ref.split("/").pop() : undefined;
}

/** `/v1/generations/{id}` with `id` from `values` (encoded). */
function pathsOf(op: Operation, values: Record<string, fc.Arbitrary<Json>>): fc.Arbitrary<string> {
  const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  if (names.length === 0) return fc.constant(op.path);
  return fc.record(Object.fromEntries(names.map((n) => [n, values[n] ?? unknownIds]))).map((v) => op.path.replace(/\{([^}]+)\}/g, (_m, n: string) => encodeURIComponent(String(v[n]))));
}

/** What the run knows that the schemas cannot: read from earlier checks and a few reads. */
export interface Known {
  models: Record<string, any>[];
  ownIds: string[];
  createdIds: string[];
  uploadRefs: string[];
  assetIds: string[];
  slugs: string[];
  outputPaths: string[];
  cursors: Record<string, string[]>;
  /** A folder of the generator's own (for changes, deletes and moves). */
  folderId?: string;
}

/** The 3D variant's `type` values: types of the catalog's models that no other variant names. */
function otherTypes(known: Known, variantTypes: readonly string[]): string[] {
  return [...new Set(known.models.map((m) => String(m.type)).filter((t) => !variantTypes.includes(t)))];
}

/** Values the schemas cannot know, for one operation. */
function realValues(known: Known, op: Operation): RealValues {
  const id = op.operationId;
  return ({ name, path, s }) => {
    switch (name) {
      case "GenerationIdReference":
        return choose(known.ownIds.filter((x) => x.length >= Number(s.minLength ?? 0) && x.length <= Number(s.maxLength ?? 1e9)), fc.string({ unit: "grapheme-ascii", minLength: Number(s.minLength ?? 1), maxLength: Number(s.maxLength ?? 40) }));
      case "ReferenceUrl":
        return choose(known.uploadRefs, fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 12 }).map((t) => `https://conformance.invalid/${encodeURIComponent(t)}.png`));
    }
    switch (`${id} ${pattern(path)}`) {
      case "readGenerationStatuses ids.*":
        return choose(known.ownIds, unknownIds);
      case "moveLibraryItems item_ids.*":
        return choose(known.assetIds, unknownIds);
      case "moveLibraryItems folder_id":
        return choose([null, ...(known.folderId ? [known.folderId] : [])], unknownIds);
      case "sendSupportMessage images.*":
        return choose(known.uploadRefs, unknownIds);
      case "sendSupportMessage text":
      case "reportGeneration text":
        return choose([NOTICE], noticeText(typeof s.maxLength === "number" ? s.maxLength : undefined));
      case "createUpload kind":
        return choose(["image"], fc.string({ unit: "grapheme-ascii", maxLength: 12 }));
      // The seed signs `image` only: an image's type is one of the table's image types
      // (another kind is refused 503 whatever its type).
      case "createUpload content_type":
        return choose(((s.enum as string[] | undefined) ?? []).filter((t) => t.startsWith("image/")));
      case "createLibraryFolder name":
      case "changeLibraryFolder name":
        return choose([], anyText({ minLength: 1, maxLength: 40 }).map((t) => `conformance-gen ${t}`));
    }
    return undefined;
  };
}

/** The known variants' `type` values (the 3D variant's is not shown: it takes any other). */
function variantType(raw: unknown): string | undefined {
  const value = singleValue(((view(raw).s.properties as JsonObject | undefined) ?? {}).type);
  return typeof value === "string" ? value : undefined;
}

/** The submit variants, each with the catalog's models of its type (none: not sent). */
function submitVariants(known: Known): Variant[] {
  const oneOf = (deref<JsonObject>({ $ref: "#/components/schemas/SubmitRequest" }).oneOf as JsonObject[]).map((b) => ({ raw: b as unknown, name: String(b.$ref).split("/").pop()! }));
  const named = oneOf.map((b) => variantType(b.raw)).filter((t): t is string => t !== undefined);
  return oneOf.map((b) => {
    const types = typesOfVariant(b.raw, known, named);
    const props = (view(b.raw).s.properties as JsonObject | undefined) ?? {};
    const needsModel = props.model !== undefined && view(props.model).name === "SubmitModel";
    const models = known.models.filter((m) => types.includes(String(m.type)));
    const unavailable = types.length === 0 ? "no model of a type other than the known variants' in the catalog (its type value is not shown)" : needsModel && models.length === 0 ? `no ${types.join("/")} model in the catalog` : undefined;
    return { name: b.name, raw: b.raw, validRule: VARIANT_RULE[b.name] ?? "SUB-6", ...(unavailable ? { unavailable } : {}) };
  });
}

function typesOfVariant(raw: unknown, known: Known, named: readonly string[]): string[] {
  const type = variantType(raw);
  return type !== undefined ? [type] : otherTypes(known, named);
}

/** Values for one body variant: a submit's models of its type, and the 3D variant's `type`. */
export function variantValues(plan: Plan, variant: Variant, known: Known): RealValues {
  if (!plan.body || plan.body.variants.length < 2) return plan.real;
  const named = plan.body.variants.map((v) => variantType(v.raw)).filter((t): t is string => t !== undefined);
  const types = typesOfVariant(variant.raw, known, named);
  const models = known.models.filter((m) => types.includes(String(m.type))).map((m) => String(m.id));
  return (field) => {
    if (field.name === "SubmitModel" && models.length > 0) return choose(models);
    if (field.path.length === 1 && field.path[0] === "type" && field.s.not && types.length > 0) return choose(types);
    return plan.real(field);
  };
}

/** The details the contract's own validator gives a body: none for a valid one. */
function detailsFor(schemaName: string): (body: Json) => Detail[] {
  if (schemaName === "SubmitRequest") return (body) => validateChosen(schemaName, body);
  const validate = schemaValidator(schemaName);
  return (body) => (validate(body) ? [] : toDetails(validate.errors));
}

/** The plan of one operation, or why there is none. */
export function planFor(operationId: string, known: Known): Plan | { skipped: string } {
  if (SKIPPED[operationId]) return { skipped: SKIPPED[operationId]! };
  const rules = RULES[operationId];
  if (!rules) return { skipped: "no generation plan for it yet" };
  const operation = operationById(operationId);
  const real = realValues(known, operation);
  const all = params(operation);
  const plan: Plan = {
    operation,
    ...(rules.needs ? { needs: rules.needs } : {}),
    invalidRule: rules.invalid,
    validRule: rules.valid ?? rules.invalid,
    fieldRules: rules.fields ?? {},
    paths: fc.constant(operation.path),
    query: all.filter((p) => p.in === "query"),
    headers: all.filter((p) => p.in === "header" && !/^(if-none-match|last-event-id)$/i.test(p.name)),
    real,
  };
  // Query values the schema cannot know: real cursors (any other is refused as a bad
  // cursor), the catalog's types.
  plan.real = (field) => {
    if (field.name === "PageCursor" && field.path.length === 1) return choose(known.cursors[operationId] ?? []);
    if (field.name === "GenerationType" && field.path.length === 1) return choose([...new Set(known.models.map((m) => String(m.type)))], fc.string({ unit: "grapheme-ascii", maxLength: 12 }));
    return real(field);
  };
  for (const p of plan.query) if (p.component === "PageCursor" && (known.cursors[operationId] ?? []).length === 0) p.noValid = true;
  switch (operationId) {
    case "readGeneration":
      plan.paths = pathsOf(operation, { id: arbitraryOf(choose(known.ownIds, unknownIds)) });
      break;
    case "readKnowledgeArticle":
      plan.paths = pathsOf(operation, { slug: arbitraryOf(choose(known.slugs, unknownIds)) });
      break;
    case "readLibraryAssetContent":
      plan.paths = pathsOf(operation, { id: arbitraryOf(choose(known.assetIds, unknownIds)) });
      break;
    case "downloadGenerationOutput":
      plan.paths = arbitraryOf(choose(known.outputPaths, fc.tuple(unknownIds, fc.constantFrom("image", "video", "conformance"), fc.nat(9)).map(([id, kind, i]) => `/v1/generations/${encodeURIComponent(id)}/outputs/${kind}/${i}`))) as fc.Arbitrary<string>;
      break;
    case "reportGeneration":
      if (known.createdIds.length === 0) return { skipped: "no generation of this run to report on (reports only touch what the run created)" };
      plan.paths = pathsOf(operation, { id: fc.constantFrom(...known.createdIds) });
      break;
    case "changeLibraryFolder":
      if (!known.folderId) return { skipped: "no folder of the generator's own to change" };
      plan.paths = pathsOf(operation, { id: fc.constant(known.folderId) });
      break;
    case "deleteLibraryFolder":
      plan.paths = pathsOf(operation, { id: unknownIds });
      break;
  }
  const schemaName = bodyRef(operation);
  if (schemaName) {
    const details = detailsFor(schemaName);
    if (schemaName === "SubmitRequest") {
      plan.body = { variants: submitVariants(known), details };
    } else {
      plan.body = { variants: [{ name: schemaName, raw: { $ref: `#/components/schemas/${schemaName}` }, validRule: plan.validRule }], details };
    }
  }
  return plan;
}

/** Reasons of the seed's table that only the schema gives (a valid body never earns one). */
export const SCHEMA_REASONS: ReadonlySet<string> = new Set(["wrong_type", "out_of_range", "unknown_field", "required", "not_allowed", "bad_format"].filter((r) => detailReasons.includes(r)));

/** The rule a field of a plan is charged to. */
export function ruleOf(plan: Plan, path: Path | string | undefined, fallback: string): string {
  const top = typeof path === "string" ? path : path?.find((p) => typeof p === "string");
  return (top !== undefined ? plan.fieldRules[top] : undefined) ?? fallback;
}

/**
 * The rule a request the contract refuses is charged to (traffic the suite did not send,
 * judged passively): the field's own rule, else the operation's rule for invalid input
 * (an unknown field of a submit: SUB-0). Undefined for an operation without one.
 */
export function refusalRuleOf(operationId: string, field: string | undefined, reason: string | undefined): string | undefined {
  const rules = RULES[operationId];
  if (!rules) return undefined;
  if (reason === "unknown_field" && operationId === "submitGeneration") return "SUB-0";
  return (field !== undefined ? rules.fields?.[field] : undefined) ?? rules.invalid;
}

/** The details the contract's validator gives an operation's JSON body (none for a valid one), when it takes one. */
export function bodyDetailsOf(op: Operation): ((body: Json) => Detail[]) | undefined {
  const name = bodyRef(op);
  return name ? detailsFor(name) : undefined;
}
