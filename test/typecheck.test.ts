// The repository type-checks: `tsc -p tsconfig.json` (sources, scripts, tests, benches; what
// `npm run typecheck` runs) reports no error. A test file rather than a step before vitest,
// so its 10 to 15 s of one core overlap the other files' waits; vitest.config.ts starts it
// first, so it never trails the run.
import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { at } from "../scripts/lib/paths.ts";

it("tsc -p tsconfig.json reports no error", async () => {
  const child = spawn(process.execPath, [at("node_modules/typescript/bin/tsc"), "-p", at("tsconfig.json"), "--pretty", "false"], { cwd: at("."), stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  expect(output.trim(), "tsc's errors").toBe("");
  expect(code).toBe(0);
}, 180_000);
