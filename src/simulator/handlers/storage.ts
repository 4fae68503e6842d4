// The storage endpoint behind an upload ticket's `url`: `PUT /storage/<reference>?signature=…`,
// outside `/v1` and without credentials (the signature is the credential). It behaves
// like a signed object-store PUT: exactly one write, with exactly the ticket's headers.
//
//   403  the signature is wrong or expired, the method is not PUT, `Authorization` is
//        present, or a header differs from the ticket's (Content-Type, Content-Length,
//        If-None-Match: *), or the body's length differs from the signed one
//   412  the ticket was already written (by this PUT or through the API's proxy path)
//   200  written (empty body, an ETag); the file is in the library at once
//
// Storage answers are not API answers: plain text bodies naming the cause, no envelope,
// no RateLimit headers.
import type { Ctx } from "../pipeline/context.ts";
import { headerOf } from "../pipeline/context.ts";
import type { BodyAnswer } from "../pipeline/exchange.ts";
import { completeTicket, ticketHeaders } from "../domain/library.ts";

export const STORAGE_PREFIX = "/storage/";

function plain(ctx: Ctx, status: number, text: string, extra: Record<string, string> = {}): BodyAnswer {
  return {
    kind: "body",
    status,
    headers: { "x-request-id": ctx.requestId, "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", ...extra },
    body: text ? `${text}\n` : "",
  };
}

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

export function storageHandler(ctx: Ctx): BodyAnswer {
  const reference = decoded(ctx.path.slice(STORAGE_PREFIX.length)) ?? "";
  const hub = ctx.hub;
  const ticket = hub.state.library.tickets.get(reference);
  const signature = ctx.query.get("signature");
  if (!ticket || !signature || signature !== ticket.signature) return plain(ctx, 403, "SignatureDoesNotMatch: this address is not a signed upload URL");
  if (ctx.req.method !== "PUT") return plain(ctx, 403, `AccessDenied: the URL is signed for one PUT, not ${ctx.req.method}`);
  if (ticket.expires_at <= hub.clock.now()) return plain(ctx, 403, "AccessDenied: the signature has expired; take a new ticket");
  if (headerOf(ctx, "authorization") !== undefined) return plain(ctx, 403, "InvalidArgument: send no Authorization header to storage; the signature is the credential");
  for (const [name, value] of Object.entries(ticketHeaders(ticket))) {
    const got = headerOf(ctx, name.toLowerCase());
    const same = name === "Content-Type" ? got?.split(";")[0]!.trim().toLowerCase() === value : got?.trim() === value;
    if (!same) return plain(ctx, 403, `SignatureDoesNotMatch: ${name} must be exactly ${JSON.stringify(value)}${got === undefined ? " (missing)" : `, got ${JSON.stringify(got)}`}`);
  }
  if (ticket.asset_id !== null) return plain(ctx, 412, "PreconditionFailed: this upload URL was already written; take a new ticket");
  const bytes = ctx.req.body ?? new Uint8Array();
  if (bytes.length !== ticket.content_length) return plain(ctx, 403, `SignatureDoesNotMatch: the signed length is ${ticket.content_length} bytes, the body has ${bytes.length}`);
  const asset = completeTicket(hub, ticket, bytes);
  return plain(ctx, 200, "", { etag: `"${asset.id}"` });
}
