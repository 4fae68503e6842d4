// The consumer matrix: other repositories' code generators and validators, pinned in
// consumers/ and run on their Node 24 (`npm run consumers:install`), against the contract as
// published. A generator's test runs the commands docs/guides/generators.md shows its users,
// in a fresh folder whose node_modules/@generation-hub/api holds the bundle, then
// type-checks the output strictly together with the program the guide shows beside them.
// Without the tools installed the tests cannot run: they say so loudly, and under CI (where
// .ci/run installs them) that fails.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { at, consumers, outputs } from "../../scripts/lib/paths.ts";
import { markdownBlocks } from "../docs/code-samples.ts";
import { reportMissingTool } from "../support/missing-tool.ts";

const run = promisify(execFile);

/** The guide whose commands and programs the matrix runs. */
export const GUIDE = "docs/guides/generators.md";

/**
 * The fence of the guide's programs. They import what a generator writes, so they are not
 * `ts` blocks (which test/docs/ compiles against the package alone and runs against the
 * simulator): the matrix compiles each against its generator's output (guide.test.ts holds
 * that every one of them is).
 */
export const PROGRAM_FENCE = "typescript";

/**
 * Whether the matrix's tools are installed. When not, prints that `check` (in `file`) did
 * not run, and under CI registers a failing test.
 */
export function consumerToolsFor(check: string, file: string): boolean {
  const installed = existsSync(consumers.node) && existsSync(join(consumers.root, "node_modules/.package-lock.json"));
  if (!installed) reportMissingTool(check, file, "the consumer matrix's tools are not installed (consumers/)", "Run `npm run consumers:install`");
  return installed;
}

