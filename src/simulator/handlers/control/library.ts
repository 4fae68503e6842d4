// Control routes of the library side:
//   POST /_sim/accounts/{id}/support  { text }                                   posts an answer of support (unread)
//   GET  /_sim/remote-files                                                      the registered URLs
//   POST /_sim/remote-files           { url, content_type?, width?, height? }    makes an https URL readable in requests
import { messageRecord, postSupportReply } from "../../domain/support.ts";
import { refuse } from "../../domain/refusal.ts";
import { isRefusal, json } from "../../pipeline/context.ts";
import { IMAGE_TYPES } from "../../state/media.ts";
import { controlBody, invalid, type ControlHandler, type ControlRoutes } from "./body.ts";

const postSupportAnswer: ControlHandler = (ctx, { id }) => {
  const hub = ctx.hub;
  if (!hub.state.accounts.has(id!)) return refuse("not_found", { message: "No such account." });
  const body = controlBody(ctx);
  if (isRefusal(body)) return body;
  if (typeof body.text !== "string" || body.text === "") return invalid("text", "text is the answer of support", "required");
  return json(ctx, 201, messageRecord(postSupportReply(hub, id!, body.text), true));
};

const registerRemoteFile: ControlHandler = (ctx) => {
  const body = controlBody(ctx);
  if (isRefusal(body)) return body;
  let url: URL;
  try {
    url = new URL(String(body.url));
  } catch {
    return invalid("url", "url is an absolute https URL", "bad_format");
  }
  if (url.protocol !== "https:") return invalid("url", "only https URLs are fetched by the hub", "not_allowed");
  const type = body.content_type ?? "image/png";
  if (typeof type !== "string" || !/^(image|video|audio)\/[a-z0-9.+-]+$/.test(type)) return invalid("content_type", "content_type is an image, video or audio media type", "not_allowed");
  const isImage = type.startsWith("image/");
  if (isImage && !(IMAGE_TYPES as readonly string[]).includes(type)) return invalid("content_type", `an image is one of ${IMAGE_TYPES.join(", ")}`, "not_allowed");
  const dims: Record<string, number | null> = {};
  for (const side of ["width", "height"] as const) {
    const v = body[side] ?? (isImage ? 1024 : null);
    if (v !== null && (!Number.isInteger(v) || (v as number) < 1 || (v as number) > 20_000)) return invalid(side, `${side} is an integer from 1 to 20000`, "out_of_range");
    dims[side] = v as number | null;
  }
  const file = { url: url.href, content_type: type, width: dims.width!, height: dims.height! };
  ctx.hub.state.library.remote.set(file.url, file);
  return json(ctx, 201, file);
};

export const libraryControl: ControlRoutes = {
  "POST accounts/{id}/support": postSupportAnswer,
  "GET remote-files": (ctx) => json(ctx, 200, { data: [...ctx.hub.state.library.remote.values()] }),
  "POST remote-files": registerRemoteFile,
};
