// Part 2 of the simulator, library side: billing (ledger, live subscription), the
// library, uploads with their storage endpoint, and the support thread. The Hub calls
// `installLibrary` once; its records live in `hub.state` (the ledger, the account's
// `subscription`, the reports) and in `hub.state.extensions` ("library", "support"), so a
// reset clears them.
import { isRefusal, json, readJson, type Ctx } from "../pipeline/context.ts";
import { refuse, type Refusal } from "../domain/refusal.ts";
import type { SimResponse } from "../pipeline/exchange.ts";
import { billingHandlers } from "./billing.ts";
import { libraryHandlers } from "./library.ts";
import { supportHandlers } from "./support.ts";
import { uploadsHandlers } from "./uploads.ts";
import type { Hub } from "../hub.ts";
import { library } from "../domain/library.ts";
import { IMAGE_TYPES } from "../state/media.ts";
import { STORAGE_PREFIX, storageHandler } from "./storage.ts";
import { messageRecord, postSupportReply } from "../domain/support.ts";

export function installLibrary(hub: Hub): void {
  hub.use({ ...billingHandlers, ...libraryHandlers, ...uploadsHandlers, ...supportHandlers });
  hub.mount({ prefix: STORAGE_PREFIX, handle: storageHandler });
  hub.controlRoutes.push(libraryControl);
}

function objectBody(ctx: Ctx): Record<string, unknown> | Refusal {
  const parsed = readJson(ctx);
  if (isRefusal(parsed)) return parsed;
  const v = parsed.value;
  if (v === null || typeof v !== "object" || Array.isArray(v)) return refuse("invalid_request", { details: [{ reason: "wrong_type", message: "the body must be a JSON object" }] });
  return v as Record<string, unknown>;
}

function invalid(field: string, reason: string, message: string): Refusal {
  return refuse("invalid_request", { details: [{ field, reason, message }] });
}

/**
 *   POST /_sim/accounts/{id}/support  { text }                                   posts an answer of support (unread)
 *   GET  /_sim/remote-files                                                      the registered URLs
 *   POST /_sim/remote-files           { url, content_type?, width?, height? }    makes an https URL readable in requests
 */
function libraryControl(ctx: Ctx, parts: readonly string[]): SimResponse | Refusal | undefined {
  const hub = ctx.hub;
  const method = ctx.req.method;
  if (method === "POST" && parts.length === 3 && parts[0] === "accounts" && parts[2] === "support") {
    if (!hub.state.accounts.has(parts[1]!)) return refuse("not_found", { message: "No such account." });
    const body = objectBody(ctx);
    if (isRefusal(body)) return body;
    if (typeof body.text !== "string" || body.text === "") return invalid("text", "required", "text is the answer of support");
    return json(ctx, 201, messageRecord(postSupportReply(hub, parts[1]!, body.text), true));
  }
  if (parts.length === 1 && parts[0] === "remote-files") {
    const remote = library(hub).remote;
    if (method === "GET") return json(ctx, 200, { data: [...remote.values()] });
    if (method !== "POST") return undefined;
    const body = objectBody(ctx);
    if (isRefusal(body)) return body;
    let url: URL;
    try {
      url = new URL(String(body.url));
    } catch {
      return invalid("url", "bad_format", "url is an absolute https URL");
    }
    if (url.protocol !== "https:") return invalid("url", "not_allowed", "only https URLs are fetched by the hub");
    const type = body.content_type ?? "image/png";
    if (typeof type !== "string" || !/^(image|video|audio)\/[a-z0-9.+-]+$/.test(type)) return invalid("content_type", "not_allowed", "content_type is an image, video or audio media type");
    const isImage = type.startsWith("image/");
    if (isImage && !(IMAGE_TYPES as readonly string[]).includes(type)) return invalid("content_type", "not_allowed", `an image is one of ${IMAGE_TYPES.join(", ")}`);
    const dims: Record<string, number | null> = {};
    for (const side of ["width", "height"] as const) {
      const v = body[side] ?? (isImage ? 1024 : null);
      if (v !== null && (!Number.isInteger(v) || (v as number) < 1 || (v as number) > 20_000)) return invalid(side, "out_of_range", `${side} is an integer from 1 to 20000`);
      dims[side] = v as number | null;
    }
    const file = { url: url.href, content_type: type, width: dims.width!, height: dims.height! };
    remote.set(file.url, file);
    return json(ctx, 201, file);
  }
  return undefined;
}
