// The breaking-change check (scripts/check-breaking.ts) against released snapshots made
// from the real contract, with breaking and non-breaking edits.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { check, parseVersion, record, satisfies } from "../../scripts/check-breaking.ts";
import { at } from "../../scripts/lib/paths.ts";

let dir: string;
const contract = () => parse(readFileSync(at("generated/openapi.yaml"), "utf8")) as Record<string, any>;
const write = (name: string, doc: unknown) => {
  const file = join(dir, name);
  writeFileSync(file, stringify(doc));
  return file;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "breaking-test-"));
  // The "released" 1.0.0 contract is the current one.
  writeFileSync(join(dir, "openapi-1.0.0.yaml"), readFileSync(at("generated/openapi.yaml"), "utf8"));
  writeFileSync(join(dir, "CHANGELOG.md"), "# Changelog\n\n## 2.0.0\n\n## 1.1.0\n\n## 1.0.1\n\n## 1.0.0\n");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (head: string, version: string) => check({ head, releases: dir, version, changelog: join(dir, "CHANGELOG.md") });

describe("breaking-change check", () => {
  it("semver rules: a major change needs a new major (a new minor below 1.0.0)", () => {
    expect(satisfies(parseVersion("1.0.0"), parseVersion("2.0.0"), "major")).toBe(true);
    expect(satisfies(parseVersion("1.0.0"), parseVersion("1.9.0"), "major")).toBe(false);
    expect(satisfies(parseVersion("0.3.0"), parseVersion("0.4.0"), "major")).toBe(true);
    expect(satisfies(parseVersion("1.0.0"), parseVersion("1.0.1"), "patch")).toBe(true);
    expect(satisfies(parseVersion("1.2.0"), parseVersion("1.1.9"), "none")).toBe(false);
  });

  it("VER-2: removing a response field is breaking: refused as 1.1.0, accepted as 2.0.0", () => {
    const doc = contract();
    delete doc.components.schemas.GenerationRecord.properties.output_urls;
    const head = write("removed-field.yaml", doc);
    const minor = run(head, "1.1.0");
    expect(minor.ok).toBe(false);
    expect(minor.lines.join("\n")).toMatch(/major/);
    expect(run(head, "2.0.0").ok).toBe(true);
  }, 120_000);

  it("removing a path is breaking", () => {
    const doc = contract();
    delete doc.paths["/v1/whoami"];
    expect(run(write("removed-path.yaml", doc), "1.0.1").ok).toBe(false);
  }, 120_000);

  it("a description change passes as a patch, and fails when the version was not changed", () => {
    const doc = contract();
    doc.paths["/v1/events"].get.summary = "Status-change stream (server-sent events)";
    const head = write("patch.yaml", doc);
    expect(run(head, "1.0.1").ok).toBe(true);
    const same = run(head, "1.0.0");
    expect(same.ok).toBe(false);
    expect(same.lines.join("\n")).toMatch(/changed after 1\.0\.0 was released/);
  }, 120_000);

  it("a version without a CHANGELOG entry, or below the last release, fails", () => {
    expect(run(at("generated/openapi.yaml"), "1.0.2").lines.join("\n")).toMatch(/CHANGELOG has no entry/);
    expect(run(at("generated/openapi.yaml"), "0.9.0").ok).toBe(false);
  }, 120_000);

  it("record keeps a released contract and refuses to overwrite it with another", () => {
    const releases = mkdtempSync(join(tmpdir(), "releases-"));
    try {
      const file = record({ head: at("generated/openapi.yaml"), releases, version: "1.0.0" });
      expect(readFileSync(file, "utf8")).toBe(readFileSync(at("generated/openapi.yaml"), "utf8"));
      const other = contract();
      other.info.description = "changed";
      expect(() => record({ head: write("other.yaml", other), releases, version: "1.0.0" })).toThrow(/never changes/);
    } finally {
      rmSync(releases, { recursive: true, force: true });
    }
  });
});
