// What the library does: signs upload tickets, writes their files into assets, finds an
// account's live assets and folders, and forgets what has expired. The records are in
// state/library.ts.
import { bound } from "../../contract/tables.ts";
import type { HubBase } from "../state/base.ts";
import { addAsset, REFERENCE_PREFIX, signatureMs, uploadLifetimeMs, type Asset, type Folder, type UploadTicket } from "../state/library.ts";
import { imageSize } from "../state/media.ts";
import { DEFAULT_FOLDER_LIMIT } from "../state/options.ts";
import type { Timeline } from "../state/timeline.ts";
import { entryOf, isoTime, newList, randomToken } from "../state/util.ts";

/** 40 MiB, read from the contract (UploadRequest.content_length maximum). */
export const UPLOAD_CEILING = bound("UploadRequest", "content_length", "maximum");

export function folderLimit(base: HubBase): number {
  return base.options.folderLimit ?? DEFAULT_FOLDER_LIMIT;
}

// ------------------------------------------------------------------------- tickets

export function issueTicket(base: HubBase, accountId: string, kind: string, contentType: string, contentLength: number): UploadTicket {
  sweepLibrary(base);
  const now = base.clock.now();
  const ticket: UploadTicket = {
    reference: base.ids.next(REFERENCE_PREFIX, now),
    account_id: accountId,
    kind,
    content_type: contentType,
    content_length: contentLength,
    signature: randomToken(24).toLowerCase(),
    created_at: now,
    expires_at: now + signatureMs(base.options),
    asset_id: null,
  };
  base.state.library.tickets.set(ticket.reference, ticket);
  return ticket;
}

/** The headers the PUT must carry exactly (names as the ticket shows them). */
export function ticketHeaders(t: UploadTicket): Record<string, string> {
  return { "Content-Type": t.content_type, "Content-Length": String(t.content_length), "If-None-Match": "*" };
}

export function ticketRecord(t: UploadTicket, base: string): Record<string, unknown> {
  return {
    url: `${base}/storage/${t.reference}?signature=${t.signature}`,
    proxy_path: `/v1/uploads/content?ticket=${t.reference}`,
    headers: ticketHeaders(t),
    reference: t.reference,
    expires_at: isoTime(t.expires_at),
  };
}

/** Writes the ticket's file: the asset is in the library at once. */
export function completeTicket(base: HubBase, t: UploadTicket, bytes: Uint8Array): Asset {
  const now = base.clock.now();
  const size = imageSize(bytes, t.content_type);
  const asset: Asset = {
    id: base.ids.next("ast_", now),
    account_id: t.account_id,
    reference: t.reference,
    kind: t.kind,
    content_type: t.content_type,
    bytes: bytes.slice(),
    width: size?.width ?? null,
    height: size?.height ?? null,
    title: `Untitled ${t.kind}`,
    folder_id: null,
    created_at: now,
    expires_at: now + uploadLifetimeMs(base.options),
  };
  addAsset(base.state.library, asset);
  t.asset_id = asset.id;
  keepNewestAssets(base, t.account_id);
  return asset;
}

/**
 * Forgets the account's oldest uploaded files beyond the retention, with their tickets, as
 * the sweep forgets expired ones: their bytes are what a day of uploads would pile up.
 */
export function keepNewestAssets(base: HubBase, accountId: string): void {
  const store = base.state.library;
  const timeline = store.by_account.get(accountId);
  while (timeline && timeline.size > base.retention.assets) {
    const gone = timeline.shift()!;
    if (store.assets.get(gone.id) === gone) store.assets.delete(gone.id);
    const ticket = store.tickets.get(gone.reference);
    if (ticket?.asset_id === gone.id) store.tickets.delete(gone.reference);
  }
}

/** How often expired assets and tickets are looked for (simulated time). */
const SWEEP_EVERY_MS = 3_600_000;
/** A ticket never written is forgotten this long after its signature expired. */
const UNWRITTEN_TICKET_GRACE_MS = 86_400_000;

/**
 * Forgets, at most once per simulated hour, what can no longer be reached: assets past
 * their `expires_at` (they answer 404 already) with their tickets, and tickets never
 * written whose signature expired a day ago.
 */
export function sweepLibrary(base: HubBase): void {
  const store = base.state.library;
  const now = base.clock.now();
  if (now < store.next_sweep) return;
  store.next_sweep = now + SWEEP_EVERY_MS;
  for (const [id, a] of store.assets) if (!isLive(base, a)) store.assets.delete(id);
  for (const timeline of store.by_account.values()) {
    // Expiry follows creation (one lifetime for all) but for a scenario's own dates: an
    // expired asset behind a live one leaves the timeline when the live one does.
    while (timeline.oldest && !store.assets.has(timeline.oldest.id)) timeline.shift();
  }
  for (const [reference, t] of store.tickets) {
    const gone = t.asset_id === null ? t.expires_at + UNWRITTEN_TICKET_GRACE_MS <= now : !store.assets.has(t.asset_id);
    if (gone) store.tickets.delete(reference);
  }
}

// -------------------------------------------------------------------------- assets

export function isLive(base: HubBase, a: Asset): boolean {
  return a.expires_at > base.clock.now();
}

/** Whether an asset of a timeline is still in the library and lives (what the list shows). */
export function isShown(base: HubBase, a: Asset): boolean {
  return base.state.library.assets.get(a.id) === a && isLive(base, a);
}

/** The account's asset by id, if it exists and still lives; another account's answers undefined. */
export function ownAsset(base: HubBase, accountId: string, id: string): Asset | undefined {
  const a = base.state.library.assets.get(id);
  return a && a.account_id === accountId && isLive(base, a) ? a : undefined;
}

/** The account's assets in creation order, expired ones included (page them with `isShown`). */
export function assetsOf(base: HubBase, accountId: string): Timeline<Asset> | undefined {
  return base.state.library.by_account.get(accountId);
}

export function contentPath(a: Asset): string {
  return `/v1/library/assets/${a.id}/content`;
}

/**
 * The asset record. The seed names `id`, `kind`, size fields, `folder_id`, `expires_at`,
 * a title and the content link in `output_urls`; the size and title names are the
 * simulator's (`size_bytes`, `width`, `height`, `title`), as are `reference`,
 * `content_type` and `created_at`.
 */
export function assetRecord(a: Asset, base: string): Record<string, unknown> {
  return {
    id: a.id,
    kind: a.kind,
    reference: a.reference,
    title: a.title,
    content_type: a.content_type,
    size_bytes: a.bytes.length,
    width: a.width,
    height: a.height,
    folder_id: a.folder_id,
    created_at: isoTime(a.created_at),
    expires_at: isoTime(a.expires_at),
    output_urls: [base + contentPath(a)],
  };
}

// ------------------------------------------------------------------------- folders

export function foldersOf(base: HubBase, accountId: string): Folder[] {
  return entryOf(base.state.library.folders, accountId, newList<Folder>);
}

/** Live items per folder of the account, counted in one pass over its assets. */
export function itemCounts(base: HubBase, accountId: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const a of assetsOf(base, accountId) ?? []) {
    if (a.folder_id !== null && isShown(base, a)) counts.set(a.folder_id, (counts.get(a.folder_id) ?? 0) + 1);
  }
  return counts;
}

export function folderRecord(base: HubBase, f: Folder, position: number, counts = itemCounts(base, f.account_id)): Record<string, unknown> {
  return { id: f.id, name: f.name, position, item_count: counts.get(f.id) ?? 0, created_at: isoTime(f.created_at) };
}
