// The import graph of src/ as TypeScript reads it (static, type-only and dynamic imports
// alike), its cycles, and the layer rules of the simulator and the conformance suite: a
// file imports only from its own layer or the ones below it (and a conformance check never
// from another area's). Used by test/imports.test.ts.
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

/** Layers of a part of src/, lowest first: a file belongs to the first whose prefix its path (under the part) starts with. */
export type Layers = readonly { layer: string; prefixes: readonly string[] }[];

/** The simulator's layers, lowest first (docs/contributing.md, "The simulator's layers"). */
export const SIMULATOR_LAYERS: Layers = [
  { layer: "state", prefixes: ["state/", "scenarios/"] },
  { layer: "domain", prefixes: ["domain/"] },
  { layer: "pipeline", prefixes: ["pipeline/"] },
  { layer: "handlers", prefixes: ["handlers/"] },
  { layer: "hub", prefixes: ["hub.ts", "sandboxes.ts"] },
  { layer: "adapters", prefixes: ["http/", "msw/", "assets/"] },
  { layer: "entry points", prefixes: ["index.ts", "cli.ts", "main.ts", "docs-site.ts", "runners/"] },
];

/** The conformance suite's layers, lowest first (docs/contributing.md, "The conformance suite"). */
export const CONFORMANCE_LAYERS: Layers = [
  { layer: "target", prefixes: ["target/"] },
  { layer: "judge", prefixes: ["judge/"] },
  { layer: "facts", prefixes: ["facts/"] },
  { layer: "kit", prefixes: ["kit/"] },
  { layer: "checks", prefixes: ["checks/"] },
  { layer: "run", prefixes: ["run/"] },
  { layer: "entry points", prefixes: ["index.ts", "cli.ts", "main.ts"] },
];

function layerOf(file: string, root: string, layers: Layers): number {
  const rel = relative(root, file).split("\\").join("/");
  return layers.findIndex((l) => l.prefixes.some((p) => rel === p || rel.startsWith(p)));
}

/** Imports inside `root` that go from a lower layer up to a higher one (or from a file of no layer). */
export function upwardImports(graph: Graph, root = "src/simulator", layers: Layers = SIMULATOR_LAYERS): string[] {
  const out: string[] = [];
  const inside = normalize(`${root}/`);
  for (const [file, targets] of graph) {
    if (!file.startsWith(inside)) continue;
    const from = layerOf(file, root, layers);
    if (from < 0) {
      out.push(`${file} is in no layer`);
      continue;
    }
    for (const target of targets) {
      if (!target.startsWith(inside)) continue;
      const to = layerOf(target, root, layers);
      if (to > from) out.push(`${file} (${layers[from]!.layer}) imports ${target} (${layers[to]!.layer})`);
    }
  }
  return out.sort();
}

/**
 * Imports from one check folder into another (`checks/<area>/` of the conformance suite):
 * a check imports kit/, judge/, target/ and facts/, never another area's check. The
 * registry (`checks/index.ts`) lists them all and is no area.
 */
export function crossAreaImports(graph: Graph, root = "src/conformance/checks"): string[] {
  const areaOf = (file: string) => /^([^/]+)\//.exec(relative(root, file).split("\\").join("/"))?.[1];
  const out: string[] = [];
  for (const [file, targets] of graph) {
    const from = file.startsWith(normalize(`${root}/`)) ? areaOf(file) : undefined;
    if (!from) continue;
    for (const target of targets) {
      const to = target.startsWith(normalize(`${root}/`)) ? areaOf(target) : undefined;
      if (to && to !== from) out.push(`${file} (checks/${from}) imports ${target} (checks/${to})`);
    }
  }
  return out.sort();
}
