// Files named in a generation request (or an estimate, or a support message): resolved,
// read and measured before the price is computed, the way the hub processes references
// at submit ("the bytes are validated when a generation is submitted"). The simulator
// cannot reach the internet, so a value is readable only when it is
//
//   - an upload `reference` of this account whose file was written and still lives;
//   - a link this simulator serves to this account: a result file of one of its DONE
//     generations (`…/v1/generations/{id}/outputs/{kind}/{index}`) or the content link of
//     one of its library assets (`…/v1/library/assets/{id}/content`), on the address the
//     caller uses (or `--public-url`);
//   - an https URL registered through the control interface (`POST /_sim/remote-files`).
//
// Anything else is refused with `400 invalid_request` and one detail per value, its
// field named with its index (`image_urls.1`). Reasons (the seed lists the last four
// without their meanings; these are the simulator's readings):
//
//   bad_format             neither an upload reference nor an absolute URL
//   reference_unavailable  no such upload, not written yet, expired; a link of ours to no
//                          file (unknown, deleted or unfinished generation, wrong kind or index)
//   foreign_reference      an upload or a link that belongs to another account
//   untrusted_reference    a URL the hub would not fetch: not https, user info in it, or a
//                          loopback, private or internal host
//   unfetchable_reference  a public https URL: the simulator cannot fetch it
//   invalid                readable, but not what the field takes (an image field given a
//                          video, bytes that are not a readable image of their type)
import type { Detail } from "../../contract/validator.ts";
import type { HubBase } from "../state/base.ts";
import { REFERENCE_PREFIX } from "../state/library.ts";
import { imageSize, isImageType, type ImageSize } from "../state/media.ts";
import { isLive } from "./library.ts";
import type { RateLimiter } from "./ratelimit.ts";
import { refuse, type Refusal } from "./refusal.ts";

/** Who reads a reference: the account, and the origins this simulator's links start with for its request. */
export interface Reader {
  accountId: string;
  /** Lower case, without a trailing slash. */
  origins: readonly string[];
}

/** Request fields that name files, by the kind of file they take. */
export const FILE_FIELDS: Readonly<Record<string, "image" | "video" | "audio">> = {
  image_urls: "image",
  image_url: "image",
  style_ref_urls: "image",
  char_ref_urls: "image",
  video_url: "video",
  video_urls: "video",
  audio_url: "audio",
  audio_urls: "audio",
};

const FILE_FIELD_ENTRIES = Object.entries(FILE_FIELDS);

export interface InputFile {
  field: string;
  content_type: string;
  /** Pixel size of an image; undefined for other media. */
  size?: ImageSize;
}

export interface Inputs {
  files: readonly InputFile[];
  /** The measured size of the first image (`image_url` of an upscale, or the first of `image_urls`). */
  image?: ImageSize;
}

type Found = { content_type: string; bytes?: Uint8Array; size?: ImageSize } | Detail;

function detail(field: string, reason: string, message: string): Detail {
  return { field, reason, message };
}

const PRIVATE_V4 = [/^127\./, /^10\./, /^192\.168\./, /^172\.(1[6-9]|2[0-9]|3[01])\./, /^169\.254\./, /^0\./, /^100\.(6[4-9]|[7-9][0-9]|1[01][0-9]|12[0-7])\./];

function internalHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  if (h === "localhost" || h.endsWith(".localhost") || h.endsWith(".local") || h.endsWith(".internal")) return true;
  if (/^[0-9.]+$/.test(h)) return PRIVATE_V4.some((r) => r.test(h));
  if (h.includes(":")) return h === "::1" || h === "::" || /^f[cd]/.test(h) || /^fe[89ab]/.test(h) || h.startsWith("::ffff:");
  return false;
}

/** The origins a request's links start with: the address it came in on, and the public address. */
export function ownOrigins(baseUrl: string, publicUrl: string | undefined): string[] {
  const out = [baseUrl];
  if (publicUrl) out.push(publicUrl);
  return out.map((o) => o.replace(/\/+$/, "").toLowerCase());
}

