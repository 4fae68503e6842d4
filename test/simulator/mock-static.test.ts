// `npm run mock:static`: Prism on the bundled document, on the port asked for, serving the
// named error examples with the Prefer form README documents.
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../src/conformance/run/prism.ts";

function run(args: string[]): { child: ChildProcess; output: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/mock-static.ts", ...args], { cwd: process.cwd(), stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  return { child, output: () => out, exit: new Promise((resolve) => child.once("exit", resolve)) };
}

describe("npm run mock:static", () => {
  let port: number;
  let mock: ReturnType<typeof run>;
  beforeAll(async () => {
    port = await freePort();
    mock = run(["--port", String(port)]);
    const deadline = Date.now() + 60_000;
    while (!(await fetch(`http://127.0.0.1:${port}/v1/whoami`).then(() => true, () => false))) {
      if (Date.now() > deadline || mock.child.exitCode !== null) throw new Error(`the static mock did not answer:\n${mock.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }, 70_000);
  afterAll(async () => {
    mock.child.kill("SIGTERM");
    await mock.exit;
  });

  it("ERR-2: listens on --port and answers a named error example for Prefer: code=400, example=invalid_cursor", async () => {
    const r = await fetch(`http://127.0.0.1:${port}/v1/generations?cursor=x`, { headers: { authorization: "Bearer ghk_any", prefer: "code=400, example=invalid_cursor" } });
    expect(r.status).toBe(400);
    expect((await r.json()).error.code).toBe("invalid_cursor");
  });

  it("a port in use, or one out of range, is one line", async () => {
    const busy = run(["--port", String(port)]);
    expect(await busy.exit).toBe(1);
    expect(busy.output().trim()).toBe(`Port ${port} on 127.0.0.1 is already in use: stop what listens there, or pick another port with --port <n> (or MOCK_PORT).`);
    const bad = run(["--port", "99999"]);
    expect(await bad.exit).toBe(2);
    expect(bad.output().trim()).toBe('--port (MOCK_PORT) is a whole number from 0 to 65535, got "99999"');
  });
});
