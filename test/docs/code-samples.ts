// Every code sample a reader of this project's docs can copy: the `ts` blocks of README.md
// and of the guides (docs/guides/*.md, and docs/simulator.md, which the site carries beside
// them), and the reference's samples (docs/samples/<operationId>.ts). Shared by the type
// check (samples.test.ts) and the runs against the simulator (run-samples.test.ts).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_DOCS } from "../../src/docs/guides.ts";
import { at } from "../../scripts/lib/paths.ts";

export interface CodeSample {
  /** How a failure names it: `README.md:57` (the fence's line) or `docs/samples/readWhoami.ts`. */
  name: string;
  /** A file name for it (`README.md-57.ts`, `readWhoami.ts`). */
  file: string;
  source: string;
}

/** The fenced blocks of one language in a Markdown file, named by the line of their fence. */
export function markdownBlocks(path: string, lang: string): CodeSample[] {
  const lines = readFileSync(at(path), "utf8").split("\n");
  const out: CodeSample[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)```(\S*)\s*$/.exec(lines[i]!);
    if (!fence) continue;
    const end = lines.findIndex((l, k) => k > i && l.trim() === "```");
    if (end < 0) throw new Error(`${path}:${i + 1}: unclosed code fence`);
    if (fence[2] === lang) {
      const indent = fence[1]!.length;
      const source = lines.slice(i + 1, end).map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length))).join("\n") + "\n";
      out.push({ name: `${path}:${i + 1}`, file: `${path.replace(/\//g, "-")}-${i + 1}.ts`, source });
    }
    i = end;
  }
  return out;
}

/** Markdown files whose `ts` blocks are code samples for readers. */
export function sampleDocuments(): string[] {
  const guides = readdirSync(at("docs/guides"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/guides/${f}`);
  return ["README.md", ...guides, ...PROJECT_DOCS.map((d) => d.path)];
}

export function markdownSamples(): CodeSample[] {
  return sampleDocuments().flatMap((doc) => markdownBlocks(doc, "ts"));
}

export function referenceSamples(): CodeSample[] {
  const dir = at("docs/samples");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".ts"))
    .sort()
    .map((f) => ({ name: `docs/samples/${f}`, file: f, source: readFileSync(join(dir, f), "utf8") }));
}

export function allSamples(): CodeSample[] {
  return [...markdownSamples(), ...referenceSamples()];
}

/**
 * Names one sample: a reference sample by its path (`docs/samples/readWhoami.ts`), a
 * Markdown block by its document and a text only that block holds
 * (`docs/simulator.md#defineConfig`), so the name survives edits above the block.
 */
export function isSample(key: string, sample: CodeSample): boolean {
  const hash = key.indexOf("#");
  if (hash < 0) return sample.name === key;
  return sample.name.startsWith(`${key.slice(0, hash)}:`) && sample.source.includes(key.slice(hash + 1));
}

/**
 * The samples neither run nor type-checked, each with its reason. Every other sample is
 * type-checked (samples.test.ts) and run against the simulator (run-samples.test.ts).
 */
export const NOT_RUN: { sample: string; why: string }[] = [
  {
    sample: "docs/simulator.md#defineConfig",
    why: "a Vite configuration (vite.config.ts), not a program: test/simulator/vite-proxy.test.ts type-checks it against Vite's types and has Vite's dev server load it in front of the simulator",
  },
  {
    sample: "docs/simulator.md#setupServer(...handlers)",
    why: "imports msw, which the type check here (a folder outside the project) cannot resolve: test/simulator/msw-docs.test.ts runs it instead, and its tests must pass",
  },
  {
    sample: "docs/simulator.md#setupWorker(...handlers)",
    why: "imports msw and needs MSW's service worker script served at the page's root: test/simulator/msw-browser.test.ts runs it in Chromium instead",
  },
];

export function notRunReason(sample: CodeSample): string | undefined {
  return NOT_RUN.find((n) => isSample(n.sample, sample))?.why;
}
