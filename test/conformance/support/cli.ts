// `npm run conformance` in a child process, as a user runs it: its exit status and what it
// printed. The caller's HUB_BASE_URL and HUB_API_KEY are cleared (a run starts its own
// simulator unless the test gives them). It runs bundled (test/support/bundled.ts), or
// through tsx as `npm run conformance` runs it when a test asks (`tsx`); then Node loads tsx
// itself: the tsx command would start a second Node process to do it (about 0.2 s of CPU).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { programArgs, type Launch } from "../../support/bundled.ts";

export const root = fileURLToPath(new URL("../../../", import.meta.url));

export async function cli(args: string[], env: Record<string, string> = {}, how: Launch = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const program = await programArgs("src/conformance/main.ts", how);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...program, ...args], { cwd: root, env: { ...process.env, HUB_BASE_URL: "", HUB_API_KEY: "", ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
