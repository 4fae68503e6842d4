// The library's records: upload tickets, the files written through them (assets),
// folders, and the https addresses registered as readable (the simulator cannot fetch).
//
// An upload ticket (POST /v1/uploads) is written exactly once, by a direct PUT to its
// storage `url` or through `PUT /v1/uploads/content`; the written file is an asset in the
// library at once, and the ticket's `reference` names it in generation requests and
// support messages until the asset's `expires_at`. Expired assets, their tickets and
// tickets never written are dropped by a sweep (domain/library.ts).
import { DEFAULT_SIGNATURE_SECONDS, DEFAULT_UPLOAD_LIFETIME_DAYS, type HubOptions } from "./options.ts";
import { newTimeline, type Timeline } from "./timeline.ts";
import { entryOf } from "./util.ts";

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

/** Folder names: 1 to 100 characters once surrounding spaces are removed (simulator convention). */
export const FOLDER_NAME_MAX = 100;

/** Names compare without surrounding spaces and without case ("Characters" = " characters"). */
export function sameName(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

export interface LibraryStore {
  /** By reference. */
  tickets: Map<string, UploadTicket>;
  /** By id. */
  assets: Map<string, Asset>;
  /** Per account, in creation order (the asset list pages it). */
  by_account: Map<string, Timeline<Asset>>;
  /** By account, in position order (a folder's `position` is its index). */
  folders: Map<string, Folder[]>;
  /** By URL. */
  remote: Map<string, RemoteFile>;
  /** Simulated time of the next sweep of expired assets and tickets. */
  next_sweep: number;
}

export function emptyLibrary(): LibraryStore {
  return { tickets: new Map(), assets: new Map(), by_account: new Map(), folders: new Map(), remote: new Map(), next_sweep: 0 };
}

/** Puts an asset in the library (by id, and in its account's timeline). */
export function addAsset(store: LibraryStore, asset: Asset): void {
  store.assets.set(asset.id, asset);
  entryOf(store.by_account, asset.account_id, newTimeline<Asset>).add(asset);
}

export function uploadLifetimeMs(options: HubOptions): number {
  return (options.uploadLifetimeDays ?? DEFAULT_UPLOAD_LIFETIME_DAYS) * 86_400_000;
}

export function signatureMs(options: HubOptions): number {
  return (options.uploadSignatureSeconds ?? DEFAULT_SIGNATURE_SECONDS) * 1000;
}
