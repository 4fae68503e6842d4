// `npm run conformance` in this repository: the conformance suite's command line.
import { runConformanceCli } from "./cli.ts";

await runConformanceCli(process.argv.slice(2), { program: "npm run conformance --" });
