// The library and its uploads: upload tickets, the files written through them (assets),
// and folders. Kept in `hub.state.extensions` under "library", so a reset clears it;
// with demo data the demo account starts with two folders and one uploaded image.
//
// An upload ticket (POST /v1/uploads) is written exactly once, by a direct PUT to its
// storage `url` (storage.ts) or through `PUT /v1/uploads/content`; the written file is
// an asset in the library at once, and the ticket's `reference` names it in generation
// requests and support messages until the asset's `expires_at`.
import { bound } from "../../contract/index.ts";
import type { Hub } from "../hub.ts";
import { imageSize } from "../state/media.ts";
import { entryOf, isoTime, newList, randomToken } from "../state/util.ts";

/** 40 MiB, read from the contract (UploadRequest.content_length maximum). */
export const UPLOAD_CEILING = bound("UploadRequest", "content_length", "maximum");

export const DEFAULT_FOLDER_LIMIT = 50;
export const DEFAULT_UPLOAD_LIFETIME_DAYS = 30;
export const DEFAULT_SIGNATURE_SECONDS = 900;

/** Upload references and ticket ids: `upl_` and a time-ordered id. */
export const REFERENCE_PREFIX = "upl_";

export interface UploadTicket {
  /** Also the ticket's id in its storage address and in `proxy_path`. */
  reference: string;
  account_id: string;
  kind: string;
  content_type: string;
  content_length: number;
  signature: string;
  created_at: number;
  /** Expiry of the signature only (the ticket's `expires_at`). */
  expires_at: number;
  /** Set once the ticket is written. */
  asset_id: string | null;
}

export interface Asset {
  id: string;
  account_id: string;
  reference: string;
  kind: string;
  content_type: string;
  bytes: Uint8Array;
  /** Measured when written; null when the bytes are not a readable image. */
  width: number | null;
  height: number | null;
  title: string;
  folder_id: string | null;
  created_at: number;
  /** When the uploaded file stops living. */
  expires_at: number;
}

export interface Folder {
  id: string;
  account_id: string;
  name: string;
  created_at: number;
}

/** A URL registered through the control interface as readable (the simulator cannot fetch). */
export interface RemoteFile {
  url: string;
  content_type: string;
  width: number | null;
  height: number | null;
}

export interface LibraryStore {
  /** By reference. */
  tickets: Map<string, UploadTicket>;
  /** By id. */
  assets: Map<string, Asset>;
  /** By account, in position order (a folder's `position` is its index). */
  folders: Map<string, Folder[]>;
  /** By URL. */
  remote: Map<string, RemoteFile>;
}

const KEY = "library";

export function library(hub: Hub): LibraryStore {
  let store = hub.state.extensions.get(KEY) as LibraryStore | undefined;
  if (!store) {
    store = { tickets: new Map(), assets: new Map(), folders: new Map(), remote: new Map() };
    hub.state.extensions.set(KEY, store);
    if (hub.options.demoData ?? true) seedDemoLibrary(hub, store);
  }
  return store;
}

export function folderLimit(hub: Hub): number {
  return hub.options.folderLimit ?? DEFAULT_FOLDER_LIMIT;
}

function lifetimeMs(hub: Hub): number {
  return (hub.options.uploadLifetimeDays ?? DEFAULT_UPLOAD_LIFETIME_DAYS) * 86_400_000;
}

export function signatureMs(hub: Hub): number {
  return (hub.options.uploadSignatureSeconds ?? DEFAULT_SIGNATURE_SECONDS) * 1000;
}

// ------------------------------------------------------------------------- tickets

export function issueTicket(hub: Hub, accountId: string, kind: string, contentType: string, contentLength: number): UploadTicket {
  const now = hub.clock.now();
  const ticket: UploadTicket = {
    reference: hub.ids.next(REFERENCE_PREFIX, now),
    account_id: accountId,
    kind,
    content_type: contentType,
    content_length: contentLength,
    signature: randomToken(24).toLowerCase(),
    created_at: now,
    expires_at: now + signatureMs(hub),
    asset_id: null,
  };
  library(hub).tickets.set(ticket.reference, ticket);
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
export function completeTicket(hub: Hub, t: UploadTicket, bytes: Uint8Array): Asset {
  const now = hub.clock.now();
  const size = imageSize(bytes, t.content_type);
  const asset: Asset = {
    id: hub.ids.next("ast_", now),
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
    expires_at: now + lifetimeMs(hub),
  };
  library(hub).assets.set(asset.id, asset);
  t.asset_id = asset.id;
  return asset;
}

// -------------------------------------------------------------------------- assets

export function isLive(hub: Hub, a: Asset): boolean {
  return a.expires_at > hub.clock.now();
}

/** The account's asset by id, if it exists and still lives; another account's answers undefined. */
export function ownAsset(hub: Hub, accountId: string, id: string): Asset | undefined {
  const a = library(hub).assets.get(id);
  return a && a.account_id === accountId && isLive(hub, a) ? a : undefined;
}

export function liveAssets(hub: Hub, accountId: string): Asset[] {
  const out: Asset[] = [];
  for (const a of library(hub).assets.values()) if (a.account_id === accountId && isLive(hub, a)) out.push(a);
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

export function foldersOf(hub: Hub, accountId: string): Folder[] {
  return entryOf(library(hub).folders, accountId, newList<Folder>);
}

/** Names compare without surrounding spaces and without case ("Characters" = " characters"). */
export function sameName(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

export function folderRecord(hub: Hub, f: Folder, position: number): Record<string, unknown> {
  let items = 0;
  for (const a of library(hub).assets.values()) if (a.folder_id === f.id && isLive(hub, a)) items++;
  return { id: f.id, name: f.name, position, item_count: items, created_at: isoTime(f.created_at) };
}

// ----------------------------------------------------------------------- demo data

const HOUR = 3_600_000;

function seedDemoLibrary(hub: Hub, store: LibraryStore): void {
  const now = hub.clock.now();
  const folders: Folder[] = ["Characters", "Backgrounds"].map((name, i) => ({
    id: hub.ids.next("fld_", now - (48 - i) * HOUR),
    account_id: "acc_demo",
    name,
    created_at: now - (48 - i) * HOUR,
  }));
  store.folders.set("acc_demo", folders);
  const png = hub.assets("image");
  if (!png) return;
  const at = now - 24 * HOUR;
  const t: UploadTicket = {
    reference: hub.ids.next(REFERENCE_PREFIX, at),
    account_id: "acc_demo",
    kind: "image",
    content_type: png.contentType,
    content_length: png.bytes.length,
    signature: randomToken(24).toLowerCase(),
    created_at: at,
    expires_at: at + signatureMs(hub),
    asset_id: null,
  };
  store.tickets.set(t.reference, t);
  const size = imageSize(png.bytes, png.contentType);
  const asset: Asset = {
    id: hub.ids.next("ast_", at),
    account_id: "acc_demo",
    reference: t.reference,
    kind: "image",
    content_type: png.contentType,
    bytes: png.bytes,
    width: size?.width ?? null,
    height: size?.height ?? null,
    title: "Demo reference",
    folder_id: folders[0]!.id,
    created_at: at,
    expires_at: at + lifetimeMs(hub),
  };
  store.assets.set(asset.id, asset);
  t.asset_id = asset.id;
}
