// Breaking-change check: compares the contract (generated/openapi.yaml) with the last
// released one (releases/openapi-<version>.yaml) by `redocly diff` with the
// `diff-recommended` rules, and fails when
// - a change rated major comes without a new major version of the package (a minor one
//   while the major is 0),
// - the contract changed although package.json still names the released version,
// - the version went backwards, or CHANGELOG.md has no entry for the version.
//
//   npm run check:breaking                 compare with the latest snapshot
//   npm run check:breaking -- --record     at release: snapshot the contract as released
// Options for tests and one-off comparisons: --head FILE, --releases DIR, --version X.Y.Z,
// --changelog FILE. See releases/README.md for how releases are kept.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { at } from "./lib/paths.ts";

type Version = [number, number, number];

export function parseVersion(v: string): Version {
  const m = /^(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/.exec(v.trim());
  if (!m) throw new Error(`Not a semantic version: ${v}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

export function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/** The bump a rated change needs: major changes need a new major (a new minor below 1.0.0). */
export function satisfies(released: Version, next: Version, bump: "major" | "minor" | "patch" | "none"): boolean {
  const order = compareVersions(next, released);
  if (bump === "none") return order >= 0;
  if (order <= 0) return false;
  if (bump === "major") return released[0] === 0 ? next[0] > 0 || next[1] > released[1] : next[0] > released[0];
  if (bump === "minor") return next[0] > released[0] || next[1] > released[1];
  return true;
}

interface DiffReport {
  bump: "major" | "minor" | "patch" | "none";
  summary: { major: number; minor: number; patch: number };
  changes: { path: string; impact: string; verdicts?: { message: string }[] }[];
}

export function redoclyDiff(base: string, head: string): DiffReport {
  const dir = mkdtempSync(join(tmpdir(), "check-breaking-"));
  try {
    const config = join(dir, "redocly.yaml");
    writeFileSync(config, "extends:\n  - diff-recommended\n");
    const out = join(dir, "diff.json");
    try {
      execFileSync(at("node_modules/.bin/redocly"), ["diff", resolve(base), resolve(head), "--config", config, "--format", "json", "-o", out, "--fail-on", "none"], { stdio: "pipe" });
    } catch (error) {
      if (!existsSync(out)) throw new Error(`redocly diff failed: ${(error as { stderr?: Buffer }).stderr?.toString() ?? error}`);
    }
    const report = JSON.parse(readFileSync(out, "utf8")) as DiffReport;
    report.bump ??= "none";
    return report;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function snapshots(dir: string): { version: string; file: string }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((f) => /^openapi-(\d+\.\d+\.\d+)\.yaml$/.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ version: m[1]!, file: join(dir, m[0]) }))
    .sort((a, b) => compareVersions(parseVersion(a.version), parseVersion(b.version)));
}

export function check(options: { head: string; releases: string; version: string; changelog: string }): { ok: boolean; lines: string[] } {
  const lines: string[] = [];
  let ok = true;
  const fail = (line: string) => {
    ok = false;
    lines.push(`FAIL ${line}`);
  };
  const version = parseVersion(options.version);
  const changelog = existsSync(options.changelog) ? readFileSync(options.changelog, "utf8") : "";
  if (!new RegExp(`^## \\[?${options.version.replace(/\./g, "\\.")}\\]?(\\s|$)`, "m").test(changelog)) fail(`CHANGELOG has no entry "## ${options.version}"`);

  const released = snapshots(options.releases);
  const last = released.at(-1);
  if (!last) {
    lines.push(`No released contract in ${options.releases}: nothing to compare (record one at release with --record).`);
    return { ok, lines };
  }
  const lastVersion = parseVersion(last.version);
  if (compareVersions(version, lastVersion) < 0) {
    fail(`version ${options.version} is below the last release ${last.version}`);
    return { ok, lines };
  }
  const report = redoclyDiff(last.file, options.head);
  const { major, minor, patch } = report.summary;
  lines.push(`Contract vs release ${last.version}: ${major} major, ${minor} minor, ${patch} patch change(s); needs a ${report.bump} bump.`);
  for (const c of report.changes.filter((c) => c.impact === "major")) {
    lines.push(`  major: ${c.path}${c.verdicts?.length ? ` (${c.verdicts.map((v) => v.message).join("; ")})` : ""}`);
  }
  if (compareVersions(version, lastVersion) === 0) {
    if (major + minor + patch > 0) fail(`the contract changed after ${last.version} was released: give it a new version (package.json and CHANGELOG.md)`);
  } else if (!satisfies(lastVersion, version, report.bump)) {
    fail(`a ${report.bump} change needs a ${report.bump === "major" ? "new major" : report.bump} version; ${options.version} after ${last.version} is not one`);
  }
  return { ok, lines };
}

export function record(options: { head: string; releases: string; version: string }): string {
  mkdirSync(options.releases, { recursive: true });
  const target = join(options.releases, `openapi-${options.version}.yaml`);
  const text = readFileSync(options.head, "utf8");
  if (existsSync(target) && readFileSync(target, "utf8") !== text) throw new Error(`${target} exists with other content: a released contract never changes`);
  writeFileSync(target, text);
  return target;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const { values } = parseArgs({
    options: {
      head: { type: "string", default: at("generated/openapi.yaml") },
      releases: { type: "string", default: at("releases") },
      version: { type: "string" },
      changelog: { type: "string", default: at("CHANGELOG.md") },
      record: { type: "boolean", default: false },
    },
  });
  const version = values.version ?? (JSON.parse(readFileSync(at("package.json"), "utf8")) as { version: string }).version;
  const options = { head: values.head, releases: values.releases, version, changelog: values.changelog };
  const result = check(options);
  for (const line of result.lines) console.log(line);
  if (!result.ok) process.exit(1);
  if (values.record) console.log(`Recorded ${record(options)}`);
}
