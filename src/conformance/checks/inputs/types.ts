// The types of every input: every field of every operation's body sent once with another
// JSON type, once as null, and once as what a lenient parser would take for a valid value
// ("2" for 2, "true" for true, ["a"] for "a"); a field the body does not have and each
// field of another variant; the body as JSON null and a JSON body sent as text/plain. The
// requirements close every request ("A body that fails validation answers 400
// `invalid_request` with `details`", the reason `wrong_type`, `unknown_field`), so each is
// refused, never served, never a crash. Read from the contract; in every run, one request
// each (`--generate` adds every other wrong value and the combinations).
import { generatedRules } from "../../kit/generate/plans.ts";
import { typeCases } from "../../kit/generate/cases.ts";
import { KNOWN_FACTS } from "../../kit/known.ts";
import { type Check } from "../../facts/check.ts";
import { everyOperation, sample } from "./every-operation.ts";

export const typesEveryInput: Check = {
  name: "the types of every input",
  rules: generatedRules(),
  needs: { uses: KNOWN_FACTS },
  run: (c) => everyOperation(c, "the types of every input", (plan, known) => (plan.body ? typeCases(plan, known, plan.operation.path.includes("{") ? sample(plan) : plan.operation.path) : [])),
};
