// The support thread: one per account, kept in `hub.state.extensions` under "support".
// It holds the account's own messages (POST /v1/support/messages), the answers of
// support (the control interface posts them; with demo data the demo account starts with
// a welcome message), and shows every generation report (`hub.state.reports`) as the
// user message it created: the report's `message_id` is that message's id.
import type { Hub } from "../hub.ts";
import type { ReportRecord } from "../state/hub-state.ts";
import { entryOf, isoTime, newList } from "../state/util.ts";

export interface SupportMessage {
  id: string;
  account_id: string;
  from: "user" | "support";
  text: string;
  images: string[];
  client_msg_id: string | null;
  created_at: number;
  /** Support messages: seen by a read of the thread. User messages are always read. */
  read: boolean;
}

export interface SupportStore {
  /** By account, oldest first. */
  threads: Map<string, SupportMessage[]>;
  /** By `<account>\n<client_msg_id in lower case>`. */
  sent: Map<string, SupportMessage>;
}

const KEY = "support";

export function support(hub: Hub): SupportStore {
  let store = hub.state.extensions.get(KEY) as SupportStore | undefined;
  if (!store) {
    store = { threads: new Map(), sent: new Map() };
    hub.state.extensions.set(KEY, store);
    if (hub.options.demoData ?? true) {
      const at = hub.clock.now() - 6 * 3_600_000;
      store.threads.set("acc_demo", [{
        id: hub.ids.next("msg_", at),
        account_id: "acc_demo",
        from: "support",
        text: "Welcome to the Generation Hub simulator. Messages you send appear here; answers of support are posted through POST /_sim/accounts/{id}/support.",
        images: [],
        client_msg_id: null,
        created_at: at,
        read: false,
      }]);
    }
  }
  return store;
}

export function threadOf(hub: Hub, accountId: string): SupportMessage[] {
  return entryOf(support(hub).threads, accountId, newList<SupportMessage>);
}

export function sentKey(accountId: string, clientMsgId: string): string {
  return `${accountId}\n${clientMsgId.toLowerCase()}`;
}

export function postSupportReply(hub: Hub, accountId: string, text: string): SupportMessage {
  const now = hub.clock.now();
  const message: SupportMessage = { id: hub.ids.next("msg_", now), account_id: accountId, from: "support", text, images: [], client_msg_id: null, created_at: now, read: false };
  threadOf(hub, accountId).push(message);
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
