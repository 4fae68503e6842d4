// The import graph of src/ as TypeScript reads it (static, type-only and dynamic imports
// alike), its cycles, and the simulator's layer rule: a file imports only from its own
// layer or the ones below it. Used by test/imports.test.ts.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import ts from "typescript";

export type Graph = Map<string, string[]>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

/** Every .ts file under `root` with the files of `root` it imports (paths relative to `cwd`). */
export function importGraph(root: string, cwd = process.cwd()): Graph {
  const graph: Graph = new Map();
  for (const file of sourceFiles(join(cwd, root))) {
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = info.importedFiles
      .map((f) => f.fileName)
      .filter((spec) => spec.startsWith("."))
      .map((spec) => relative(cwd, normalize(join(dirname(file), spec))))
      .filter((target) => target.startsWith(normalize(root)));
    graph.set(relative(cwd, file), [...new Set(targets)].sort());
  }
  return graph;
}

/** The strongly connected components of more than one file (Tarjan), each sorted. */
export function cycles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

/**
 * The simulator's layers, lowest first. A file belongs to the first layer whose prefix
 * its path (under src/simulator/) starts with.
 */
export const SIMULATOR_LAYERS: readonly { layer: string; prefixes: readonly string[] }[] = [
  { layer: "state", prefixes: ["state/", "scenarios/"] },
  { layer: "domain", prefixes: ["domain/"] },
  { layer: "pipeline", prefixes: ["pipeline/"] },
  { layer: "handlers", prefixes: ["handlers/"] },
  { layer: "hub", prefixes: ["hub.ts", "sandboxes.ts"] },
  { layer: "adapters", prefixes: ["http/", "msw/", "assets/"] },
  { layer: "entry points", prefixes: ["index.ts", "cli.ts", "main.ts", "docs-site.ts", "runners/"] },
];

function layerOf(file: string): number {
  const rel = relative("src/simulator", file).split("\\").join("/");
  return SIMULATOR_LAYERS.findIndex((l) => l.prefixes.some((p) => rel === p || rel.startsWith(p)));
}

/** Imports inside src/simulator that go from a lower layer up to a higher one (or from a file of no layer). */
export function upwardImports(graph: Graph): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    if (!file.startsWith(normalize("src/simulator/"))) continue;
    const from = layerOf(file);
    if (from < 0) {
      out.push(`${file} is in no layer`);
      continue;
    }
    for (const target of targets) {
      if (!target.startsWith(normalize("src/simulator/"))) continue;
      const to = layerOf(target);
      if (to > from) out.push(`${file} (${SIMULATOR_LAYERS[from]!.layer}) imports ${target} (${SIMULATOR_LAYERS[to]!.layer})`);
    }
  }
  return out.sort();
}
