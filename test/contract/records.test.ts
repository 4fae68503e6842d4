// Each record of the seed, field by field: the fields its table (or its "Fields named"
// sentence) lists are in the schema, with the type the seed gives where it gives one.
import { describe, expect, it } from "vitest";
import { deref, operationById, schema, schemaValidator, type JsonObject } from "../../src/contract/index.ts";
import { backticked, section, tableAfter } from "../support/seed.ts";

/** The schema of a dotted field (`breakdown.units`, `free_quotas[].mode`, `error.reason`) in a record. */
function fieldSchema(record: string, dotted: string): JsonObject | undefined {
  let node: JsonObject | undefined = deref<JsonObject>(schema(record));
  for (const part of dotted.split(".")) {
    const name = part.replace(/\[\]$/, "");
    node = node && deref<JsonObject>((node.properties as JsonObject | undefined)?.[name]);
    if (node && part.endsWith("[]")) node = deref<JsonObject>(node.items);
  }
  return node;
}

const seedType: Record<string, (s: JsonObject) => boolean> = {
  string: (s) => s.type === "string" || typeof s.const === "string" || (Array.isArray(s.type) && s.type.includes("string")) || Boolean(s.$ref && deref<JsonObject>(s).type === "string"),
  integer: (s) => s.type === "integer" || deref<JsonObject>(s).type === "integer",
  number: (s) => s.type === "number",
  boolean: (s) => s.type === "boolean",
  object: (s) => s.type === "object",
  enum: (s) => Array.isArray(s.enum) || Array.isArray(deref<JsonObject>(s).enum) || Array.isArray(deref<JsonObject>(s).anyOf),
  "array of strings": (s) => s.type === "array" && deref<JsonObject>(s.items).type === "string",
  array: (s) => s.type === "array",
  "string or null": (s) =>
    (Array.isArray(s.type) && s.type.includes("string") && s.type.includes("null")) ||
    (Array.isArray(s.anyOf) && s.anyOf.some((b) => deref<JsonObject>(b).type === "null") && s.anyOf.some((b) => deref<JsonObject>(b).type === "string")),
  "UUID string": (s) => deref<JsonObject>(s).format === "uuid",
  "UUID string, optional": (s) => deref<JsonObject>(s).format === "uuid",
};

/** Field | Type | Rule tables of the seed, checked against a record schema. */
const tables: { id: string; record: string; heading: string; marker?: string }[] = [
  { id: "GEN-1", record: "GenerationRecord", heading: "Generation record" },
  { id: "EVT-1", record: "GenerationStatusChanged", heading: "Generation event (SSE `data` of `generation.status_changed`)" },
  { id: "EVT-2", record: "StreamReset", heading: "Stream reset (SSE `data` of `reset`)" },
  { id: "ACC-2", record: "WhoamiRecord", heading: "Whoami record (`GET /v1/whoami`)" },
  { id: "UPL-1", record: "UploadTicket", heading: "Upload ticket (`POST /v1/uploads` reply)" },
  { id: "PRICE-1", record: "PriceEstimate", heading: "Price estimate (`POST /v1/pricing/estimate` reply)" },
  { id: "BILL-1", record: "CreditTransaction", heading: "Credit transaction (`GET /v1/billing/transactions`)" },
  { id: "SUP-1", record: "SupportMessage", heading: "Support message" },
  { id: "REP-2", record: "GenerationReportRequest", heading: "POST /v1/generations/{id}/report", marker: "| Field |" },
  { id: "PAGE-1", record: "GenerationPage", heading: "Collection envelope" },
];

