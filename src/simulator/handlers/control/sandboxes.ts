// Control routes of the sandboxes (each a hub of its own in the same simulator; the
// registry is sandboxes.ts, the routing the front door's `sandbox` step):
//   GET    /_sim/sandboxes                       the live ones
//   POST   /_sim/sandboxes  { "scenario" }       a new one (201): its id, base_url, api_key and keys
//   GET    /_sim/sandboxes/{id}                  one
//   DELETE /_sim/sandboxes/{id}                  ends one: its streams end, its keys stop working
// Every other /_sim/ route works on a sandbox under its base path
// (`/sandboxes/{id}/_sim/reset`, ...): the same control table, answered by its hub.
import { refuse, type Refusal } from "../../domain/refusal.ts";
import { isRefusal, json, type Ctx } from "../../pipeline/context.ts";
import type { SandboxDirectory, SandboxView } from "../../pipeline/services.ts";
import type { ScenarioFile } from "../../state/scenario/format.ts";
import { controlBody, invalid, type ControlRoutes } from "./body.ts";

/** The directory, or the refusal of a hub made alone (no server: no sandboxes). */
function directory(ctx: Ctx): SandboxDirectory | Refusal {
  return ctx.hub.sandboxes ?? refuse("not_found", { message: "Sandboxes belong to a simulator server (generation-hub mock, startSimulator()): this hub was made alone (new Hub(), the Mock Service Worker handlers), where each test makes its own hub instead." });
}

/** The view with the address that reaches the sandbox by its base path (on the address this request came in on). */
function withBase(ctx: Ctx, view: SandboxView) {
  return { ...view, base_url: `${ctx.hub.publicUrl ?? ctx.req.baseUrl}/sandboxes/${view.id}` };
}

export const sandboxControl: ControlRoutes = {
  "GET sandboxes": (ctx) => {
    const d = directory(ctx);
    return isRefusal(d) ? d : json(ctx, 200, { data: d.list().map((v) => withBase(ctx, v)) });
  },
  "POST sandboxes": (ctx) => {
    const d = directory(ctx);
    if (isRefusal(d)) return d;
    const body = controlBody(ctx);
    if (isRefusal(body)) return body;
    const unknown = Object.keys(body).filter((k) => k !== "scenario");
    if (unknown.length > 0) return invalid(unknown[0]!, `${unknown[0]} is not a field of a new sandbox (it takes scenario only)`, "unknown_field");
    const scenario = body.scenario;
    if (scenario !== undefined && typeof scenario !== "string" && (scenario === null || typeof scenario !== "object" || Array.isArray(scenario))) {
      return invalid("scenario", "scenario is a shipped scenario's name or a scenario file (a JSON object)", "wrong_type");
    }
    const made = d.create(scenario as string | ScenarioFile | undefined);
    return isRefusal(made) ? made : json(ctx, 201, withBase(ctx, made));
  },
  "GET sandboxes/{id}": (ctx, { id }) => {
    const d = directory(ctx);
    if (isRefusal(d)) return d;
    const found = d.find(id!);
    return isRefusal(found) ? found : json(ctx, 200, withBase(ctx, found));
  },
  "DELETE sandboxes/{id}": (ctx, { id }) => {
    const d = directory(ctx);
    if (isRefusal(d)) return d;
    const removed = d.remove(id!);
    return isRefusal(removed) ? removed : json(ctx, 200, { ...withBase(ctx, removed), deleted: true });
  },
};
