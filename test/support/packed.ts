// The two packages as a user gets them, packed once per test run: `npm pack` of the client
// package (whose prepack is `npm run build:package`) and of @generation-hub/devtools (whose
// prepack compiles it and copies the reference docs). Every test that installs them in a fresh
// project (the client's consumer test, the dev tools' consumer test, the Playwright proof)
// installs these tarballs. Packing rebuilds dist/ in place, so two files packing at once
// could pack each other's half-built dist; and it is about 16 s of CPU each time. The first
// file to ask packs (it takes a lock: a folder only one process can make); the others wait
// for its tarballs, or for its failure. vitest.config.ts names the run (HUB_TEST_RUN) and
// clears the folder at the end (test/support/packed-setup.ts).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { at } from "../../scripts/lib/paths.ts";

/** The packed tarballs, absolute paths. */
export interface PackedPackages {
  api: string;
  devtools: string;
}

/** This run's folder of tarballs (a run without the config's name packs for its process alone). */
export function packedFolder(): string {
  return join(tmpdir(), `hub-packed-${process.env.HUB_TEST_RUN ?? `pid-${process.pid}`}`);
}

const DONE = "packed.json";
const FAILED = "failed.txt";
const WAIT_MS = 600_000;

function pack(folder: string): PackedPackages {
  const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
  const run = (args: string[]) => execFileSync("npm", args, { cwd: at("."), encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env });
  // The JSON of `npm pack --json` follows whatever the package's prepack printed.
  const tarball = (output: string) => join(folder, (JSON.parse(output.slice(output.search(/^\[/m))) as { filename: string }[])[0]!.filename);
  return {
    api: tarball(run(["pack", "--json", "--pack-destination", folder])),
    devtools: tarball(run(["pack", "--json", "-w", "packages/devtools", "--pack-destination", folder])),
  };
}

/** The packed packages of this run: packed by the first caller, waited for by the rest. */
export async function packedPackages(): Promise<PackedPackages> {
  const folder = packedFolder();
  let packer = true;
  try {
    mkdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    packer = false;
  }
  if (packer) {
    try {
      const packed = pack(folder);
      writeFileSync(join(folder, DONE), JSON.stringify(packed));
      return packed;
    } catch (error) {
      const e = error as { message: string; stdout?: string; stderr?: string };
      writeFileSync(join(folder, FAILED), `${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
      throw error;
    }
  }
  for (const start = Date.now(); Date.now() - start < WAIT_MS; await sleep(250)) {
    if (existsSync(join(folder, DONE))) return JSON.parse(readFileSync(join(folder, DONE), "utf8")) as PackedPackages;
    if (existsSync(join(folder, FAILED))) throw new Error(`packing the packages failed (in another test file):\n${readFileSync(join(folder, FAILED), "utf8")}`);
  }
  throw new Error(`the packages were not packed within ${WAIT_MS / 1000} s (${folder})`);
}