/** The version consumers/package.json pins for a package. */
export function pinned(name: string): string {
  const pkg = JSON.parse(readFileSync(join(consumers.root, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  const version = pkg.dependencies[name];
  if (!version) throw new Error(`consumers/package.json does not pin ${name}`);
  return version;
}

/** A generator's part of the guide: the shell commands and the program under one heading. */
export interface GuideSection {
  heading: string;
  commands: string[];
  program: string;
}

export function guideSection(heading: string): GuideSection {
  const lines = readFileSync(at(GUIDE), "utf8").split("\n");
  const start = lines.findIndex((l) => l === `## ${heading}`);
  if (start < 0) throw new Error(`${GUIDE} has no section "## ${heading}"`);
  const next = lines.findIndex((l, i) => i > start && l.startsWith("## "));
  const inside = (name: string) => {
    const line = Number(name.split(":").pop());
    return line > start + 1 && (next < 0 || line <= next);
  };
  const sh = markdownBlocks(GUIDE, "sh").filter((b) => inside(b.name));
  const programs = markdownBlocks(GUIDE, PROGRAM_FENCE).filter((b) => inside(b.name));
  if (sh.length !== 1 || programs.length !== 1) throw new Error(`${GUIDE} "## ${heading}": expected one sh and one ${PROGRAM_FENCE} block, found ${sh.length} and ${programs.length}`);
  const commands = sh[0]!.source.split("\n").map((l) => l.trim()).filter(Boolean);
  return { heading, commands, program: programs[0]!.source };
}

/**
 * A fresh folder inside consumers/ (so the generated code's imports resolve from the
 * matrix's node_modules) laid out as a user's project: the package's bundle at
 * node_modules/@generation-hub/api/generated/openapi.json, byte for byte.
 */
export function userProject(name: string): { dir: string; remove: () => void } {
  mkdirSync(consumers.work, { recursive: true });
  const dir = mkdtempSync(join(consumers.work, `${name}-`));
  const published = join(dir, "node_modules/@generation-hub/api/generated");
  mkdirSync(published, { recursive: true });
  cpSync(outputs.bundleJson, join(published, "openapi.json"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The script an `npx` name runs: a bin of consumers/node_modules, or a package's only bin. */
export function binOf(name: string): string {
  const linked = join(consumers.root, "node_modules/.bin", name);
  if (existsSync(linked)) return realpathSync(linked);
  const pkgDir = join(consumers.root, "node_modules", name);
  const bin = (JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as { bin?: string | Record<string, string> }).bin;
  const only = typeof bin === "string" ? bin : bin && Object.values(bin).length === 1 ? Object.values(bin)[0] : undefined;
  if (!only) throw new Error(`npx ${name}: no single bin in consumers/node_modules/${name}`);
  return join(pkgDir, only);
}

/**
 * Runs one line of a guide's shell block in `cwd`: `npx <tool> ...` on the matrix's Node 24,
 * or `mkdir -p <dir>`. Any other line fails (the matrix runs what the guide says, nothing else).
 */
export async function runCommand(line: string, cwd: string): Promise<string> {
  const [first, ...args] = line.split(/\s+/);
  if (first === "mkdir" && args[0] === "-p" && args.length === 2) {
    mkdirSync(join(cwd, args[1]!), { recursive: true });
    return "";
  }
  if (first !== "npx" || args.length === 0) throw new Error(`The matrix cannot run "${line}" (only \`npx <tool> ...\` and \`mkdir -p <dir>\`)`);
  const [tool, ...rest] = args;
  try {
    const { stdout, stderr } = await run(consumers.node, [binOf(tool!), ...rest], { cwd, timeout: 120_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: "1" } });
    return stdout + stderr;
  } catch (e) {
    const failed = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`"${line}" failed: ${failed.message}\n${failed.stdout ?? ""}${failed.stderr ?? ""}`);
  }
}

/**
 * Runs a script on the matrix's Node 24 from consumers/ (so its imports resolve there) and
 * answers what it printed and its exit code; a non-zero exit is an answer, not a throw.
 */
export async function runTool(script: string, args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(consumers.node, [script, ...args], { cwd: consumers.root, timeout: 120_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: "1" } });
    return { stdout, stderr, code: 0 };
  } catch (e) {
    const failed = e as { stdout?: string; stderr?: string; code?: number | string; message: string };
    if (typeof failed.code !== "number") throw new Error(`${script} did not run: ${failed.message}`);
    return { stdout: failed.stdout ?? "", stderr: failed.stderr ?? "", code: failed.code };
  }
}

/** Every file of a kind under `dir`, outside node_modules. */
export function filesUnder(dir: string, ext: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.name === "node_modules" ? [] : e.isDirectory() ? filesUnder(join(dir, e.name), ext) : ext.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/**
 * Strict type-check of everything in the user's project (the generated code and the
 * program), as a project built with a bundler compiles it (the options of Vite's TypeScript
 * template that concern types): `strict`, ES modules resolved the bundler's way with `.ts`
 * imports allowed, the DOM's fetch. `@generation-hub/api` is this repository's client
 * (its sources), as the package exports it; `paths` adds a generator's own mappings.
 */
export function typeCheck(dir: string, paths: Record<string, string[]> = {}): string[] {
  const rootNames = filesUnder(dir, /\.tsx?$/);
  const options: ts.CompilerOptions = {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts", "lib.dom.asynciterable.d.ts"],
    types: [],
    noEmit: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
    paths: { "@generation-hub/api": [at("src/client/index.ts")], ...paths },
  };
  const program = ts.createProgram({ rootNames, options });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${relative(dir, d.file.fileName)}(${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1})` : "";
    return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
}

export interface Generator {
  /** The guide's heading of its section (its name for a user); its test is test/consumers/<heading>.test.ts. */
  heading: string;
  /** The packages it runs, pinned in consumers/package.json and named with their version in the guide. */
  packages: string[];
  /** Files the commands must write, from the project's root. */
  outputs: string[];
  /** Module mappings its output needs beyond the project's node_modules. */
  paths?: Record<string, string[]>;
}

/** openapi-zod-client's own copy of a package (its output is written for zod 3 and @zodios/core; the matrix's zod is 4, for orval). */
const zodClientOwn = (name: string) => [join(consumers.root, "node_modules/openapi-zod-client/node_modules", name)];

/** The generators of the matrix, in the guide's order. */
export const GENERATORS: readonly Generator[] = [
  // A fetch client with its models, MSW handlers with faker mocks, zod schemas (zod 4, as
  // orval picks from the project's zod).
  { heading: "orval", packages: ["orval"], outputs: ["hub/api.ts", "hub/api.schemas.ts", "hub/api.msw.ts", "hub/api.zod.ts"] },
  // The fetch client, SDK functions and types of @hey-api/openapi-ts.
  { heading: "hey-api", packages: ["@hey-api/openapi-ts"], outputs: ["hub/sdk.gen.ts", "hub/types.gen.ts", "hub/client.gen.ts"] },
  // A Zodios client with zod schemas.
  { heading: "openapi-zod-client", packages: ["openapi-zod-client"], outputs: ["hub/api.ts"], paths: { zod: zodClientOwn("zod"), "@zodios/core": zodClientOwn("@zodios/core") } },
  // One `Api` class on fetch with the models.
  { heading: "swagger-typescript-api", packages: ["swagger-typescript-api"], outputs: ["hub/Api.ts"] },
  // Types with default options, and openapi-fetch as the client (the project's own types use
  // other options: scripts/lib/types.ts).
  { heading: "openapi-typescript", packages: ["openapi-typescript"], outputs: ["hub/schema.d.ts"] },
];

/** The guard the guide's program narrows a submit with, and the file that narrows without it. */
const GUARDED = 'isSubmitOfType(body, "video")';
const UNGUARDED = "program-unguarded.ts";

export const generator = (heading: string): Generator => {
  const g = GENERATORS.find((x) => x.heading === heading);
  if (!g) throw new Error(`No generator "${heading}" in test/consumers/support.ts`);
  return g;
};

/**
 * One generator of the matrix: the guide's commands generate from the published bundle, the
 * output and the guide's program type-check strictly, and the program needs the guards (the
 * same narrowing written as `body.type === "video"` does not compile against that output).
 */
export function describeGenerator(g: Generator): void {
  const installed = consumerToolsFor(`consumer matrix: ${g.heading}`, `test/consumers/${g.heading}.test.ts`);
  // A generator and a compiler over thousands of generated lines: seconds on an idle machine,
  // far more on a loaded one.
  describe.runIf(installed)(`consumer matrix: ${g.heading}`, { timeout: 180_000 }, () => {
    const section = guideSection(g.heading);
    let project: { dir: string; remove: () => void };
    /** What the one type check of the project found, in every file. */
    let problems: string[] | undefined;
    beforeAll(() => {
      project = userProject(g.heading.replace(/\W+/g, "-"));
    });
    afterAll(() => project?.remove());

    it("generates from the published bundle with the guide's commands, and the bundle is used as is", async () => {
      expect(section.commands.length).toBeGreaterThan(0);
      for (const line of section.commands) await runCommand(line, project.dir);
      expect(g.outputs).not.toHaveLength(0);
      for (const out of g.outputs) expect(existsSync(join(project.dir, out)), out).toBe(true);
      const input = join(project.dir, "node_modules/@generation-hub/api/generated/openapi.json");
      expect(readFileSync(input, "utf8")).toBe(readFileSync(outputs.bundleJson, "utf8"));
    });

    // One type check for both programs: the guide's, and the same narrowing written without
    // the guard in a file beside it. Each is a module, so neither changes what the other
    // compiles to, and the output's types (zod's take seconds) are checked once, not twice.
    it("the output and the guide's program (narrow a submit by type, read error.code) type-check with strict", () => {
      expect(section.program).toContain(GUARDED);
      writeFileSync(join(project.dir, "program.ts"), section.program);
      writeFileSync(join(project.dir, UNGUARDED), section.program.replace(GUARDED, 'body.type === "video"'));
      problems = typeCheck(project.dir, g.paths);
      expect(problems.filter((p) => !p.startsWith(UNGUARDED))).toEqual([]);
    });

    it("without the guard the same narrowing does not compile: the 3D variant stays in", () => {
      expect(problems, "the type check above ran").toBeDefined();
      const unguarded = problems!.filter((p) => p.startsWith(UNGUARDED));
      expect(unguarded.some((p) => p.includes("duration")), unguarded.join("\n")).toBe(true);
    });
  });
}
