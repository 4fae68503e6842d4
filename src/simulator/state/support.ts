// The support thread's records: one thread per account, holding the account's own
// messages and the answers of support. Reports (state.reports) show in it too. Beyond
// `retention.supportMessages` items per account the oldest go (domain/support.ts).
import type { ReportRecord } from "./generations.ts";

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
  /** The reports of each account (also in state.reports), oldest first. */
  reports: Map<string, ReportRecord[]>;
}

/** The key of `sent`: client_msg_id is the account's own, compared without case. */
export function sentKey(accountId: string, clientMsgId: string): string {
  return `${accountId}\n${clientMsgId.toLowerCase()}`;
}

export function emptySupport(): SupportStore {
  return { threads: new Map(), sent: new Map(), reports: new Map() };
}
