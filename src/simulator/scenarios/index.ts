// The scenarios shipped with the simulator, by name, the default first. Each is a plain
// JSON file beside this module (scenario.schema.json describes them), imported here so
// a bundle carries them: nothing scans a directory at run time.
import demo from "./demo.json" with { type: "json" };

export { default as scenarioSchema } from "./scenario.schema.json" with { type: "json" };

/** The scenario `npm start` (and `new Hub()`) starts from without one named. */
export const DEFAULT_SCENARIO = "demo";

/** Parsed files by name (each file's `name` is its key): read them with readScenario. */
export const shippedScenarios: Readonly<Record<string, unknown>> = {
  [DEFAULT_SCENARIO]: demo,
};
