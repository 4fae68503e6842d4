// Generations routes: list, submit, batch status, read, title change, result files
// and report. Records have the same shape everywhere (GenerationEngine.record).
import { schemaValidator, toDetails } from "../../contract/validator.ts";
import { chargeFor } from "../domain/charges.ts";
import { baseHeaders, headerOf, isRefusal, json, jsonText, readerOf, readJson, type Ctx, type Handler } from "../pipeline/context.ts";
import { refuse } from "../domain/refusal.ts";
import type { Generation, Step } from "../state/generations.ts";
import { recordLedger } from "../domain/ledger.ts";
import { parseMarkers, stepsFrom } from "../domain/outcomes.ts";
import { readCursor, readLimit } from "../pipeline/paging.ts";
import { nextCursor, pageOf } from "../pipeline/listing.ts";
import { priceOf } from "../domain/pricing.ts";
import { checkSubmit } from "../domain/submit.ts";
import { inputsOf, spendSubmit } from "../domain/references.ts";
import { IDEMPOTENCY_KEY_MAX, lookup, remember } from "../domain/idempotency.ts";
import { addReport } from "../domain/support.ts";
import { sentKey } from "../state/support.ts";

const QUEUED: Step = Object.freeze({ status: "QUEUED", afterMs: 0 });

// Rendered, not cached: most submitted records are never read back in the same state.
function accepted(ctx: Ctx, gen: Generation) {
  return json(ctx, 202, ctx.hub.generations.record(gen, ctx.baseUrl), { location: `${ctx.basePath}/v1/generations/${gen.id}` });
}

// Newest first by creation time, then id; the cursor names the last record returned.
const listGenerations: Handler = (ctx) => {
  const limit = readLimit(ctx.query);
  if (isRefusal(limit)) return limit;
  const hub = ctx.hub;
  const after = readCursor(ctx.query, hub.state.epoch);
  if (isRefusal(after)) return after;
  const { items, more } = pageOf(hub.state.by_account.get(ctx.account!.id), after, limit, listed);
  // The body is joined once from its parts (one flat string: no copy of nested pieces later).
  const parts: string[] = ['{"data":['];
  for (let i = 0; i < items.length; i++) {
    if (i > 0) parts.push(",");
    parts.push(hub.generations.recordText(items[i]!, ctx.baseUrl));
  }
  const next = nextCursor(hub.state.epoch, items, more);
  parts.push('],"next_cursor":', next === null ? "null" : JSON.stringify(next), "}");
  return jsonText(ctx, 200, parts.join(""));
};

const listed = (g: Generation) => !g.deleted;

