// Reads the seed (the requirements document) so tests compare the contract with the
// seed's own words and tables, not with a copy of them. The seed lives outside the
// repository (it is the single source): beside the checkout, or where HUB_SEED points.
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { sources } from "../../scripts/lib/paths.ts";

/** The environment variable that names the seed's file when it is not at the default place. */
export const SEED_VARIABLE = "HUB_SEED";

/** Where the seed is read: `HUB_SEED` when set, else `../shared/seed/generation-hub-public-api.md` beside the checkout. */
export function seedPath(env: NodeJS.ProcessEnv = process.env): string {
  const named = env[SEED_VARIABLE];
  return named ? resolve(named) : sources.seed;
}

/** The seed's text; without the file, one line saying what these tests need and where. */
export function readSeed(path: string = seedPath()): string {
  if (!existsSync(path)) {
    const error = new Error(
      `These tests read the seed (the requirements document) at ${path}: put generation-hub-public-api.md there or set ${SEED_VARIABLE}=<its path>.`,
    );
    // The message is the whole story: no stack of this module under it.
    error.stack = `Error: ${error.message}`;
    throw error;
  }
  return readFileSync(path, "utf8");
}

export const seedText: string = readSeed();

/** The text from a heading line (any level, exact title) up to the next heading of the same or a higher level. */
export function section(title: string): string {
  const lines = seedText.split("\n");
  const start = lines.findIndex((l) => /^#+ /.test(l) && l.replace(/^#+ /, "").trim() === title);
  if (start < 0) throw new Error(`Seed has no heading "${title}"`);
  const level = lines[start]!.match(/^#+/)![0].length;
  const end = lines.findIndex((l, i) => i > start && /^#+ /.test(l) && l.match(/^#+/)![0].length <= level);
  return lines.slice(start + 1, end < 0 ? undefined : end).join("\n");
}

/** Rows of every Markdown table in a text, as arrays of trimmed cells (header and rule rows dropped). */
export function tableRows(text: string): string[][] {
  const rows: string[][] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.startsWith("|")) continue;
    if (/^\|\s*-/.test(line)) continue; // the |---| rule
    if (i + 1 < lines.length && /^\|\s*-/.test(lines[i + 1]!)) continue; // a header row
    rows.push(splitRow(line));
  }
  return rows;
}

/** The first table after a line that contains `marker`. */
export function tableAfter(text: string, marker: string): string[][] {
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`Seed has no "${marker}"`);
  const rest = text.slice(at).split("\n");
  const start = rest.findIndex((l) => l.startsWith("|"));
  const block: string[] = [];
  for (const l of rest.slice(start)) {
    if (!l.startsWith("|")) break;
    block.push(l);
  }
  return tableRows(block.join("\n"));
}

function splitRow(line: string): string[] {
  return line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => c.trim());
}

/** `a`, `b` and `c` -> ["a", "b", "c"]: every backticked token of a cell. */
export function backticked(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}

/** Sentences and table cells of the seed that mark a gap ("not shown", "none shown", "not listed"). */
export function gapSentences(): string[] {
  const marker = /not shown|none shown|not listed/;
  const out: string[] = [];
  for (const line of seedText.split("\n")) {
    if (!marker.test(line)) continue;
    // Gaps are marked with the words "not shown". (the seed's own convention line)
    if (line.startsWith("Gaps are marked")) continue;
    const text = line.replace(/^\s*(?:-|\d+\.)\s+/, ""); // a list item's marker is not part of the sentence
    const pieces = line.startsWith("|") ? splitRow(line) : text.split(/(?<=\.)\s+(?=[A-Z`])/);
    for (const piece of pieces) {
      // "not shown on the consent screen" describes the consent screen, not a gap.
      if (marker.test(piece) && !/not shown on the consent screen/.test(piece)) out.push(piece.trim());
    }
  }
  return out;
}
