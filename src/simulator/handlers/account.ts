// Account routes: GET /v1/whoami and GET /v1/me. The subject comes from the credential.
import { json, type Handler } from "../pipeline/context.ts";

const readWhoami: Handler = (ctx) => {
  const c = ctx.credential!;
  return json(ctx, 200, {
    user_id: c.accountId,
    role: ctx.account!.role,
    channel: c.channel,
    key_id: c.keyId,
    scopes: c.scopes,
  });
};

const readAccount: Handler = (ctx) => {
  const a = ctx.account!;
  const hub = ctx.hub;
  const limits = hub.limiter.config;
  return json(ctx, 200, {
    id: a.id,
    plan: { id: a.plan.id, paid: a.plan.paid },
    credits: { main_cc: a.balance_cc },
    free_quotas: a.free_quotas.map((q) => ({ type: q.type, remaining: q.remaining, mode: q.mode })),
    limits: {
      submissions: {
        limit: limits.submitQuota,
        window_seconds: limits.windowSeconds,
        remaining: Math.max(0, limits.submitQuota - hub.limiter.submitsUsed(a.id)),
      },
      concurrency: { limit: limits.concurrency, in_use: hub.generations.inProgress(a.id).size },
      requests: {
        default: { quota: limits.keyQuota, window_seconds: limits.windowSeconds },
        account: { quota: limits.accountQuota, window_seconds: limits.windowSeconds },
      },
    },
  });
};

export const accountHandlers = { readWhoami, readAccount };
