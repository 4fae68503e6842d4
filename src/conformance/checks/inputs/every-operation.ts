// One sweep over the operations, shared by the properties that send each operation its
// own cases once per run (the bounds of every input, the types of every input): each
// operation's cases go with a key that holds its scope, gated as its writes and spending
// are (its rule n/a with the reason), every answer judged by the generator's rules
// (send-cases.ts). The submit's body is left to the price estimate: the same body, refused
// the same way (PRICE-7), and free.
import fc from "fast-check";
import { operations } from "../../../contract/index.ts";
import type { Case } from "../../kit/generate/cases.ts";
import { planFor, type Known, type Plan } from "../../kit/generate/plans.ts";
import { keyFor } from "../../kit/credentials.ts";
import { selects } from "../../kit/routes.ts";
import { knownOf } from "../../kit/known.ts";
import { errorCodeOf } from "../../target/exchange.ts";
import { type CheckContext } from "../../facts/check.ts";
import { judge, send } from "./send-cases.ts";

/** The fixed seed these sweeps send with: the same cases every run. */
const REPLAY = { seed: 0, perOperation: 0 };

/** Which flag an operation's probes need, or why they are not sent. */
function notAllowed(c: CheckContext, plan: Plan): string | undefined {
  if (plan.needs === "spend" && !c.settings.spend) return "needs --allow-spend";
  if (plan.needs === "writes" && !c.settings.writes) return "needs --allow-writes";
  return undefined;
}

/** A path of the operation as the generator fills it (this run's objects where it has them). */
export function sample(plan: Plan): string {
  return fc.sample(plan.paths, { seed: REPLAY.seed, numRuns: 1 })[0]!;
}

/** Sends each operation the cases `casesOf` gives it, one request each, and judges every answer (`what` names the property in its findings); `after` follows an operation's cases. */
export async function everyOperation(c: CheckContext, what: string, casesOf: (plan: Plan, known: Known) => Case[], after?: (plan: Plan, as: Awaited<ReturnType<typeof keyFor>>) => Promise<void>): Promise<void> {
  // Reports only on the run's first generation: the reports check revokes its second.
  const known = { ...knownOf(c), createdIds: knownOf(c).createdIds.slice(0, 1) };
  for (const op of operations()) {
    if (op.operationId === "submitGeneration") continue;
    const plan = planFor(op.operationId, known);
    if ("skipped" in plan) continue;
    const why = notAllowed(c, plan);
    const cases = casesOf(plan, known);
    if (cases.length === 0) continue;
    if (why) {
      c.skip([plan.invalidRule], `${what} of ${op.operationId} not probed: ${why}`);
      continue;
    }
    const as = await keyFor(c, op.scope);
    for (const kase of cases.filter((k) => selects(c, k.fault?.rule ?? k.validRule))) {
      const ex = await send(c, plan, kase, REPLAY, as);
      const finding = judge(c, plan, kase, ex);
      const rule = kase.fault?.rule ?? kase.validRule;
      if (finding) c.fail(finding.rule, `${op.operationId}: ${finding.message} (${what})`, ex);
      else if (ex.status !== 429 && errorCodeOf(ex.json) !== "service_unavailable") c.pass(rule);
    }
    await after?.(plan, as);
  }
}
