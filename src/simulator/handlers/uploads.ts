// Upload routes: POST /v1/uploads signs one PUT after checking kind, content type and
// the exact length; PUT /v1/uploads/content closes a ticket through this API (the
// ticket's `proxy_path`). The other way to close it is the direct PUT to the ticket's
// storage `url` (storage.ts).
import { schemaValidator, toDetails } from "../../contract/validator.ts";
import { headerOf, isRefusal, json, readJson, type Handler } from "../pipeline/context.ts";
import { refuse } from "../domain/refusal.ts";
import { completeTicket, issueTicket, ticketRecord, UPLOAD_CEILING } from "../domain/library.ts";
import { IMAGE_TYPES } from "../state/media.ts";

/** Kinds the hub signs (seed: `image` only; other kinds answer 503 upload_unavailable). */
export const SIGNED_KINDS = ["image"] as const;

const MIB = 1024 * 1024;

const createUpload: Handler = (ctx) => {
  const parsed = readJson(ctx);
  if (isRefusal(parsed)) return parsed;
  const body = parsed.value as Record<string, unknown>;
  const length = body !== null && typeof body === "object" ? body.content_length : undefined;
  const validate = schemaValidator("UploadRequest");
  if (!validate(parsed.value)) {
    const details = toDetails(validate.errors).map((d) =>
      // The refusal text repeats the exact byte number of the ceiling.
      d.field === "content_length" && d.reason === "out_of_range" && typeof length === "number" && length > UPLOAD_CEILING
        ? { ...d, message: `content_length ${length} is above the ceiling of ${UPLOAD_CEILING} bytes (${UPLOAD_CEILING / MIB} MiB)` }
        : d,
    );
    const over = details.find((d) => d.field === "content_length" && d.message.includes("ceiling"));
    return refuse("invalid_request", { message: over ? `The upload is larger than ${UPLOAD_CEILING} bytes.` : undefined, details });
  }
  const kind = body.kind as string;
  if (!(SIGNED_KINDS as readonly string[]).includes(kind)) {
    return refuse("upload_unavailable", { message: `Uploads of kind ${kind} are not signed; only image is.` });
  }
  const contentType = body.content_type as string;
  if (!(IMAGE_TYPES as readonly string[]).includes(contentType)) {
    return refuse("invalid_request", { details: [{ field: "content_type", reason: "not_allowed", message: `an image upload takes ${IMAGE_TYPES.join(", ")}` }] });
  }
  const ticket = issueTicket(ctx.hub, ctx.account!.id, kind, contentType, body.content_length as number);
  return json(ctx, 200, ticketRecord(ticket, ctx.baseUrl));
};

// Unknown, another account's and expired tickets are refused alike (this route declares
// no 404); a ticket already written answers 409 before anything else is compared, so a
// retry after a lost answer learns that its first attempt landed.
const completeUpload: Handler = (ctx) => {
  const reference = ctx.query.get("ticket");
  if (!reference) return refuse("invalid_request", { details: [{ field: "ticket", reason: "required", message: "the ticket's proxy_path carries ?ticket=" }] });
  const hub = ctx.hub;
  const ticket = hub.state.library.tickets.get(reference);
  if (!ticket || ticket.account_id !== ctx.account!.id) {
    return refuse("invalid_request", { details: [{ field: "ticket", reason: "invalid", message: "no such upload ticket for this account" }] });
  }
  if (ticket.asset_id !== null) return refuse("duplicate_key_conflict", { message: "This upload ticket was already completed; take a new ticket." });
  if (ticket.expires_at <= hub.clock.now()) {
    return refuse("invalid_request", { details: [{ field: "ticket", reason: "invalid", message: "the ticket's signature has expired; take a new ticket" }] });
  }
  const type = (headerOf(ctx, "content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== ticket.content_type) {
    return refuse("invalid_request", { details: [{ field: "Content-Type", reason: "not_allowed", message: `the ticket fixes Content-Type ${ticket.content_type}` }] });
  }
  const bytes = ctx.req.body ?? new Uint8Array();
  if (bytes.length !== ticket.content_length) {
    return refuse("invalid_request", {
      details: [{ field: "Content-Length", reason: "invalid", message: `the ticket fixes the length at exactly ${ticket.content_length} bytes; the body has ${bytes.length}` }],
    });
  }
  const asset = completeTicket(hub, ticket, bytes);
  return json(ctx, 200, { reference: ticket.reference, bytes_stored: asset.bytes.length });
};

export const uploadsHandlers = { createUpload, completeUpload };
