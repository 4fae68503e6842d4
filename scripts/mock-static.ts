// `npm run mock:static`: Prism serving the bundled document's examples (no state) on
// 127.0.0.1:4011, unless `--port` / `--host` (or MOCK_PORT / MOCK_HOST) say otherwise.
// Any other flag goes to `prism mock` as it is. Ask for an error example with
// `Prefer: code=400, example=invalid_cursor` (Prism picks the example within the status).
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const DOCUMENT = fileURLToPath(new URL("../generated/openapi.yaml", import.meta.url));

function fail(line: string, code: number): never {
  console.error(line);
  process.exit(code);
}

let host = process.env.MOCK_HOST || "127.0.0.1";
let portText = process.env.MOCK_PORT || "4011";
const passed: string[] = [];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const arg = args[i]!;
  const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
  if (flag === "--port" || flag === "-p" || flag === "--host" || flag === "-h") {
    const value = inline ?? args[++i];
    if (value === undefined) fail(`${flag} needs a value`, 2);
    if (flag === "--port" || flag === "-p") portText = value;
    else host = value;
  } else {
    passed.push(arg);
  }
}
const port = Number(portText);
if (!Number.isInteger(port) || port < 0 || port > 65_535) fail(`--port (MOCK_PORT) is a whole number from 0 to 65535, got ${JSON.stringify(portText)}`, 2);

// Prism reports a port in use with a stack trace; say it in one line first.
await new Promise<void>((resolve) => {
  const probe = createServer();
  probe.once("error", (error: Error & { code?: string }) => {
    if (error.code === "EADDRINUSE") fail(`Port ${port} on ${host} is already in use: stop what listens there, or pick another port with --port <n> (or MOCK_PORT).`, 1);
    fail(`The static mock could not listen on ${host}:${port}: ${error.message}`, 1);
  });
  probe.listen(port, host, () => probe.close(() => resolve()));
});

// Prism's own entry point, not its npm wrapper: a signal then reaches Prism itself.
const prism = join(dirname(createRequire(import.meta.url).resolve("@stoplight/prism-cli/package.json")), "dist", "index.js");
const child = spawn(process.execPath, [prism, "mock", "--host", host, "--port", String(port), "--errors=false", ...passed, DOCUMENT], { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => child.kill(signal));
child.once("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
