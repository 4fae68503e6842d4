// The scenarios shipped with the simulator, by name, the default first. Each is a plain
// JSON file beside this module (scenario.schema.json describes them), imported here so
// a bundle carries them: nothing scans a directory at run time.
import busyAccount from "./busy-account.json" with { type: "json" };
import demo from "./demo.json" with { type: "json" };
import emptyAccount from "./empty-account.json" with { type: "json" };
import expiringKey from "./expiring-key.json" with { type: "json" };
import freeAccount from "./free-account.json" with { type: "json" };
import outOfCredits from "./out-of-credits.json" with { type: "json" };
import rateLimited from "./rate-limited.json" with { type: "json" };

export { default as scenarioSchema } from "./scenario.schema.json" with { type: "json" };

/** The scenario the simulator (`generation-hub mock`, `new Hub()`) starts from without one named. */
export const DEFAULT_SCENARIO = "demo";

/** Parsed files by name (each file's `name` is its key): read them with readScenario. */
export const shippedScenarios: Readonly<Record<string, unknown>> = {
  [DEFAULT_SCENARIO]: demo,
  "empty-account": emptyAccount,
  "busy-account": busyAccount,
  "free-account": freeAccount,
  "out-of-credits": outOfCredits,
  "rate-limited": rateLimited,
  "expiring-key": expiringKey,
};
