// npm in a fresh project, as a user runs it: its warnings are findings. An install of the
// packed packages must be warning-free on every supported Node (engines: ^20.19.0 ||
// ^22.12.0 || >=24), so a test that installs them fails on any warning npm prints, under
// the Node it runs on (npm runs on the `node` first on PATH: the test's own is put there).
import { spawnSync } from "node:child_process";
import { delimiter, dirname } from "node:path";

/**
 * npm's notices that say nothing about our packages: npm 11 lists every package whose
 * install script its `allowScripts` policy has not approved (msw's postinstall, which the
 * user installs beside the dev tools, and esbuild's), a policy of the user's machine.
 */
const NOT_OURS = [/^npm warn install-scripts\b/];

/** The `npm warn` and `npm error` lines of npm's output that are findings. */
export function npmWarnings(output: string): string[] {
  return output
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => /^npm (warn|error|ERR!)/i.test(line) && !NOT_OURS.some((re) => re.test(line)));
}

/**
 * Runs `npm <args>` in `cwd` on the test's own Node; throws with npm's output when it
 * fails. Answers what it printed to stdout and the warnings that are findings (an
 * `EBADENGINE` of a dependency on this Node, a deprecated package, a peer conflict).
 */
export function npmIn(cwd: string, args: string[], env: NodeJS.ProcessEnv = process.env): { stdout: string; warnings: string[] } {
  const r = spawnSync("npm", args, { cwd, encoding: "utf8", env: { ...env, PATH: `${dirname(process.execPath)}${delimiter}${env.PATH ?? ""}`, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" } });
  const output = `${r.stdout}\n${r.stderr}`;
  if (r.status !== 0) throw new Error(`npm ${args.join(" ")} failed (${r.status ?? r.signal}) in ${cwd}:\n${output}`);
  return { stdout: r.stdout, warnings: npmWarnings(output) };
}
