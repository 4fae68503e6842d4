// /_sim/sessions: lists, starts (as an account, no sign-in form) and ends site sessions.
import { refuse } from "../../domain/refusal.ts";
import { isRefusal, json } from "../../pipeline/context.ts";
import { invalid, type ControlRoute } from "./body.ts";

export const sessionsControl: ControlRoute = (ctx, parts, body) => {
  if (parts[0] !== "sessions") return undefined;
  const sessions = ctx.hub.sessions;
  const method = ctx.req.method;
  const all = ctx.hub.state.sessions;
  if (parts.length === 1 && method === "GET") return json(ctx, 200, { data: [...all.values()].map((s) => sessions.view(s)) });
  if (parts.length === 1 && method === "POST") {
    const b = body();
    if (isRefusal(b)) return b;
    const accountId = typeof b.account_id === "string" ? b.account_id : "acc_demo";
    if (!ctx.hub.state.accounts.has(accountId)) return invalid("account_id", "no such account", "not_allowed");
    return json(ctx, 201, sessions.view(sessions.start(accountId)));
  }
  if (parts.length === 2 && (method === "DELETE" || method === "GET")) {
    const session = [...all.values()].find((s) => s.id === parts[1] || s.secret === parts[1]);
    if (!session) return refuse("not_found", { message: "No such session." });
    if (method === "DELETE") sessions.end(session);
    return json(ctx, 200, { ...sessions.view(session), ended: method === "DELETE" });
  }
  return undefined;
};
