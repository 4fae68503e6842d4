// The package as another project gets it: build, `npm pack`, install the tarball into a
// fresh project in a temporary folder (dependencies from the npm registry), compile a
// strict TypeScript consumer against it (browser libraries only, no Node types, the
// package's own declarations checked too), then run it on Node against the simulator.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { at } from "../../scripts/lib/paths.ts";
import { startSimulator, type RunningSimulator } from "../../src/simulator/index.ts";

let project: string;
let sim: RunningSimulator | undefined;
const run = (cmd: string, args: string[], cwd: string) => execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" } });

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), "hub-consumer-"));
  run("npm", ["run", "build:package"], at("."));
  const packed = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", project], at("."))) as { filename: string }[];
  const tarball = join(project, packed[0]!.filename);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "hub-consumer", private: true, type: "module", dependencies: { "@generation-hub/api": `file:${tarball}` } }, null, 2));
  run("npm", ["install", "--prefer-offline", "--no-package-lock"], project);
  writeFileSync(
    join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        lib: ["ES2022", "DOM", "DOM.Iterable", "DOM.AsyncIterable"],
        types: [],
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: false,
        resolveJsonModule: true,
        outDir: "build",
      },
      files: ["consumer.ts"],
    }),
  );
  copyFileSync(at("test/client/consumer/consumer.ts.txt"), join(project, "consumer.ts"));
  writeFileSync(join(project, "run.js"), 'import { main } from "./build/consumer.js";\nconsole.log(JSON.stringify(await main(process.argv[2])));\n');
}, 300_000);

afterAll(async () => {
  await sim?.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

describe("consumer project", () => {
  it("the tarball holds the entry points of the exports map", () => {
    const manifest = JSON.parse(readFileSync(join(project, "node_modules/@generation-hub/api/package.json"), "utf8")) as { exports: Record<string, unknown> };
    expect(Object.keys(manifest.exports)).toEqual([".", "./client", "./oauth", "./types", "./openapi.json", "./openapi.yaml", "./schemas/*", "./package.json"]);
    const installed = join(project, "node_modules/@generation-hub/api");
    for (const file of ["dist/src/client/index.js", "dist/src/client/index.d.ts", "dist/src/client/oauth/index.js", "dist/generated/types.d.ts", "generated/openapi.json", "schemas/generations/GenerationRecord.json", "CHANGELOG.md"]) {
      expect(() => readFileSync(join(installed, file)), file).not.toThrow();
    }
  });

  it("SUB-0 ERR-1: a strict TypeScript consumer compiles against the installed package", () => {
    let output = "";
    try {
      output = run(process.execPath, [at("node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], project);
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error);
    }
    expect(output).toBe("");
  }, 120_000);

  it("SUB-1 ST-5 PAGE-1 BATCH-1 EVT-11: the consumer submits, follows, pages and reads back against the simulator", async () => {
    sim = await startSimulator({ port: 0, clockSpeed: 100 });
    const out = await new Promise<string>((resolve, reject) => {
      import("node:child_process").then(({ execFile }) =>
        execFile(process.execPath, ["run.js", sim!.url], { cwd: project, timeout: 60_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout))),
      );
    });
    const report = JSON.parse(out.trim().split("\n").at(-1)!) as Record<string, unknown>;
    expect(report).toMatchObject({ submitted: 202, final: "DONE", caughtUp: 1, refusal: "payment_required", schemaTitle: "GenerationRecord", interfaceVersion: "1.0.0" });
    expect(report.followed).toEqual(["QUEUED", "PENDING", "RUNNING", "DONE"]);
    expect(report.paged).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