function uploadReference(hub: HubBase, accountId: string, value: string, field: string): Found {
  const store = hub.state.library;
  const ticket = store.tickets.get(value);
  if (!ticket) return detail(field, "reference_unavailable", `${field} names no upload`);
  if (ticket.account_id !== accountId) return detail(field, "foreign_reference", `${field} is an upload of another account`);
  const asset = ticket.asset_id ? store.assets.get(ticket.asset_id) : undefined;
  if (!asset) return detail(field, "reference_unavailable", `${field} names an upload whose file was never written (PUT it first)`);
  if (!isLive(hub, asset)) return detail(field, "reference_unavailable", `${field} names an uploaded file that has expired`);
  return { content_type: asset.content_type, bytes: asset.bytes };
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function ownLink(hub: HubBase, accountId: string, path: string, field: string): Found {
  const gone = detail(field, "reference_unavailable", `${field} links to no file of this simulator`);
  let m = /^\/v1\/generations\/([^/]+)\/outputs\/([^/]+)\/(0|[1-9][0-9]{0,3})$/.exec(path);
  if (m) {
    const gen = hub.state.generations.get(decoded(m[1]!));
    if (!gen || gen.deleted) return gone;
    if (gen.account_id !== accountId) return detail(field, "foreign_reference", `${field} links to a result of another account`);
    if (gen.status !== "DONE" || gen.output_kind !== m[2] || Number(m[3]) >= gen.output_count) return gone;
    const file = hub.assets(gen.output_kind);
    if (!file) return gone;
    return { content_type: file.contentType, bytes: file.bytes };
  }
  m = /^\/v1\/library\/assets\/([^/]+)\/content$/.exec(path);
  if (m) {
    const asset = hub.state.library.assets.get(decoded(m[1]!));
    if (!asset) return gone;
    if (asset.account_id !== accountId) return detail(field, "foreign_reference", `${field} links to a library file of another account`);
    if (!isLive(hub, asset)) return detail(field, "reference_unavailable", `${field} links to an uploaded file that has expired`);
    return { content_type: asset.content_type, bytes: asset.bytes };
  }
  return gone;
}

/** Finds and reads one value; a detail says why it cannot be read. */
export function readReference(hub: HubBase, reader: Reader, value: string, field: string): Found {
  const accountId = reader.accountId;
  if (value.startsWith(REFERENCE_PREFIX)) return uploadReference(hub, accountId, value, field);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return detail(field, "bad_format", `${field} is neither an upload reference nor an absolute URL`);
  }
  if ((url.protocol === "http:" || url.protocol === "https:") && reader.origins.includes(url.origin.toLowerCase()) && !url.username && !url.password) {
    return ownLink(hub, accountId, url.pathname, field);
  }
  const remote = hub.state.library.remote.get(url.href) ?? hub.state.library.remote.get(value);
  if (remote) return { content_type: remote.content_type, size: remote.width && remote.height ? { width: remote.width, height: remote.height } : undefined };
  if (url.protocol !== "https:" || url.username || url.password || internalHost(url.hostname)) {
    return detail(field, "untrusted_reference", `${field} is not a URL the hub fetches (https on a public host only)`);
  }
  return detail(field, "unfetchable_reference", `${field} could not be fetched: the simulator does not reach the internet (upload the file, or register the URL with POST /_sim/remote-files)`);
}

function kindOf(contentType: string): string {
  return contentType.split("/")[0]!;
}

const NO_INPUTS: Inputs = Object.freeze({ files: Object.freeze([]), image: undefined });

/** Reads, checks and measures every file a request body names. */
export function inputsOf(hub: HubBase, reader: Reader, body: Record<string, unknown>): Inputs | Refusal {
  let named = false;
  for (const [name] of FILE_FIELD_ENTRIES) {
    if (body[name] !== undefined) {
      named = true;
      break;
    }
  }
  // Most requests name no file: nothing to read.
  if (!named) return NO_INPUTS;
  const files: InputFile[] = [];
  const details: Detail[] = [];
  let image: ImageSize | undefined;
  for (const [name, kind] of FILE_FIELD_ENTRIES) {
    const raw = body[name];
    if (raw === undefined) continue;
    const values = Array.isArray(raw) ? raw.map((v, i) => [v, `${name}.${i}`] as const) : [[raw, name] as const];
    for (const [value, field] of values) {
      if (typeof value !== "string") continue; // the schema refused it already
      const found = readReference(hub, reader, value, field);
      if ("reason" in found) {
        details.push(found);
        continue;
      }
      if (kindOf(found.content_type) !== kind) {
        details.push(detail(field, "invalid", `${field} takes ${kind === "image" ? "an image" : `a ${kind} file`}; this file is ${found.content_type}`));
        continue;
      }
      let size = found.size;
      if (kind === "image" && found.bytes) {
        size = isImageType(found.content_type) ? imageSize(found.bytes, found.content_type) : undefined;
        if (!size) {
          details.push(detail(field, "invalid", `${field} is not a readable ${found.content_type} image`));
          continue;
        }
      }
      files.push({ field, content_type: found.content_type, size });
      if (kind === "image" && !image && size) image = size;
    }
  }
  if (details.length > 0) return refuse("invalid_request", { message: "A file named in the request cannot be read.", details });
  return { files, image };
}

/**
 * A refusal after references were processed spends one submit of the account's window
 * (seed, Limits: "a rejected request that already required reference processing does").
 */
export function spendSubmit(limiter: RateLimiter, accountId: string, inputs: Inputs | undefined, refusal: Refusal): Refusal {
  if (!inputs || inputs.files.length > 0) limiter.takeSubmit(accountId, true);
  return refusal;
}
