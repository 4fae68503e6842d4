// The Markdown the two packages carry is read in a user's project, where this repository's
// folders, documents and scripts are not: it speaks of package imports, `npx generation-hub
// ...` and the docs the mock serves, never of `src/`, `docs/*.md`, `npm start` or `<repo>`.
// The repository's own documents that the client package carries beside them (its README,
// which is this repository's, the contributors' guide and the release procedure, which the
// README links) are about the repository and free to say so. The site the mock serves is
// held to the same in build.test.ts, what the commands print in test/devtools/.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { at } from "../../scripts/lib/paths.ts";
import { markdownProse, repositoryPointers } from "../support/user-facing.ts";

/** Repository documents the client package carries because its README (the repository's) links them. */
const ABOUT_THE_REPOSITORY = new Set(["README.md", "docs/contributing.md", "releases/README.md"]);

/** The Markdown files `npm pack` puts in a package (without building it), relative to its folder. */
function packedMarkdown(workspace?: string): string[] {
  const args = ["pack", "--dry-run", "--json", "--ignore-scripts", ...(workspace ? ["-w", workspace] : [])];
  const out = execFileSync("npm", args, { cwd: at("."), encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const [listing] = JSON.parse(out.slice(out.search(/^\[/m))) as { files: { path: string }[] }[];
  return listing!.files.map((f) => f.path).filter((p) => p.endsWith(".md"));
}

describe("the Markdown the packages carry", () => {
  const shipped = [
    ...packedMarkdown().filter((p) => !ABOUT_THE_REPOSITORY.has(p)),
    ...packedMarkdown("packages/devtools").map((p) => join("packages/devtools", p)),
  ];

  it("speaks from the user's project: no path, document, script or root of this repository", () => {
    expect(shipped).toEqual(expect.arrayContaining(["docs/simulator.md", "docs/guides/getting-started.md", "CHANGELOG.md", "packages/devtools/README.md"]));
    const found = shipped.flatMap((file) => repositoryPointers(markdownProse(readFileSync(at(file), "utf8"))).map((f) => `${file}: ${f}`));
    expect(found).toEqual([]);
  });

  it("the check finds what it claims to", () => {
    const before = "Import from `./src/simulator/msw/index.ts`, then `npm start -- --port 0` (details: docs/simulator.md, default <repo>/site).";
    expect(repositoryPointers(markdownProse(before))).toHaveLength(4);
    const after = "Import from `@generation-hub/devtools/msw`, then `npx generation-hub mock --port 0`; the [guide](../simulator.md), `node_modules/@generation-hub/api/generated/openapi.json`.";
    expect(repositoryPointers(markdownProse(after))).toEqual([]);
  });
});
