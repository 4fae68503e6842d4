// Support routes: the single thread (read whole; reading marks it read) and sending a
// message (idempotent by `client_msg_id`; up to 3 upload references in `images`).
import { schemaValidator, toDetails, type Detail } from "../../contract/validator.ts";
import { isRefusal, json, readerOf, readJson, type Handler } from "../pipeline/context.ts";
import { refuse } from "../domain/refusal.ts";
import { REFERENCE_PREFIX } from "../state/library.ts";
import { readReference } from "../domain/references.ts";
import { addMessage, messageRecord, reportMessage, reportsOf, threadOf } from "../domain/support.ts";
import { sentKey, type SupportMessage } from "../state/support.ts";

// The thread: the account's messages and its reports, oldest first. Support messages not
// read before come with `unread: true` once; the read marks them read.
const readSupportThread: Handler = (ctx) => {
  const hub = ctx.hub;
  const accountId = ctx.account!.id;
  const rows: { at: number; id: string; record: Record<string, unknown> }[] = [];
  for (const m of threadOf(hub, accountId)) {
    rows.push({ at: m.created_at, id: m.id, record: messageRecord(m, m.from === "support" && !m.read) });
    m.read = true;
  }
  for (const r of reportsOf(hub, accountId)) rows.push({ at: r.created_at, id: r.message_id, record: reportMessage(r) });
  rows.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return json(ctx, 200, { data: rows.map((r) => r.record), next_cursor: null });
};

// Simulator convention: 201 with the message, also for a replay (as a report does).
const sendSupportMessage: Handler = (ctx) => {
  const parsed = readJson(ctx);
  if (isRefusal(parsed)) return parsed;
  const validate = schemaValidator("SupportMessageRequest");
  if (!validate(parsed.value)) return refuse("invalid_request", { details: toDetails(validate.errors) });
  const body = parsed.value as { text: string; images?: string[]; client_msg_id: string };
  const images = body.images ?? [];
  const hub = ctx.hub;
  const accountId = ctx.account!.id;
  const store = hub.state.support;
  const slot = sentKey(accountId, body.client_msg_id);

  // A replay answers the message already sent; text and the number of images are compared.
  const earlier = store.sent.get(slot);
  if (earlier) {
    if (earlier.text !== body.text || earlier.images.length !== images.length) {
      return refuse("support_replay_mismatch", { message: "This client_msg_id was already used for another message (text and number of images compared)." });
    }
    return json(ctx, 201, messageRecord(earlier));
  }

  if (body.text.trim() === "" && images.length === 0) {
    return refuse("invalid_request", { details: [{ field: "text", reason: "required", message: "a message needs text or an image" }] });
  }
  const details: Detail[] = [];
  const reader = readerOf(ctx);
  images.forEach((value, i) => {
    const field = `images.${i}`;
    if (!value.startsWith(REFERENCE_PREFIX)) {
      details.push({ field, reason: "not_allowed", message: `${field} must be an upload reference (from POST /v1/uploads), not a link` });
      return;
    }
    const found = readReference(hub, reader, value, field);
    if ("reason" in found) details.push(found);
  });
  if (details.length > 0) return refuse("invalid_request", { details });

  const now = hub.clock.now();
  const message: SupportMessage = {
    id: hub.ids.next("msg_", now),
    account_id: accountId,
    from: "user",
    text: body.text,
    images: [...images],
    client_msg_id: body.client_msg_id,
    created_at: now,
    read: true,
  };
  addMessage(hub, message);
  return json(ctx, 201, messageRecord(message));
};

export const supportHandlers = { readSupportThread, sendSupportMessage };
