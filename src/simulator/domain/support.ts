// The support thread: one per account (state.support). It holds the account's own
// messages (POST /v1/support/messages), the answers of support (the control interface
// posts them; with demo data the demo account starts with a welcome message), and shows
// every generation report (state.reports) as the user message it created: the report's
// `message_id` is that message's id. Beyond `retention.supportMessages` items (messages
// and reports together) the oldest go, with what replays them (`client_msg_id`).
import type { HubBase } from "../state/base.ts";
import type { ReportRecord } from "../state/generations.ts";
import { sentKey, type SupportMessage } from "../state/support.ts";
import { entryOf, isoTime, newList } from "../state/util.ts";

export function threadOf(base: HubBase, accountId: string): SupportMessage[] {
  return entryOf(base.state.support.threads, accountId, newList<SupportMessage>);
}

/** The account's reports, oldest first. */
export function reportsOf(base: HubBase, accountId: string): ReportRecord[] {
  return entryOf(base.state.support.reports, accountId, newList<ReportRecord>);
}

export function postSupportReply(base: HubBase, accountId: string, text: string): SupportMessage {
  const now = base.clock.now();
  const message: SupportMessage = { id: base.ids.next("msg_", now), account_id: accountId, from: "support", text, images: [], client_msg_id: null, created_at: now, read: false };
  addMessage(base, message);
  return message;
}

/** Adds a message to its account's thread (a user's, replayable by its `client_msg_id`). */
export function addMessage(base: HubBase, message: SupportMessage): void {
  threadOf(base, message.account_id).push(message);
  if (message.from === "user" && message.client_msg_id !== null) base.state.support.sent.set(sentKey(message.account_id, message.client_msg_id), message);
  keepThread(base, message.account_id);
}

/** Where a report is found again: by its `client_msg_id`, else by its support request id. */
export function reportSlot(accountId: string, clientMsgId: string | null | undefined, supportRequestId: string): string {
  return clientMsgId ? sentKey(accountId, clientMsgId) : supportRequestId;
}

/** Keeps a report (replayable by its `client_msg_id`), in its account's thread. */
export function addReport(base: HubBase, report: ReportRecord): void {
  base.state.reports.set(reportSlot(report.account_id, report.client_msg_id, report.support_request_id), report);
  reportsOf(base, report.account_id).push(report);
  keepThread(base, report.account_id);
}

/** Drops the oldest items of the account's thread (messages and reports) beyond the retention. */
export function keepThread(base: HubBase, accountId: string): void {
  const messages = base.state.support.threads.get(accountId) ?? [];
  const reports = base.state.support.reports.get(accountId) ?? [];
  const { sent } = base.state.support;
  while (messages.length + reports.length > base.retention.supportMessages) {
    const m = messages[0];
    const r = reports[0];
    if (m && (!r || m.created_at <= r.created_at)) {
      messages.shift();
      if (m.client_msg_id !== null) {
        const key = sentKey(accountId, m.client_msg_id);
        if (sent.get(key) === m) sent.delete(key);
      }
    } else if (r) {
      reports.shift();
      const slot = reportSlot(accountId, r.client_msg_id, r.support_request_id);
      if (base.state.reports.get(slot) === r) base.state.reports.delete(slot);
    }
  }
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
