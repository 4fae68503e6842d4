// Control routes of faults (domain/faults.ts; the format: Fault in scenario.schema.json):
//   GET    /_sim/faults                  the faults in force, with what they have done
//   POST   /_sim/faults  fault | { "faults": [...] }   puts them in force (201), all or none
//   DELETE /_sim/faults                  takes every fault out of force
//   GET    /_sim/faults/{id}, DELETE /_sim/faults/{id}   one fault
// A fault that is not valid answers 400 invalid_request naming each field at fault. A
// reset puts back the faults of the options and of the scenario, and only those.
import { refuse, type Refusal } from "../../domain/refusal.ts";
import { isRefusal, json } from "../../pipeline/context.ts";
import { FaultError, readFaults } from "../../state/faults.ts";
import { controlBody, type ControlRoutes } from "./body.ts";

/** Runs `act`; a FaultError becomes 400 with its details. */
function checked<T>(act: () => T): T | Refusal {
  try {
    return act();
  } catch (error) {
    if (error instanceof FaultError) return refuse("invalid_request", { details: [...error.details] });
    throw error;
  }
}

export const faultsControl: ControlRoutes = {
  "GET faults": (ctx) => json(ctx, 200, { data: ctx.hub.faults.list() }),
  "POST faults": (ctx) => {
    const plan = ctx.hub.faults;
    const b = controlBody(ctx);
    if (isRefusal(b)) return b;
    // `{ "faults": [...] }` is a list (its fields named `faults.<index>.…`); anything else is one fault.
    const list = Object.keys(b).length === 1 && "faults" in b;
    if (list && !Array.isArray(b.faults)) return refuse("invalid_request", { details: [{ field: "faults", reason: "wrong_type", message: "faults must be an array of faults" }] });
    const added = checked(() => (list ? plan.add(readFaults(b.faults, "faults"), "control", (i) => `faults.${i}`) : plan.add(readFaults(b), "control", () => "")));
    return isRefusal(added) ? added : json(ctx, 201, { data: added });
  },
  "DELETE faults": (ctx) => json(ctx, 200, { cleared: ctx.hub.faults.clear(), data: [] }),
  "GET faults/{id}": (ctx, { id }) => {
    const found = ctx.hub.faults.list().find((f) => f.id === id);
    return found ? json(ctx, 200, found) : refuse("not_found", { message: `No fault ${id} is in force.` });
  },
  "DELETE faults/{id}": (ctx, { id }) => {
    const found = ctx.hub.faults.remove(id!);
    return found ? json(ctx, 200, found) : refuse("not_found", { message: `No fault ${id} is in force.` });
  },
};
