// Answers of the authorization server's routes in the OAuth error form.
import type { Failure } from "../../domain/oauth/failure.ts";
import { json, type Ctx } from "../../pipeline/context.ts";
import type { BodyAnswer } from "../../pipeline/exchange.ts";

export function oauthError(ctx: Ctx, status: number, error: string, description: string): BodyAnswer {
  return json(ctx, status, { error, error_description: description }, { "cache-control": "no-store", pragma: "no-cache" });
}

export function failed(ctx: Ctx, f: Failure): BodyAnswer {
  return oauthError(ctx, f.status, f.error, f.description);
}
