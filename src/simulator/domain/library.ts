// What the library does: signs upload tickets, writes their files into assets, and
// finds an account's live assets and folders. The records are in state/library.ts.
import { bound } from "../../contract/tables.ts";
import type { HubBase } from "../state/base.ts";
import { REFERENCE_PREFIX, signatureMs, uploadLifetimeMs, type Asset, type Folder, type UploadTicket } from "../state/library.ts";
import { imageSize } from "../state/media.ts";
import { DEFAULT_FOLDER_LIMIT } from "../state/options.ts";
import { entryOf, isoTime, newList, randomToken } from "../state/util.ts";

/** 40 MiB, read from the contract (UploadRequest.content_length maximum). */
export const UPLOAD_CEILING = bound("UploadRequest", "content_length", "maximum");

export function folderLimit(base: HubBase): number {
  return base.options.folderLimit ?? DEFAULT_FOLDER_LIMIT;
}

// ------------------------------------------------------------------------- tickets

export function issueTicket(base: HubBase, accountId: string, kind: string, contentType: string, contentLength: number): UploadTicket {
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
  base.state.library.assets.set(asset.id, asset);
  t.asset_id = asset.id;
  return asset;
}

// -------------------------------------------------------------------------- assets

export function isLive(base: HubBase, a: Asset): boolean {
  return a.expires_at > base.clock.now();
}

/** The account's asset by id, if it exists and still lives; another account's answers undefined. */
export function ownAsset(base: HubBase, accountId: string, id: string): Asset | undefined {
  const a = base.state.library.assets.get(id);
  return a && a.account_id === accountId && isLive(base, a) ? a : undefined;
}

export function liveAssets(base: HubBase, accountId: string): Asset[] {
  const out: Asset[] = [];
  for (const a of base.state.library.assets.values()) if (a.account_id === accountId && isLive(base, a)) out.push(a);
  return out;
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

export function folderRecord(base: HubBase, f: Folder, position: number): Record<string, unknown> {
  let items = 0;
  for (const a of base.state.library.assets.values()) if (a.folder_id === f.id && isLive(base, a)) items++;
  return { id: f.id, name: f.name, position, item_count: items, created_at: isoTime(f.created_at) };
}
