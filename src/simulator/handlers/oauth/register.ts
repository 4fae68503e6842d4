// POST /oauth/register (RFC 7591): limited per caller address and in total (429
// rate_limited with Retry-After), then the metadata's rules (domain/oauth/clients.ts).
// There is no registration management token: a change means registering again.
import { registerClient, registrationReply, takeRegistration } from "../../domain/oauth/clients.ts";
import { isFailure } from "../../domain/oauth/failure.ts";
import { refuse } from "../../domain/refusal.ts";
import { isRefusal, json, readJson, type Handler } from "../../pipeline/context.ts";
import { failed, oauthError } from "./answer.ts";

export const registerClientRoute: Handler = (ctx) => {
  const hub = ctx.hub;
  const o = hub.oauthOptions;
  const taken = takeRegistration(hub.state.oauth, o, ctx.req.remoteAddress ?? "unknown", hub.clock.now());
  if (!taken.ok) {
    return refuse("rate_limited", {
      message: taken.scope === "ip"
        ? `Too many registrations from this address: ${taken.limit} per ${o.registrationWindowSeconds} s.`
        : `Too many registrations: ${taken.limit} per ${o.registrationWindowSeconds} s in total.`,
      retryAfter: taken.retryAfter,
    });
  }
  const parsed = readJson(ctx);
  if (isRefusal(parsed)) return oauthError(ctx, 400, "invalid_client_metadata", parsed.options.details?.[0]?.message ?? "The body must be a JSON object.");
  const client = registerClient(hub, parsed.value);
  if (isFailure(client)) return failed(ctx, client);
  return json(ctx, 201, registrationReply(client), { "cache-control": "no-store", pragma: "no-cache" });
};
