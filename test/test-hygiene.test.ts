// The tests themselves: a test that checks items in a loop first shows the loop runs
// (docs/contributing.md), or it passes on an empty collection having checked nothing. What
// counts as shown, and what the check cannot see, is written at the top of
// scripts/lib/loop-assertions.ts. Where a collection has items by construction in a way the
// check cannot see, the test says so in one assertion rather than in a list of exceptions.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { unprovenLoops, type UnprovenLoop } from "../scripts/lib/loop-assertions.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

function testSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return testSources(path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

const said = (l: UnprovenLoop) =>
  `${l.file}:${l.line} "${l.test}": nothing shows the loop over ${l.collection} runs` +
  (l.skips ? " (it passes over items before asserting: assert a narrowed collection first, or count what it checked and assert the count after)" : " (assert it is not empty first)");

/** The loops `unprovenLoops` finds in a test file made of `body`, by their collection. */
const found = (body: string) => unprovenLoops("fixture.test.ts", body).map((l) => l.collection);

describe("test hygiene", () => {
  it("every loop of a test that asserts is shown to run: its collection has items by construction, or the test asserts it has", () => {
    const files = testSources(join(root, "test"));
    expect(files.length).toBeGreaterThan(100);
    const unproven = files.flatMap((file) => unprovenLoops(relative(root, file), readFileSync(file, "utf8")));
    expect(unproven.map(said)).toEqual([]);
  });

  it("finds a loop that may assert nothing, in every form a test takes", () => {
    // A plain test, a table-driven one, a forEach, a test registered by a helper.
    expect(found(`it("checks items", () => { for (const a of items()) expect(a).toBe(1); });`)).toEqual(["items()"]);
    expect(found(`it.each(cases)("%s", (_n, fields) => { for (const f of fields) expect(f).toBeDefined(); });`)).toEqual(["fields"]);
    expect(found(`test("x", async () => { (await list()).forEach((a) => { expect(a).toBe(1); }); });`)).toEqual(["(await list())"]);
    expect(found(`export function suite(xs: number[]) { describe("s", () => { it("x", () => { for (const a of xs) expect(a).toBe(1); }); }); }`)).toEqual(["xs"]);
    // An assertion through a function of the file, or a matcher of vitest's own.
    expect(found(`const check = (a: number) => expect(a).toBe(1);\nit("x", () => { for (const a of xs) check(a); });`)).toEqual(["xs"]);
    expect(found(`it("x", () => { for (const a of xs) expect.soft(a).toBe(1); });`)).toEqual(["xs"]);
    expect(found(`it("x", () => { for (const a of xs) expectValid(a); });`)).toEqual(["xs"]);
    // A loop inside one that asserts nothing of its own, each loop reported.
    expect(found(`it("x", () => { for (const op of ops) for (const r of op.responses) expect(r).toBeDefined(); });`)).toEqual(["ops", "op.responses"]);
    // A loop in a named function runs when called: the loop that calls it is the one held to the rule.
    expect(found(`it("x", () => { const walk = (n: any) => { for (const k of n.keys) expect(k).toBeDefined(); }; for (const s of schemas) walk(s); });`)).toEqual(["schemas"]);
    // The assertion is in another test, after the loop, or says nothing of the items.
    expect(found(`it("a", () => { expect(xs.length).toBeGreaterThan(0); });\nit("b", () => { for (const a of xs) expect(a).toBe(1); });`)).toEqual(["xs"]);
    expect(found(`it("x", () => { for (const a of xs) expect(a).toBe(1); expect(xs.length).toBeGreaterThan(0); });`)).toEqual(["xs"]);
    expect(found(`it("x", () => { expect(xs).toBeDefined(); expect(xs.length).toBeGreaterThanOrEqual(0); expect(xs).toHaveLength(n); for (const a of xs) expect(a).toBe(1); });`)).toEqual(["xs"]);
    // A part of the collection having items says nothing of another part, nor does the whole.
    expect(found(`it("x", () => { expect(xs.length).toBeGreaterThan(0); for (const a of xs.filter(f)) expect(a).toBe(1); });`)).toEqual(["xs.filter(f)"]);
    // A loop that passes over items before asserting: the collection having items is not enough.
    expect(found(`it("x", () => { expect(ops.length).toBeGreaterThan(0); for (const op of ops) { if (!op.body) continue; expect(op.body).toBeDefined(); } });`)).toEqual(["ops"]);
    expect(found(`it("x", () => { expect(ops.length).toBeGreaterThan(0); ops.forEach((op) => { if (!op.body) return; expect(op.body).toBeDefined(); }); });`)).toEqual(["ops"]);
    // A count after the loop of what it does not fill, or fills before it passes over the item.
    expect(found(`it("x", () => { const seen: string[] = []; for (const a of xs) expect(a).toBe(1); seen.push("a"); expect(seen.length).toBeGreaterThan(0); });`)).toEqual(["xs"]);
    expect(found(`it("x", () => { let n = 0; for (const x of xs) { n++; if (!x.on) continue; expect(x).toBeDefined(); } expect(n).toBeGreaterThan(0); });`)).toEqual(["xs"]);
    // Two collections written the same way are not one collection.
    expect(found(`it("x", () => { const a: string[] = []; const b: string[] = []; a.push("x"); expect(a).not.toHaveLength(0); for (const x of b) expect(x).toBe(1); });`)).toEqual(["b"]);
    expect(found(`it("x", () => { const a = new Set<string>(); const b = new Set<string>(); expect(a.size).toBeGreaterThan(0); for (const x of b) expect(x).toBe(1); });`)).toEqual(["b"]);
    // A const is read where it is in scope: another test's literal does not count.
    expect(found(`it("a", () => { const xs = [1]; expect(xs).toBeDefined(); });\nit("b", () => { for (const a of xs) expect(a).toBe(1); });`)).toEqual(["xs"]);
    expect(found(`const xs = [1];\nit("b", (xs: number[]) => { for (const a of xs) expect(a).toBe(1); });`)).toEqual(["xs"]);
    // A counted loop whose bounds are not both known, a while loop.
    expect(found(`it("x", () => { for (let i = 0; i < n; i++) expect(i).toBe(1); for (let i = 3; i < 0; i++) expect(i).toBe(1); while (more()) expect(next()).toBe(1); });`)).toEqual(["n", "0", "more()"]);
  });

  it("takes each way of showing a loop runs", () => {
    const shown = [
      // By construction.
      `for (const a of ["x", "y"]) expect(a).toBeTypeOf("string");`,
      `const cases = [[1, 2]] as const; for (const [a, b] of cases) expect(a).toBeLessThan(b);`,
      `for (const [k, v] of Object.entries({ a: 1 })) expect(v, k).toBe(1);`,
      `for (const a of new Set([...["x"], ...more])) expect(a).toBeDefined();`,
      `for (let i = 0; i < 3; i++) expect(i).toBeLessThan(3);`,
      `for (let i = 3; i >= 0; i--) expect(i).toBeGreaterThanOrEqual(0);`,
      `do { expect(step()).toBe(true); } while (more());`,
      // Asserted before the loop, on the collection or on what has as many items.
      `expect(xs.length).toBeGreaterThan(0); for (const a of xs) expect(a).toBe(1);`,
      `expect(xs.length).toBeGreaterThanOrEqual(limit.length + 1); for (const a of xs) expect(a).toBe(1);`,
      `expect(xs.size).not.toBe(0); for (const a of xs.values()) expect(a).toBe(1);`,
      `expect(xs).not.toHaveLength(0); for (const a of [...xs].sort()) expect(a).toBe(1);`,
      `expect(xs).toHaveLength(2); xs.forEach((a) => expect(a).toBe(1));`,
      `expect(Object.keys(o)).not.toEqual([]); for (const k in o) expect(k).toBeDefined();`,
      `expect(o).toHaveProperty("a"); for (const [k] of Object.entries(o ?? {})) expect(k).toBeDefined();`,
      `expect(xs).toContain("a"); for (const a of xs) expect(a).toBeDefined();`,
      `expect(xs.length > 0).toBe(true); for (const a of xs) expect(a).toBeDefined();`,
      `expect(await cards.count()).toBeGreaterThan(0); for (const c of await cards.all()) expect(c).toBeDefined();`,
      `const ids = found.map((f) => f.id); expect(found).not.toHaveLength(0); for (const id of ids) expect(id).toBeDefined();`,
      // Equal to something known to have items.
      `expect(names).toEqual(["a", "b"]); for (const n of names) expect(n).toBeDefined();`,
      `expect(expected).not.toHaveLength(0); expect(names).toEqual(expected); for (const n of names) expect(n).toBeDefined();`,
      // A part having items shows the whole has, also for a loop that passes over items.
      `expect(xs.filter((x) => x.on)).not.toHaveLength(0); for (const x of xs) { if (!x.on) continue; expect(x).toBeDefined(); }`,
      `expect(xs.some((x) => x.on)).toBe(true); for (const x of xs) { if (!x.on) continue; expect(x).toBeDefined(); }`,
      // Counted after the loop: what it filled, in its body or through a function it calls.
      `const seen: string[] = []; for (const x of xs) { if (!x.on) continue; seen.push(x.id); expect(x).toBeDefined(); } expect(seen.length).toBeGreaterThan(2);`,
      `let n = 0; for (const x of xs) { expect(x).toBeDefined(); n++; } expect(n).toBeGreaterThan(0);`,
      `const found: string[] = []; const walk = (node: any) => { for (const k of Object.keys(node)) { found.push(k); expect(k).toBeDefined(); } }; for (const s of schemas) walk(s); expect(found.length).toBeGreaterThanOrEqual(4);`,
      // A loop inside one that asserts of its own on each item.
      `expect(ops.length).toBeGreaterThan(0); for (const op of ops) { expect(op.id).toBeDefined(); for (const r of op.responses) expect(r).toBeDefined(); }`,
      // A continue after the item's first assertion does not pass over it.
      `expect(ops.length).toBeGreaterThan(0); for (const op of ops) { expect(op).toBeDefined(); if (!op.body) continue; expect(op.body).toBeDefined(); }`,
      // No assertion in the loop: vitest's matcher helpers.
      `expect(xs).toEqual(ys.map((y) => expect.objectContaining({ y })));`,
    ];
    for (const body of shown) expect(found(`it("x", async () => { ${body} });`), body).toEqual([]);
  });

  it("reports where the loop is, in which test, over what, and whether it passes over items", () => {
    const text = `describe("d", () => {\n  it("checks every op", () => {\n    for (const op of ops) {\n      if (!op.on) continue;\n      expect(op).toBeDefined();\n    }\n  });\n});\n`;
    const [loop] = unprovenLoops("test/x.test.ts", text);
    expect(loop).toEqual({ file: "test/x.test.ts", line: 3, test: "checks every op", collection: "ops", skips: true });
    expect(said(loop!)).toMatch(/^test\/x\.test\.ts:3 "checks every op": nothing shows the loop over ops runs \(it passes over items/);
  });
});
