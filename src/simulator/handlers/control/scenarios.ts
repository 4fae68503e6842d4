// Control routes of scenarios:
//   GET  /_sim/scenarios                          the shipped scenarios, the one in force and the starting one
//   GET  /_sim/scenario[?name=&description=]      the current state as a scenario file
//   POST /_sim/scenario  { "name" } | a scenario  puts a shipped scenario or the one sent in force, until a reset
// A scenario that is not valid answers 400 invalid_request naming each field at fault.
import { refuse, type Refusal } from "../../domain/refusal.ts";
import { isRefusal, json, type Ctx } from "../../pipeline/context.ts";
import type { HubServices } from "../../pipeline/services.ts";
import { jsonSliced } from "../../pipeline/sliced.ts";
import { SCENARIO_VERSION, type Scenario, type ScenarioFile } from "../../state/scenario/format.ts";
import { readScenario, ScenarioError, shippedNames, shippedScenario } from "../../state/scenario/read.ts";
import { controlBody, type ControlRoutes } from "./body.ts";

function summary(s: Scenario) {
  return { name: s.name, description: s.description };
}

/** Runs `act`; a ScenarioError becomes 400 with its details. */
function checked(act: () => unknown): Refusal | undefined {
  try {
    act();
    return undefined;
  } catch (error) {
    if (error instanceof ScenarioError) return refuse("invalid_request", { details: [...error.details] });
    throw error;
  }
}

function loaded(ctx: Ctx, hub: HubServices) {
  const s = hub.scenario;
  return json(ctx, 200, { ...summary(s), keys: s.keys.map((k) => ({ secret: k.secret, id: k.id, account_id: k.account_id, purpose: k.purpose })) });
}

export const scenarioControl: ControlRoutes = {
  "GET scenarios": (ctx) => json(ctx, 200, { data: shippedNames.map((name) => summary(shippedScenario(name)!)), loaded: ctx.hub.scenario.name, starting: ctx.hub.startingScenario.name }),
  "GET scenario": (ctx) => {
    const header = { name: ctx.query.get("name") ?? undefined, description: ctx.query.get("description") ?? undefined };
    const capture = ctx.hub.captureScenario(header);
    // A name or description given in the query must make a file that loads.
    const refused = checked(() => readScenario({ scenario_version: SCENARIO_VERSION, name: capture.name, description: capture.description, accounts: [] }));
    if (refused) return refused;
    // Written a slice at a time: other requests are answered meanwhile (pipeline/sliced.ts).
    capture.open();
    return jsonSliced(ctx, 200, capture.text(), () => capture.close());
  },
  "POST scenario": (ctx) => {
    const b = controlBody(ctx);
    if (isRefusal(b)) return b;
    // `{ "name": ... }` alone names a shipped scenario; anything else is a scenario file.
    const byName = Object.keys(b).length === 1 && typeof b.name === "string";
    // Read (and refused) by loadScenario itself: the body is whatever was sent.
    return checked(() => ctx.hub.loadScenario(byName ? (b.name as string) : (b as unknown as ScenarioFile))) ?? loaded(ctx, ctx.hub);
  },
};
