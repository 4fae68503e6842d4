// The tests that compare the contract with the seed's own tables read the seed from
// outside the repository (it is the single source, never copied in). On a clone without
// it they must say in one line what they need and where, not fail with a bare ENOENT;
// HUB_SEED points them at another place. Checked in a child process, as a test file
// importing test/support/seed.ts meets it.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { at } from "../../scripts/lib/paths.ts";

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), "seed-location-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Imports test/support/seed.ts in a fresh Node with `HUB_SEED` set; prints the seed's text as JSON. */
async function importSeed(seed: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = `const m = await import(${JSON.stringify(at("test/support/seed.ts"))}); console.log(JSON.stringify(m.seedText));`;
  try {
    const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: at("."),
      env: { ...process.env, HUB_SEED: seed },
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe("where the seed-reading tests find the seed", () => {
  it("without the seed, one line names the file they read and HUB_SEED, instead of a bare ENOENT", async () => {
    const missing = join(work, "no-such-folder", "generation-hub-public-api.md");
    const r = await importSeed(missing);
    expect(r.code).not.toBe(0);
    expect(r.stderr).not.toContain("ENOENT");
    const line = r.stderr.split("\n").find((l) => l.includes("These tests read the seed"));
    expect(line, r.stderr).toBeDefined();
    expect(line).toContain(missing);
    expect(line).toContain("HUB_SEED=");
  }, 30_000);

  it("HUB_SEED names another place for the seed", async () => {
    const elsewhere = join(work, "seed.md");
    writeFileSync(elsewhere, "# A seed kept elsewhere\n");
    const r = await importSeed(elsewhere);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toBe("# A seed kept elsewhere\n");
  }, 30_000);
});