const submitGeneration: Handler = (ctx) => {
  const hub = ctx.hub;
  const account = ctx.account!;
  const credential = ctx.credential!;
  const idempotencyKey = headerOf(ctx, "idempotency-key");
  if (idempotencyKey === undefined || idempotencyKey === "") {
    return refuse("invalid_request", { details: [{ field: "Idempotency-Key", reason: "required", message: "Idempotency-Key is required" }] });
  }
  if (idempotencyKey.length > IDEMPOTENCY_KEY_MAX) {
    return refuse("invalid_request", { details: [{ field: "Idempotency-Key", reason: "out_of_range", message: `Idempotency-Key is longer than ${IDEMPOTENCY_KEY_MAX} characters` }] });
  }
  const parsed = readJson(ctx);
  if (isRefusal(parsed)) return parsed;

  // A replay answers the stored record at its current status: before the plan, the
  // quotas and the balance are looked at, and without spending any of them.
  const stored = lookup(hub.state, account.id, idempotencyKey, parsed.value, parsed.text, hub.clock.now() - hub.retention.idempotencySeconds * 1000);
  if (stored.kind === "replay") return accepted(ctx, stored.generation);
  if (stored.kind === "conflict") return refuse("duplicate_key_conflict", { message: "This Idempotency-Key was already used with a different body." });

  const checked = checkSubmit(parsed.value, hub.state.models, account);
  if (isRefusal(checked)) return checked;
  if (!account.plan.paid) return refuse("payment_required");
  const markers = parseMarkers(checked.body.prompt);
  if (markers.blocked) return refuse("moderation_blocked");

  const limits = hub.limiter.config;
  const busy = hub.generations.inProgress(account.id);
  if (busy.size >= limits.concurrency) {
    return refuse("rate_limited", {
      message: `All ${limits.concurrency} generation slots are busy; wait for one to finish.`,
      details: [{ reason: "concurrency", message: "busy slots", scope: "account", limit: limits.concurrency, current: busy.size }],
      retryAfter: hub.generations.secondsUntilOneEnds(busy),
    });
  }

  // The files the body names are read and measured (references.ts); a refusal from here
  // on has required reference processing and spends submit quota (seed, Limits).
  const inputs = inputsOf(hub, readerOf(ctx), checked.body);
  if (isRefusal(inputs)) return spendSubmit(hub.limiter, account.id, undefined, inputs);
  const price = priceOf(checked.model, checked.body, inputs);
  const charge = chargeFor(account, checked.type, checked.body, price);
  if (isRefusal(charge)) return spendSubmit(hub.limiter, account.id, inputs, charge);
  const key = credential.key;
  if (key && key.spend_limit_cc !== null && (key.spent_cc >= key.spend_limit_cc || key.spent_cc + charge.charged_cc > key.spend_limit_cc)) {
    return spendSubmit(hub.limiter, account.id, inputs, refuse("key_spend_limit_reached"));
  }
  const otherLimit = credential.spendRefusal?.(charge.charged_cc);
  if (otherLimit) return spendSubmit(hub.limiter, account.id, inputs, otherLimit);

  const window = hub.limiter.takeSubmit(account.id, true);
  if (!window.ok) {
    return refuse("rate_limited", {
      message: `The submit window allows ${limits.submitQuota} submits per ${limits.windowSeconds} s.`,
      details: [{ reason: "submit_rate", message: "submit window exhausted", scope: "account", limit: limits.submitQuota, current: window.current }],
      retryAfter: window.reset,
      retryAfterInBody: true,
    });
  }

  const steps: Step[] = [QUEUED];
  for (const step of stepsFrom("QUEUED", markers.outcome, checked.type, hub.timing) ?? []) steps.push(step);
  const gen = hub.generations.create({
    account,
    keyId: credential.keyId,
    type: checked.type,
    model: checked.model.id,
    output: checked.model.output,
    body: checked.body,
    steps,
    charged_cc: charge.charged_cc,
    free_quota: charge.free_quota,
    idempotencyKey,
  });
  if (charge.charged_cc > 0) {
    account.balance_cc -= charge.charged_cc;
    if (key) key.spent_cc += charge.charged_cc;
    recordLedger(hub, account.id, -charge.charged_cc, gen.id, "generation");
  }
  const row = charge.free_quota >= 0 ? account.free_quotas[charge.free_quota] : undefined;
  if (row && row.remaining !== null) row.remaining--;
  remember(hub.state, account.id, idempotencyKey, parsed.text, gen);
  return accepted(ctx, gen);
};

const readGenerationStatuses: Handler = (ctx) => {
  const parsed = readJson(ctx);
  if (isRefusal(parsed)) return parsed;
  const validate = schemaValidator("GenerationStatusRequest");
  if (!validate(parsed.value)) {
    const details = toDetails(validate.errors);
    const tooMany = details.find((d) => d.field === "ids" && d.reason === "out_of_range");
    // More than 50 ids is `invalid_limit`, and the list is never trimmed.
    if (tooMany) return refuse("invalid_limit", { details: [tooMany] });
    return refuse("invalid_request", { details });
  }
  const ids = [...new Set((parsed.value as { ids: string[] }).ids)];
  const records: string[] = [];
  for (const id of ids) {
    const gen = ctx.hub.generations.visible(ctx.account!.id, id);
    if (gen) records.push(ctx.hub.generations.recordText(gen, ctx.baseUrl));
  }
  return jsonText(ctx, 200, `{"data":[${records.join(",")}],"next_cursor":null}`);
};

