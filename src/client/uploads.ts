// Uploads: a ticket from `POST /v1/uploads` (kind, content type, exact length), then
// one PUT: directly to the ticket's signed `url` with exactly the ticket's headers and
// no `Authorization` (nor any header of this client), or through the ticket's
// `proxy_path` on this API. Returns the ticket's `reference`, the value later sent in
// generation requests and support messages.
//
// The PUT is retried like any PUT (5xx, lost connection). A ticket is written once, so
// when an attempt after a lost answer meets 412 (storage) or 409 `duplicate_key_conflict`
// (proxy), the earlier attempt has landed and the upload counts as done.
import type { UploadContentType, UploadTicket } from "../../generated/types.ts";
import type { HubCore } from "./client.ts";
import { bodyOf, errorFromAnswer, isEnvelope } from "./errors.ts";
import { attemptsOf, type CallOptions } from "./retry.ts";

export type UploadBody = Blob | ArrayBuffer | Uint8Array;

export interface UploadOptions {
  contentType: UploadContentType;
  /** Upload kind; only `image` is signed (default `image`). */
  kind?: string;
  /** `direct` (default): PUT to the signed storage address; `proxy`: PUT through this API. */
  via?: "direct" | "proxy";
  signal?: AbortSignal;
  maxRetries?: number;
  timeout?: number;
}

export interface UploadResult {
  /** Send this in `image_urls` and similar fields, or in support `images`. */
  reference: string;
  ticket: UploadTicket;
  via: "direct" | "proxy";
  /** The API's request id of the ticket (and of the proxy PUT, when used). */
  requestId: string;
  /** Bytes the proxy stored (proxy path only). */
  bytesStored?: number;
}

export async function upload(hub: HubCore, body: UploadBody, options: UploadOptions): Promise<UploadResult> {
  const { contentType, kind = "image", via = "direct", signal, maxRetries, timeout } = options;
  const length = body instanceof Blob ? body.size : body.byteLength; // exact, not a maximum
  const issued = await hub.POST("/v1/uploads", { signal, maxRetries, timeout, body: { kind, content_type: contentType, content_length: length } });
  const ticket = issued.data;
  const direct = via === "direct";
  // Direct: the signed address with exactly the ticket's headers (the ticket signs the exact
  // length; fetch sends the body's own) and nothing of this client (`hubBare`); proxy: the
  // ticket's path on this API, with the client's credentials.
  const request = new Request(direct ? ticket.url : hub.baseUrl + ticket.proxy_path, {
    method: "PUT",
    headers: direct ? ticket.headers : { "Content-Type": contentType },
    body: body as BodyInit,
    signal,
  });
  const response = await hub.fetch(Object.assign(request, { hubBare: direct, maxRetries, timeout } satisfies CallOptions));
  const answer = await bodyOf(response);
  // A ticket is written once: after a retried attempt, 412 (storage) or 409
  // duplicate_key_conflict (proxy) means an earlier attempt landed.
  const landed = attemptsOf(response) > 1 && (direct ? response.status === 412 : isEnvelope(answer) && answer.error.code === "duplicate_key_conflict");
  if (!response.ok && !landed) throw errorFromAnswer(response, answer);
  // The proxy's own answer: `{ reference, bytes_stored }`.
  const done = (!direct && response.ok ? answer : {}) as { reference?: string; bytes_stored?: number };
  return {
    reference: done.reference ?? ticket.reference,
    ticket,
    via,
    requestId: (!direct && response.headers.get("x-request-id")) || issued.requestId,
    ...(done.bytes_stored !== undefined && { bytesStored: done.bytes_stored }),
  };
}