describe("GEN-1 EVT-1 EVT-2 ACC-2 UPL-1 PRICE-1 BILL-1 SUP-1 REP-2 PAGE-1: records have the fields of the seed's tables", () => {
describe.each(tables)("$id: $record", ({ id, record, heading, marker }) => {
  const rows = tableAfter(section(heading), marker ?? "| Field |");
  it.each(rows.map((r) => [r[0]!, r[1]!] as const))(`${id}: %s (%s)`, (field, type) => {
    // `title`'s exact field name is not shown: the record records the gap instead.
    if (record === "GenerationRecord" && field === "title") {
      expect(String(deref<JsonObject>(schema(record))["x-not-shown"])).toContain("Its exact field name is not shown.");
      return;
    }
    const s = fieldSchema(record, field);
    expect(s, `${record}.${field}`).toBeDefined();
    const check = seedType[type];
    if (check) expect(check(s!), `${record}.${field} is ${type}: ${JSON.stringify(s)}`).toBe(true);
  });
});
});

/** Records the seed describes by "Fields named: ..." or a two-column table. */
describe("named fields", () => {
  const named = (heading: string) => backticked(section(heading).split("Fields named:")[1]!.split(". ")[0]!);

  it("CAT-1: the model record has every named field", () => {
    expect(named("Model record (`GET /v1/models`)")).not.toHaveLength(0);
    for (const f of named("Model record (`GET /v1/models`)")) expect(fieldSchema("ModelRecord", f), f).toBeDefined();
  });
  it("ACC-1: the account record has every named field", () => {
    // `remaining` and `mode` are named as fields of each `free_quotas[]` row; `mode: unlimited` is a value.
    expect(named("Account record (`GET /v1/me`)").filter((f) => /^[a-z_.[\]]+$/.test(f))).not.toHaveLength(0);
    for (const f of named("Account record (`GET /v1/me`)").filter((f) => /^[a-z_.[\]]+$/.test(f))) {
      const path = f === "remaining" || f === "mode" ? `free_quotas[].${f}` : f;
      expect(fieldSchema("AccountRecord", path), path).toBeDefined();
    }
    expect(fieldSchema("AccountRecord", "limits.submissions")).toBeDefined();
    expect(fieldSchema("AccountRecord", "limits.concurrency")).toBeDefined();
    const params = operationById("readAccount").parameters.filter((p) => p.in !== "header");
    expect(params).toEqual([]);
  });
  it("CAT-3: articles have `lang` and `slug`", () => {
    expect(fieldSchema("KnowledgeArticle", "lang")).toBeDefined();
    expect(fieldSchema("KnowledgeArticle", "slug")).toBeDefined();
  });
  it("LIB-1 LIB-2: assets and folders have the named fields", () => {
    const rows = tableAfter(section("Library asset and folder"), "| Record |");
    const asset = backticked(rows.find((r) => r[0] === "Asset")![1]!).filter((f) => !f.startsWith("GET"));
    expect(asset).not.toHaveLength(0);
    for (const f of asset) expect(fieldSchema("AssetRecord", f), f).toBeDefined();
    expect(backticked(rows.find((r) => r[0] === "Folder")![1]!)).not.toHaveLength(0);
    for (const f of backticked(rows.find((r) => r[0] === "Folder")![1]!)) expect(fieldSchema("FolderRecord", f), f).toBeDefined();
    expect(String(deref<JsonObject>(schema("AssetRecord"))["x-not-shown"])).toContain("size fields and of the title field");
  });
  it("BILL-2: the subscription record has the named fields; amounts are whole units", () => {
    const text = section("Billing subscription (`GET /v1/billing/subscription`)");
    expect(backticked(text.split("Fields:")[1]!.split(".")[0]!)).not.toHaveLength(0);
    for (const f of backticked(text.split("Fields:")[1]!.split(".")[0]!)) expect(fieldSchema("BillingSubscription", f), f).toBeDefined();
    expect(fieldSchema("BillingSubscription", "amount")!.type).toBe("integer");
  });
  it("REP-1: the report reply has support_request_id and message_id", () => {
    expect(deref<JsonObject>(schema("GenerationReportReply")).required).toEqual(backticked(section("Report reply")).slice(0, 2));
  });
});

