// The support thread: one per account (state.support). It holds the account's own
// messages (POST /v1/support/messages), the answers of support (the control interface
// posts them; with demo data the demo account starts with a welcome message), and shows
// every generation report (state.reports) as the user message it created: the report's
// `message_id` is that message's id.
import type { HubBase } from "../state/base.ts";
import type { ReportRecord } from "../state/generations.ts";
import type { SupportMessage } from "../state/support.ts";
import { entryOf, isoTime, newList } from "../state/util.ts";

export function threadOf(base: HubBase, accountId: string): SupportMessage[] {
  return entryOf(base.state.support.threads, accountId, newList<SupportMessage>);
}

export function postSupportReply(base: HubBase, accountId: string, text: string): SupportMessage {
  const now = base.clock.now();
  const message: SupportMessage = { id: base.ids.next("msg_", now), account_id: accountId, from: "support", text, images: [], client_msg_id: null, created_at: now, read: false };
  threadOf(base, accountId).push(message);
  return message;
}

/**
 * The published message. `unread` is true on a support message the account had not
 * read before this answer (a read of the thread then marks it read).
 */
export function messageRecord(m: SupportMessage, unread = false): Record<string, unknown> {
  const r: Record<string, unknown> = { id: m.id, from: m.from, text: m.text, images: m.images, created_at: isoTime(m.created_at), unread };
  if (m.client_msg_id !== null) r.client_msg_id = m.client_msg_id;
  return r;
}

/** A generation report as the user message it created in the thread. */
export function reportMessage(r: ReportRecord): Record<string, unknown> {
  const m: Record<string, unknown> = {
    id: r.message_id,
    from: "user",
    text: r.text,
    images: [],
    created_at: isoTime(r.created_at),
    unread: false,
    generation_id: r.generation_id,
    support_request_id: r.support_request_id,
    report_reason: r.reason,
  };
  if (r.client_msg_id !== null) m.client_msg_id = r.client_msg_id;
  return m;
}
