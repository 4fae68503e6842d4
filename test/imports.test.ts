// The shape of src/: no import cycle anywhere (type-only imports count: a cycle of types
// is a cycle of understanding), and the layers of the simulator and of the conformance
// suite import only downward (docs/contributing.md, "The simulator's layers" and "The
// conformance suite"); a conformance check never imports another area's check.
import { describe, expect, it } from "vitest";
import { CONFORMANCE_LAYERS, crossAreaImports, cycles, importGraph, upwardImports, type Graph } from "../scripts/lib/imports.ts";

describe("imports", () => {
  const graph = importGraph("src");

  it("src/ has no import cycle", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(cycles(graph)).toEqual([]);
  });

  it("the simulator's layers import only downward: state, domain, pipeline, handlers, hub, adapters, entry points", () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it("the conformance suite's layers import only downward: target, judge, facts, kit, checks, run, entry points", () => {
    expect([...graph.keys()].filter((f) => f.startsWith("src/conformance/")).length).toBeGreaterThan(50);
    expect(upwardImports(graph, "src/conformance", CONFORMANCE_LAYERS)).toEqual([]);
  });

  it("a conformance check imports kit/, judge/, target/ and facts/, never another area's check", () => {
    expect([...graph.keys()].filter((f) => /^src\/conformance\/checks\/[^/]+\//.test(f)).length).toBeGreaterThan(20);
    expect(crossAreaImports(graph)).toEqual([]);
  });

  it("the checks see a cycle, an upward import and a check of another area when there is one", () => {
    const made: Graph = new Map([
      ["src/simulator/state/a.ts", ["src/simulator/domain/b.ts"]],
      ["src/simulator/domain/b.ts", ["src/simulator/state/a.ts"]],
      ["src/simulator/hub.ts", []],
    ]);
    expect(cycles(made)).toEqual([["src/simulator/domain/b.ts", "src/simulator/state/a.ts"]]);
    expect(upwardImports(made)).toEqual(["src/simulator/state/a.ts (state) imports src/simulator/domain/b.ts (domain)"]);
    expect(upwardImports(new Map([["src/simulator/stray.ts", []]]))).toEqual(["src/simulator/stray.ts is in no layer"]);
    const suite: Graph = new Map([
      ["src/conformance/kit/a.ts", ["src/conformance/checks/paging/b.ts"]],
      ["src/conformance/checks/paging/b.ts", ["src/conformance/checks/uploads/c.ts", "src/conformance/kit/a.ts"]],
      ["src/conformance/checks/uploads/c.ts", []],
      ["src/conformance/checks/index.ts", ["src/conformance/checks/paging/b.ts", "src/conformance/checks/uploads/c.ts"]],
    ]);
    expect(upwardImports(suite, "src/conformance", CONFORMANCE_LAYERS)).toEqual(["src/conformance/kit/a.ts (kit) imports src/conformance/checks/paging/b.ts (checks)"]);
    expect(crossAreaImports(suite)).toEqual(["src/conformance/checks/paging/b.ts (checks/paging) imports src/conformance/checks/uploads/c.ts (checks/uploads)"]);
  });
});