const readGeneration: Handler = (ctx) => {
  const gen = ctx.hub.generations.visible(ctx.account!.id, ctx.params.id!);
  if (!gen) return refuse("not_found", { message: "No such generation." });
  return jsonText(ctx, 200, ctx.hub.generations.recordText(gen, ctx.baseUrl));
};

// Simulator convention (the seed does not show the bodies): any JSON object is
// accepted; a string `title` in it becomes the record's title; the answer is 200
// with the record.
const changeGenerationTitle: Handler = (ctx) => {
  const parsed = readJson(ctx);
  if (isRefusal(parsed)) return parsed;
  const body = parsed.value;
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return refuse("invalid_request", { details: [{ reason: "wrong_type", message: "the body must be a JSON object" }] });
  }
  const gen = ctx.hub.generations.visible(ctx.account!.id, ctx.params.id!);
  if (!gen) return refuse("not_found", { message: "No such generation." });
  const title = (body as Record<string, unknown>).title;
  if (typeof title === "string") ctx.hub.generations.setTitle(gen, title);
  return jsonText(ctx, 200, ctx.hub.generations.recordText(gen, ctx.baseUrl));
};

// Result files go only to a credential of the owning account; anything else answers
// 404 exactly like a missing id.
const downloadGenerationOutput: Handler = (ctx) => {
  const { id, kind, index } = ctx.params as { id: string; kind: string; index: string };
  const gen = ctx.hub.generations.visible(ctx.account!.id, id);
  const n = /^(0|[1-9][0-9]{0,3})$/.test(index) ? Number(index) : -1;
  if (!gen || gen.status !== "DONE" || gen.output_kind !== kind || n < 0 || n >= gen.output_count) {
    return refuse("not_found", { message: "No such result file." });
  }
  const file = ctx.hub.assets(kind);
  if (!file) return refuse("service_unavailable", { message: "Result files are not available in this simulator." });
  return {
    kind: "body",
    status: 200,
    headers: {
      ...baseHeaders(ctx),
      "content-type": file.contentType,
      "content-disposition": `inline; filename="${gen.id}-${n}.${file.fileName.split(".").pop()}"`,
    },
    body: file.bytes,
  };
};

const reportGeneration: Handler = (ctx) => {
  const parsed = readJson(ctx);
  if (isRefusal(parsed)) return parsed;
  const validate = schemaValidator("GenerationReportRequest");
  if (!validate(parsed.value)) return refuse("invalid_request", { details: toDetails(validate.errors) });
  const body = parsed.value as { text: string; reason?: string; client_msg_id?: string };
  const reason = body.reason ?? "failure";
  const hub = ctx.hub;
  const account = ctx.account!;
  const earlier = body.client_msg_id ? hub.state.reports.get(sentKey(account.id, body.client_msg_id)) : undefined;
  if (earlier) {
    if (earlier.text !== body.text || earlier.reason !== reason) return refuse("report_replay_mismatch");
    return json(ctx, 201, { support_request_id: earlier.support_request_id, message_id: earlier.message_id });
  }
  const gen = hub.generations.visible(account.id, ctx.params.id!);
  if (!gen) return refuse("not_found", { message: "No such generation." });
  if (reason === "failure" && (gen.charged_cc === 0 || gen.refunded)) return refuse("generation_already_settled");
  // A moderation report revokes the generation, except one held for review.
  if (reason === "moderation" && gen.status !== "MODERATION_PENDING") hub.generations.revoke(gen);
  const now = hub.clock.now();
  const report = {
    account_id: account.id,
    generation_id: gen.id,
    client_msg_id: body.client_msg_id ?? null,
    text: body.text,
    reason,
    support_request_id: hub.ids.next("sr_", now),
    message_id: hub.ids.next("msg_", now),
    created_at: now,
  };
  addReport(hub, report);
  return json(ctx, 201, { support_request_id: report.support_request_id, message_id: report.message_id });
};

export const generationsHandlers = {
  listGenerations,
  submitGeneration,
  readGenerationStatuses,
  readGeneration,
  changeGenerationTitle,
  downloadGenerationOutput,
  reportGeneration,
};
