// `npm start` (src/simulator/main.ts) as a child process: run to its end, or started until
// it listens. Everything it prints (stdout and stderr together) is kept. It runs bundled
// (test/support/bundled.ts), or through tsx as `npm start` runs it when a test asks (`tsx`).
import { spawn, type ChildProcess } from "node:child_process";
import { expect } from "vitest";
import { programArgs, type Launch } from "../../support/bundled.ts";

async function launch(args: string[], env: Record<string, string>, how: Launch): Promise<{ child: ChildProcess; out: () => string }> {
  const child = spawn(process.execPath, [...(await programArgs("src/simulator/main.ts", how)), ...args], { cwd: process.cwd(), env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  return { child, out: () => out };
}

const exited = (child: ChildProcess) => new Promise<unknown>((resolve) => child.on("exit", resolve));

/** Runs the CLI to its end; answers its exit code and everything it printed. */
export async function runCli(args: string[], env: Record<string, string> = {}, how: Launch = {}): Promise<{ code: unknown; out: string }> {
  const { child, out } = await launch(args, env, how);
  const code = await exited(child);
  return { code, out: out() };
}

export interface RunningCli {
  /** The base address it printed. */
  url: string;
  /** Everything printed so far. */
  out(): string;
  /** SIGTERM; answers the exit code. */
  stop(): Promise<unknown>;
}

/** Starts the CLI and waits until it prints the address it listens on. */
export async function startCli(args: string[], env: Record<string, string> = {}, how: Launch = {}): Promise<RunningCli> {
  const { child, out } = await launch(args, env, how);
  const stopped = exited(child);
  const stop = () => {
    child.kill("SIGTERM");
    return stopped;
  };
  const listening = () => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out());
  try {
    await expect.poll(listening, { timeout: 15_000 }).toBeTruthy();
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: listening()![1]!, out, stop };
}
