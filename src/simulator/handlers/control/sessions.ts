// /_sim/sessions: lists, starts (as an account, no sign-in form) and ends site sessions.
import { refuse } from "../../domain/refusal.ts";
import { isRefusal, json, type Ctx } from "../../pipeline/context.ts";
import type { Session } from "../../state/sessions.ts";
import { controlBody, invalid, type ControlRoutes } from "./body.ts";

/** The session `{id}` (by id or cookie value). */
function sessionAt(ctx: Ctx, id: string): Session | undefined {
  return [...ctx.hub.state.sessions.values()].find((s) => s.id === id || s.secret === id);
}

export const sessionsControl: ControlRoutes = {
  "GET sessions": (ctx) => json(ctx, 200, { data: [...ctx.hub.state.sessions.values()].map((s) => ctx.hub.sessions.view(s)) }),
  "POST sessions": (ctx) => {
    const b = controlBody(ctx);
    if (isRefusal(b)) return b;
    const accountId = typeof b.account_id === "string" ? b.account_id : "acc_demo";
    if (!ctx.hub.state.accounts.has(accountId)) return invalid("account_id", "no such account", "not_allowed");
    return json(ctx, 201, ctx.hub.sessions.view(ctx.hub.sessions.start(accountId)));
  },
  "GET sessions/{id}": (ctx, { id }) => {
    const session = sessionAt(ctx, id!);
    return session ? json(ctx, 200, { ...ctx.hub.sessions.view(session), ended: false }) : refuse("not_found", { message: "No such session." });
  },
  "DELETE sessions/{id}": (ctx, { id }) => {
    const session = sessionAt(ctx, id!);
    if (!session) return refuse("not_found", { message: "No such session." });
    ctx.hub.sessions.end(session);
    return json(ctx, 200, { ...ctx.hub.sessions.view(session), ended: true });
  },
};
