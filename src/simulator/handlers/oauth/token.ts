// POST /oauth/token (code exchange and refresh) and POST /oauth/revoke (RFC 7009). Both
// read a form, refuse shared secrets and authenticate the client (domain/oauth/tokens.ts).
// Assertions and PKCE use WebCrypto, so these routes answer asynchronously (a deferred
// answer); every check that reads or changes state runs after the last await, in one
// synchronous step, so parallel requests cannot interleave inside it (the parallel-refresh
// rule depends on that).
import { validateChosen } from "../../../contract/validator.ts";
import { failure, isFailure, type Failure } from "../../domain/oauth/failure.ts";
import { authenticateClient, exchangeCode, refreshTokens, refusedSecret, revokeToken, s256 } from "../../domain/oauth/tokens.ts";
import { baseHeaders, headerOf, type Ctx, type Handler } from "../../pipeline/context.ts";
import type { BodyAnswer, SimResponse } from "../../pipeline/exchange.ts";
import { failed, oauthError } from "./answer.ts";

/** The form body as single values; a failure when it is not a form or repeats a parameter. */
function readForm(ctx: Ctx): Record<string, string> | Failure {
  const type = (headerOf(ctx, "content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") return failure(400, "invalid_request", "The body must be application/x-www-form-urlencoded.");
  let text = "";
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(ctx.req.body ?? new Uint8Array());
  } catch {
    return failure(400, "invalid_request", "The body is not valid UTF-8.");
  }
  const params = new URLSearchParams(text);
  const out: Record<string, string> = {};
  for (const [k, v] of params) {
    if (k in out) return failure(400, "invalid_request", `${k} is given more than once.`);
    out[k] = v;
  }
  return out;
}

/** Runs an async answer, turning anything thrown into 500 in the OAuth form (never a stack). */
function deferred(ctx: Ctx, work: () => Promise<BodyAnswer>): SimResponse {
  return {
    kind: "deferred",
    deferred: work().catch((error: unknown) => {
      console.error(`simulator: ${ctx.req.method} ${ctx.path} failed (request ${ctx.requestId})`, error);
      return oauthError(ctx, 500, "server_error", "Unexpected server error.");
    }),
  };
}

export const exchangeToken: Handler = (ctx) =>
  deferred(ctx, async () => {
    const hub = ctx.hub;
    const form = readForm(ctx);
    if (isFailure(form)) return failed(ctx, form);
    const secret = refusedSecret(form, headerOf(ctx, "authorization"));
    if (secret) return failed(ctx, secret);
    const grantType = form.grant_type;
    if (grantType === undefined) return failed(ctx, failure(400, "invalid_request", "grant_type is required."));
    if (grantType !== "authorization_code" && grantType !== "refresh_token") {
      return failed(ctx, failure(400, "unsupported_grant_type", `grant_type ${grantType} is not supported: authorization_code or refresh_token.`));
    }
    const details = validateChosen("TokenRequest", form);
    if (details.length > 0) return failed(ctx, failure(400, "invalid_request", details.map((d) => d.message).join("; ")));
    const base = ctx.baseUrl;
    const client = await authenticateClient(hub, hub.oauthOptions, form, [`${base}/oauth/token`, base]);
    if (isFailure(client)) return failed(ctx, client);
    const hashed = grantType === "authorization_code" ? await s256(form.code_verifier!) : "";
    // The state step: no await below.
    const reply = grantType === "authorization_code" ? exchangeCode(hub, hub.oauthOptions, client, form, hashed, base) : refreshTokens(hub, hub.oauthOptions, client, form);
    if (isFailure(reply)) return failed(ctx, reply);
    const headers = baseHeaders(ctx);
    headers["content-type"] = "application/json; charset=utf-8";
    headers["cache-control"] = "no-store";
    headers.pragma = "no-cache";
    return { kind: "body", status: 200, headers, body: JSON.stringify(reply) };
  });

// The contract gives revoke no 400 of its own for an unidentified client: a request whose
// client cannot be identified (not a form, a parameter twice, no client_id or assertion)
// answers 401 invalid_client, and a missing token answers 400 invalid_request.
export const revokeTokenRoute: Handler = (ctx) =>
  deferred(ctx, async () => {
    const hub = ctx.hub;
    const form = readForm(ctx);
    if (isFailure(form)) return failed(ctx, failure(401, "invalid_client", `The client cannot be identified: ${form.description}`));
    const secret = refusedSecret(form, headerOf(ctx, "authorization"));
    if (secret) return failed(ctx, secret);
    if (form.client_id === undefined && form.client_assertion === undefined) {
      return failed(ctx, failure(401, "invalid_client", "The client must identify itself: client_id (none) or client_assertion_type with client_assertion (private_key_jwt)."));
    }
    const base = ctx.baseUrl;
    const client = await authenticateClient(hub, hub.oauthOptions, form, [`${base}/oauth/revoke`, `${base}/oauth/token`, base]);
    if (isFailure(client)) return failed(ctx, client);
    // RFC 7009 section 2.2.1: a request without the token is malformed (an unknown token is not).
    if (!form.token) return failed(ctx, failure(400, "invalid_request", "The request has no token to revoke."));
    // The state step: no await below.
    revokeToken(hub, client, form.token);
    const headers = baseHeaders(ctx);
    headers["cache-control"] = "no-store";
    return { kind: "body", status: 200, headers, body: "" };
  });
