// Prism (5.14.2, a dev dependency) as a second opinion: `prism proxy` in front of the
// server validates every answer against the bundled document and says what it found in
// the `sl-violations` header (the suite reads it); `prism mock` serves the document's
// examples as a static mock. Errors are left off (`--errors=false`) so answers pass
// through unchanged, and CORS is off so the suite's preflight check sees the server.
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const DOCUMENT = fileURLToPath(new URL("../../../generated/openapi.yaml", import.meta.url));

/** Prism's own entry point; Prism is not a dependency of the dev tools (it is large), so `--prism` asks for it. */
function prismCli(): string {
  const require = createRequire(import.meta.url);
  let pkg: string;
  try {
    pkg = require.resolve("@stoplight/prism-cli/package.json");
  } catch {
    throw new Error("Prism is not installed: --prism needs it beside the suite (npm install --save-dev @stoplight/prism-cli@5.14.2)");
  }
  return join(dirname(pkg), "dist", "index.js");
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface RunningPrism {
  url: string;
  close(): Promise<void>;
}

/** Starts `prism proxy <document> <upstream>` (or `prism mock <document>`) and waits until it answers. */
export function startPrism(mode: "proxy" | "mock", upstream?: string, timeoutMs = 60_000): Promise<RunningPrism> {
  return onFreePort((port) => launchPrism(mode, upstream, timeoutMs, port));
}

/** The port a server was to listen on was taken by another process first. */
export class PortTaken extends Error {}

/**
 * Starts a server on a port `pick` chooses. A free port may be taken by another process
 * before the server listens on it (tests run in parallel): when `start` says so
 * (`PortTaken`), a new port is tried, `attempts` times in all; any other failure is not.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>, attempts = 3, pick: () => Promise<number> = freePort): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await pick());
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt >= attempts) throw error;
    }
  }
}

async function launchPrism(mode: "proxy" | "mock", upstream: string | undefined, timeoutMs: number, port: number): Promise<RunningPrism> {
  const args = [prismCli(), mode, DOCUMENT, ...(mode === "proxy" ? [upstream!] : []), "--host", "127.0.0.1", "--port", String(port), "--errors=false", "--cors=false", "-v", "error"];
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
      await exited;
      clearTimeout(timer);
    }
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      if (/EADDRINUSE/.test(stderr)) throw new PortTaken(`port ${port} was taken`);
      throw new Error(`prism ${mode} exited (${child.exitCode}): ${stderr.trim().slice(-600)}`);
    }
    try {
      // Ready when the answer is Prism's (the discovery document, JSON), not another server's
      // that took the port first.
      const res = await fetch(`${url}/.well-known/oauth-authorization-server`, { signal: AbortSignal.timeout(2000) });
      await res.body?.cancel();
      if ((res.headers.get("content-type") ?? "").includes("json") && child.exitCode === null) return { url, close };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await close();
  throw new Error(`prism ${mode} did not answer within ${timeoutMs / 1000} s: ${stderr.trim().slice(-600)}`);
}
