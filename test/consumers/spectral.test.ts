// Spectral's OpenAPI ruleset (`spectral:oas`, nothing added or turned off) on the published
// bundle and on the sources as written. Every finding fails the test, except three that are
// Spectral's own misreadings of a valid OpenAPI 3.1 document, each matched exactly:
// - `oas3-operation-security-defined` on a scope listed for the API key: OpenAPI 3.1 lets a
//   security requirement of a non-OAuth scheme list role names (here the scope a key needs),
//   while Spectral checks every listed name against OAuth flows.
// - `oas3-schema` "must not have unevaluated properties" on a path item that is only a `$ref`
//   to its file (sources only): Spectral's 3.1 schema does not take a referenced path item
//   (stoplightio/spectral#2655, fix pending).
// - an example of openapi/common/error-examples.yaml said to lack its `value` (sources only):
//   Spectral leaves some references to that file unresolved once it is referenced from many
//   places; the example named has its `value`. Which file Spectral blames varies from run to
//   run: the example's own file, or the file whose `$ref` points at it, so both are followed.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parse } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { at, consumers } from "../../scripts/lib/paths.ts";
import { contract, type JsonObject } from "../../src/contract/index.ts";
import { binOf, consumerToolsFor, runTool } from "./support.ts";

interface Finding {
  code: string;
  message: string;
  path: (string | number)[];
  severity: number;
  source?: string;
}

const installed = consumerToolsFor("consumer matrix: Spectral", "test/consumers/spectral.test.ts");

const oauthScopes = new Set(
  Object.values(((((contract.components as JsonObject).securitySchemes as JsonObject).oauth2 as JsonObject).flows as JsonObject) ?? {}).flatMap((flow) =>
    Object.keys(((flow as JsonObject).scopes as JsonObject) ?? {}),
  ),
);
const rootSource = parse(readFileSync(at("openapi/openapi.yaml"), "utf8")) as { paths: Record<string, Record<string, unknown>> };
const errorExamplesFile = at("openapi/common/error-examples.yaml");
const errorExamples = parse(readFileSync(errorExamplesFile, "utf8")) as Record<string, { value?: unknown }>;

/** The error example a finding is about: named by its path in error-examples.yaml, or by the `$ref` at its path in the file that points there. */
function errorExampleOf(f: Finding): string | undefined {
  const source = f.source ?? "";
  if (source === errorExamplesFile) return String(f.path[0]);
  if (!source.endsWith(".yaml")) return undefined;
  let node: unknown = parse(readFileSync(source, "utf8"));
  for (const step of f.path) node = node && typeof node === "object" ? (node as Record<string, unknown>)[String(step)] : undefined;
  const ref = node && typeof node === "object" ? (node as { $ref?: unknown }).$ref : undefined;
  const [file, pointer] = typeof ref === "string" ? ref.split("#/") : [];
  return file !== undefined && pointer !== undefined && resolve(dirname(source), file) === errorExamplesFile ? pointer : undefined;
}

/** Spectral's known misreadings of a valid 3.1 document (see the top of this file). */
const MISREADINGS: { name: string; applies: (f: Finding) => boolean }[] = [
  {
    name: "a key's scope read as an OAuth scope",
    applies: (f) =>
      f.code === "oas3-operation-security-defined" && f.path.at(-2) === "api_key" && f.path.at(-4) === "security" && oauthScopes.has(/^"(.+)" must be listed among scopes\.$/.exec(f.message)?.[1] ?? ""),
  },
  {
    name: "a path item that is a $ref to its file",
    applies: (f) => {
      const pathKey = f.path.length === 2 && f.path[0] === "paths" ? String(f.path[1]) : undefined;
      const item = pathKey ? rootSource.paths[pathKey] : undefined;
      return f.code === "oas3-schema" && /must not have unevaluated properties\.$/.test(f.message) && !!item && Object.keys(item).join() === "$ref";
    },
  },
  {
    name: "an error example left unresolved",
    applies: (f) =>
      (f.code === "oas3-examples-value-or-externalValue" || f.code === "oas3-valid-media-example") &&
      errorExamples[errorExampleOf(f) ?? ""]?.value !== undefined,
  },
];

describe.runIf(installed)("consumer matrix: Spectral spectral:oas", { timeout: 180_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), "spectral-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  async function lint(file: string): Promise<Finding[]> {
    const out = join(work, "findings.json");
    const run = await runTool(binOf("spectral"), ["lint", "--ruleset", join(consumers.root, "spectral.yaml"), "--format", "json", "--output", out, "--fail-severity", "hint", file]);
    const findings = JSON.parse(readFileSync(out, "utf8")) as Finding[];
    // Exit 1 is "found something"; anything else is Spectral failing to run.
    expect([0, 1], run.stderr).toContain(run.code);
    return findings;
  }
  const unexplained = (findings: Finding[]) =>
    findings.filter((f) => !MISREADINGS.some((m) => m.applies(f))).map((f) => `${f.code} ${f.message} at ${f.path.join(".")} (${(f.source ?? "").replace(at(".") + "/", "")})`);

  it("the published bundle: nothing but Spectral's misreading of the key's scopes", async () => {
    const findings = await lint(at("generated/openapi.json"));
    expect(findings.length).toBeGreaterThan(0);
    expect(unexplained(findings)).toEqual([]);
  });

  it("the sources as written: nothing but Spectral's known misreadings", async () => {
    expect(unexplained(await lint(at("openapi/openapi.yaml")))).toEqual([]);
  });

  it("a real fault is not taken for a misreading: a YAML merge key in the sources is reported", () => {
    const merged: Finding = { code: "oas3-schema", message: '"<<" property must not have unevaluated properties.', path: ["paths", "/v1/whoami", "get", "responses", "401", "headers"], severity: 0, source: at("openapi/common/responses.yaml") };
    const scope: Finding = { code: "oas3-operation-security-defined", message: '"models:reed" must be listed among scopes.', path: ["paths", "/v1/models", "get", "security", 0, "api_key", 0], severity: 1 };
    expect(unexplained([merged, scope])).toHaveLength(2);
  });

  it("an error example left unresolved is a misreading wherever Spectral places it, and only for an example that has its value", () => {
    const where = (source: string, path: string[]): Finding => ({ code: "oas3-valid-media-example", message: '"invalid_limit.value" property must exist', path, severity: 0, source: at(source) });
    const inResponses = ["InvalidLimit", "content", "application/json", "examples", "invalid_limit"];
    expect(unexplained([where("openapi/common/error-examples.yaml", ["invalid_limit"]), where("openapi/common/responses.yaml", inResponses)])).toEqual([]);
    expect(unexplained([where("openapi/common/error-examples.yaml", ["no_such_example"]), where("openapi/common/responses.yaml", ["InvalidLimit", "content"])])).toHaveLength(2);
  });
});
