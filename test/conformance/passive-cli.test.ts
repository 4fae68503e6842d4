// Passive mode on the command line: `--listen PORT --base-url URL [-- COMMAND]`, `--duration`
// and `--judge-har FILE`, their exit status (1 for a finding or a failed command, 2 for bad
// input, with one line and no stack), and no secret in what they print.
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningSimulator } from "../../src/simulator/index.ts";
import { cli } from "./support/cli.ts";
import { DOUBLES } from "./support/doubles.ts";
import { startProxy } from "./support/proxy.ts";
import { startSim } from "./support/run.ts";

const KEY = "ghk_demo_full";
/** A client run by `--`: reads the account and the catalog through the proxy (its key from its own variable), then exits with $EXIT. */
const CLIENT = `const h={authorization:"Bearer "+process.env.APP_KEY};for(const p of ["/v1/me","/v1/models","/v1/generations?limit=1000"]){const r=await fetch(process.env.HUB_BASE_URL+p,{headers:h});await r.text();}process.exit(Number(process.env.EXIT??0))`;
const client = ["--", process.execPath, "--input-type=module", "-e", CLIENT];

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSim();
});
afterAll(async () => {
  await sim.close();
});

/** The one line a refusal prints (no stack, no usage text). */
function oneLine(stderr: string): string {
  const lines = stderr.trim().split("\n");
  expect(lines[0]).toMatch(/^conformance: /);
  expect(stderr).not.toMatch(/\n\s+at /);
  return lines[0]!;
}

describe("generation-hub conformance --listen", () => {
  it("runs the command with the proxy up, judges its traffic, prints the report and exits 0; the key shows nowhere", async () => {
    // HUB_API_KEY in the environment is the client's to use: passive mode leaves it alone.
    const run = await cli(["--listen", "0", "--base-url", sim.url, "--json", ...client], { APP_KEY: KEY, HUB_API_KEY: KEY });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/passive proxy at http:\/\/127\.0\.0\.1:\d+ in front of/);
    expect(run.stderr).toMatch(/ended with exit status 0/);
    const report = JSON.parse(run.stdout);
    expect(report.passive).toMatchObject({ source: "proxy", upstream: sim.url, judged: { judged: 3 }, command: { exitCode: 0 } });
    expect(report.summary.fail).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(KEY);
  });

  it("names the command by its program only: an argument may carry a secret the proxy cannot know", async () => {
    const secret = "s3cr3t-token-given-as-an-argument";
    const run = await cli(["--listen", "0", "--base-url", sim.url, "--json", ...client, secret], { APP_KEY: KEY });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/ended with exit status 0/);
    expect(JSON.parse(run.stdout).passive.command.line).toBe(`${process.execPath} ...`);
    expect(run.stdout + run.stderr).not.toContain(secret);
  });

  it("exits non-zero when the command fails, or when the traffic shows a finding (said as it happens)", async () => {
    const failed = await cli(["--listen", "0", "--base-url", sim.url, ...client], { APP_KEY: KEY, EXIT: "3" });
    expect(failed.code, failed.stderr).toBe(1);
    expect(failed.stderr).toMatch(/ended with exit status 3/);
    expect(failed.stdout).toMatch(/PASSED/);

    const double = DOUBLES.find((d) => d.title === "drops request_id from the error envelope")!;
    const broken = await startProxy(sim.url, double.make(sim));
    try {
      const found = await cli(["--listen", "0", "--base-url", broken.url, ...client], { APP_KEY: KEY });
      expect(found.code, found.stderr).toBe(1);
      expect(found.stderr).toMatch(/^FAIL ENV-4 /m);
      expect(found.stdout + found.stderr).not.toContain(KEY);
    } finally {
      await broken.close();
    }
  });

  it("stops after --duration with no traffic, and refuses a port taken, a bad upstream and active options with one line and status 2", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as AddressInfo).port;
    // Independent runs, side by side (each mostly waits).
    const [idle, busy, ftp, active] = await Promise.all([
      cli(["--listen", "0", "--base-url", sim.url, "--duration", "1"]),
      cli(["--listen", String(port), "--base-url", sim.url, "--duration", "1"]),
      cli(["--listen", "0", "--base-url", "ftp://127.0.0.1/", "--duration", "1"]),
      cli(["--listen", "0", "--base-url", sim.url, "--api-key", "ghk_secret_of_theirs"]),
    ]).finally(() => taken.close());
    expect(idle.code, idle.stderr).toBe(0);
    expect(idle.stdout).toMatch(/0 requests/);
    expect(busy.code).toBe(2);
    expect(oneLine(busy.stderr)).toMatch(new RegExp(`--listen ${port}: the proxy cannot listen there \\(EADDRINUSE\\)`));
    expect(ftp.code).toBe(2);
    expect(oneLine(ftp.stderr)).toMatch(/--base-url ftp:\/\/127\.0\.0\.1\/: the upstream must be an http: or https: address/);
    expect(active.code).toBe(2);
    expect(oneLine(active.stderr)).toMatch(/sends no request of its own: leave out apiKey/);
    expect(active.stderr).not.toContain("ghk_secret_of_theirs");
  });
});

describe("generation-hub conformance --judge-har", () => {
  it("judges a HAR file, and refuses one that cannot be read or is not HAR with one line and status 2", async () => {
    const dir = mkdtempSync(join(tmpdir(), "judge-har-"));
    const res = await fetch(`${sim.url}/v1/me`, { headers: { authorization: `Bearer ${KEY}` } });
    const text = await res.text();
    const good = join(dir, "good.har");
    writeFileSync(good, JSON.stringify({ log: { version: "1.2", entries: [{ startedDateTime: new Date().toISOString(), time: 1, request: { method: "GET", url: `${sim.url}/v1/me`, headers: [{ name: "Authorization", value: `Bearer ${KEY}` }] }, response: { status: res.status, headers: [...res.headers].map(([name, value]) => ({ name, value })), content: { size: text.length, mimeType: "application/json", text } } }] } }));
    const judged = await cli(["--judge-har", good, "--base-url", sim.url]);
    expect(judged.code, judged.stderr).toBe(0);
    expect(judged.stderr).toMatch(/judged .*good\.har: 1 of 1 entries/);
    expect(judged.stdout + judged.stderr).not.toContain(KEY);

    const bad = join(dir, "bad.har");
    writeFileSync(bad, "<html>not a har</html>");
    const [notHar, missing] = await Promise.all([cli(["--judge-har", bad]), cli(["--judge-har", join(dir, "missing.har")])]);
    expect(notHar.code).toBe(2);
    expect(oneLine(notHar.stderr)).toMatch(/--judge-har: .*bad\.har is not a HAR file: it is not JSON/);

    expect(missing.code).toBe(2);
    expect(oneLine(missing.stderr)).toMatch(/--judge-har: .*missing\.har cannot be read \(ENOENT\)/);
  });
});
