// The shape of src/: no import cycle anywhere (type-only imports count: a cycle of types
// is a cycle of understanding), and the simulator's layers import only downward
// (docs/contributing.md, "The simulator's layers").
import { describe, expect, it } from "vitest";
import { cycles, importGraph, upwardImports, type Graph } from "../scripts/lib/imports.ts";

describe("imports", () => {
  const graph = importGraph("src");

  it("src/ has no import cycle", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(cycles(graph)).toEqual([]);
  });

  it("the simulator's layers import only downward: state, domain, pipeline, handlers, hub, adapters, entry points", () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it("the checks see a cycle and an upward import when there is one", () => {
    const made: Graph = new Map([
      ["src/simulator/state/a.ts", ["src/simulator/domain/b.ts"]],
      ["src/simulator/domain/b.ts", ["src/simulator/state/a.ts"]],
      ["src/simulator/hub.ts", []],
    ]);
    expect(cycles(made)).toEqual([["src/simulator/domain/b.ts", "src/simulator/state/a.ts"]]);
    expect(upwardImports(made)).toEqual(["src/simulator/state/a.ts (state) imports src/simulator/domain/b.ts (domain)"]);
    expect(upwardImports(new Map([["src/simulator/stray.ts", []]]))).toEqual(["src/simulator/stray.ts is in no layer"]);
  });
});