/**
 * The fields the seed names as fields of a record are required (records stay open to
 * others); what the seed makes conditional or does not show stays optional, each for the
 * reason quoted here.
 */
describe("named fields are required", () => {
  const requiredAt = (record: string, dotted: string): boolean => {
    const parts = dotted.split(".");
    const name = parts.pop()!.replace(/\[\]$/, "");
    const parent = parts.length ? fieldSchema(record, parts.join(".")) : deref<JsonObject>(schema(record));
    return ((parent?.required as string[] | undefined) ?? []).includes(name);
  };
  const conditional: Record<string, string> = {
    "GenerationRecord.output_urls": "`output_urls` and `refunded` appear", // required once DONE (below)
    "GenerationRecord.refunded": "present once a refund applies",
    "GenerationRecord.error.reason": "Why a FAILED generation failed", // required when FAILED (GEN-7)
    "GenerationRecord.title": "Its exact field name is not shown.",
    "SupportMessage.images": "On send: up to 3 upload",
    "SupportMessage.client_msg_id": "Chosen by the caller",
  };
  const cases: [string, string, string[]][] = [
    ["CAT-1", "ModelRecord", ["id", "type", "constraints", "pricing", "prompt_limit", "prompt_expansion_modes", "default_prompt_expansion", "has_seed"]],
    ["ACC-1", "AccountRecord", ["plan", "plan.id", "credits", "credits.main_cc", "free_quotas", "free_quotas[].remaining", "free_quotas[].mode", "limits", "limits.submissions", "limits.concurrency"]],
    ["LIB-1", "AssetRecord", ["id", "kind", "folder_id", "expires_at", "output_urls"]],
    ["LIB-2", "FolderRecord", ["id", "name", "position"]],
    ["BILL-2", "BillingSubscription", ["status", "amount", "recurrent_amount", "currency", "next_payment_at", "cancelled_at"]],
    ...tables.filter((t) => t.record !== "GenerationReportRequest").map(({ id, record, heading }) =>
      [id, record, tableAfter(section(heading), "| Field |").map((r) => r[0]!)] as [string, string, string[]]),
  ];
  it.each(cases)("%s: %s requires the fields the seed names, except the conditional ones", (_id, record, fields) => {
    expect(fields).not.toHaveLength(0);
    for (const f of fields) {
      const why = conditional[`${record}.${f}`];
      if (why) {
        expect(section(record === "SupportMessage" ? "Support message" : "Generation record") + section("States and transitions"), f).toContain(why);
        // The record holds `error` only when FAILED; inside it, `reason` is required.
        const holder = f === "error.reason" ? "error" : f;
        if (f !== "title") expect(requiredAt(record, holder), `${record}.${holder} is conditional`).toBe(false);
      } else {
        expect(requiredAt(record, f), `${record}.${f} is required`).toBe(true);
      }
    }
  });
  it("CAT-1 ACC-1: a model without pricing, or an account without free_quotas, is refused", () => {
    const model = { id: "m", type: "video", constraints: {}, pricing: [], prompt_limit: 10, prompt_expansion_modes: [], default_prompt_expansion: "disabled", has_seed: false };
    expect(schemaValidator("ModelRecord")(model)).toBe(true);
    const { pricing: _p, ...noPricing } = model;
    expect(schemaValidator("ModelRecord")(noPricing)).toBe(false);
    const account = { plan: { id: "p" }, credits: { main_cc: 0 }, free_quotas: [{ remaining: 1, mode: "queue" }], limits: { submissions: {}, concurrency: {} } };
    expect(schemaValidator("AccountRecord")(account)).toBe(true);
    const { free_quotas: _f, ...noQuotas } = account;
    expect(schemaValidator("AccountRecord")(noQuotas)).toBe(false);
    expect(schemaValidator("AccountRecord")({ ...account, extra_field: 1 })).toBe(true);
  });
  it("ST-4 GEN-5: a DONE record carries output_urls; a record in progress need not", () => {
    const validate = schemaValidator("GenerationRecord");
    expect(validate({ id: "g", type: "video", status: "DONE" })).toBe(false);
    expect(validate({ id: "g", type: "video", status: "DONE", output_urls: [] })).toBe(true);
    expect(validate({ id: "g", type: "video", status: "RUNNING" })).toBe(true);
  });
});

describe("values the seed states", () => {
  it("GEN-2: ids used as draft or extend ids are 20 to 40 characters", () => {
    expect(section("Generation record")).toContain("are strings of 20 to 40 characters");
    expect(schema("GenerationIdReference")).toMatchObject({ type: "string", minLength: 20, maxLength: 40 });
  });
  it("GEN-3: `type` is an open string (the full set is not shown)", () => {
    const t = schema("GenerationType");
    expect(t.type).toBe("string");
    expect(t.enum).toBeUndefined();
    expect(schemaValidator("GenerationType")("some-future-type")).toBe(true);
  });
  it("GEN-6 ST-4: a record may carry `refunded` and `output_urls` after a late result", () => {
    const validate = schemaValidator("GenerationRecord");
    expect(validate({ id: "g", type: "video", status: "DONE", refunded: true, output_urls: ["http://x/v1/generations/g/outputs/video/0"] })).toBe(true);
  });
  it("REP-2: the report text is required and up to 2000 characters; reason defaults to failure", () => {
    const validate = schemaValidator("GenerationReportRequest");
    expect(validate({ text: "a".repeat(2000) })).toBe(true);
    expect(validate({ text: "a".repeat(2001) })).toBe(false);
    expect(validate({ reason: "failure" })).toBe(false);
    expect(validate({ text: "x", reason: "spam" })).toBe(false);
    expect(validate({ text: "x", client_msg_id: "not-a-uuid" })).toBe(false);
    expect(validate({ text: "x", extra: 1 })).toBe(false);
    expect(((deref<JsonObject>(schema("GenerationReportRequest")).properties as JsonObject).reason as JsonObject).default).toBe("failure");
  });
  it("REP-5: the report reply has no credit field", () => {
    expect(Object.keys(deref<JsonObject>(schema("GenerationReportReply")).properties as JsonObject).some((k) => k.endsWith("_cc"))).toBe(false);
  });
});

describe("SUBS-1 SUBS-2 SUBS-3 SUBS-4: subscription actions", () => {
  const rows = tableAfter(section("Site-only subscription actions (session cookie only)"), "| Path |");
  const cases = [
    ["SUBS-1", "/v1/subscription/resume", "resumeSubscription", undefined, "SubscriptionResumeReply"],
    ["SUBS-2", "/v1/subscription/cancel", "cancelSubscription", "SubscriptionCancelRequest", "SubscriptionCancelReply"],
    ["SUBS-3", "/v1/subscription/card-change", "startCardChange", undefined, "CardChangeReply"],
    ["SUBS-4", "/v1/subscription/card-change/complete", "completeCardChange", "CardChangeCompleteRequest", "CardChangeCompleteReply"],
  ] as const;
  it.each(cases)("%s: %s takes and answers the seed's fields", (_id, path, operationId, request, reply) => {
    const row = rows.find((r) => r[0]!.includes(`\`${path}\``))!;
    const replyFields = backticked(row[2]!);
    expect(replyFields).not.toHaveLength(0);
    for (const f of replyFields) expect(fieldSchema(reply, f), `${reply}.${f}`).toBeDefined();
    const op = operationById(operationId);
    if (request) {
      expect(backticked(row[1]!)).not.toHaveLength(0);
      for (const f of backticked(row[1]!)) expect(fieldSchema(request, f), `${request}.${f}`).toBeDefined();
    } else {
      expect(row[1]).toBe("none shown");
      expect(op.op.requestBody).toBeUndefined();
      expect(op.op["x-not-shown"]).toBe("none shown");
    }
  });
});
