// The simulator checks a submit body with a yes/no validator and asks the contract's own
// validator for details only when it says no. If the two disagreed, a valid body would be
// refused with no details, or an invalid one accepted. Same verdict on a corpus of
// mutated bodies of every variant (the quick one checks only the branch `type` chooses).
import { describe, expect, it } from "vitest";
import { deref, schema, schemaValidator, validateChosen, type JsonObject } from "../../src/contract/index.ts";
import { quickChosen } from "../../src/simulator/domain/quick-validators.ts";

const bases: Record<string, unknown>[] = [
  { type: "video", model: "video-model-a", prompt: "a lighthouse", duration: 5 },
  { type: "image", model: "image-model-a", prompt: "a cat" },
  { type: "upscale", image_url: "u", scale: 2 },
  { type: "test-3d-type" },
  { type: "text" },
];
const values: unknown[] = [null, true, 0, -1, 1, 2.5, 1e9, "", "x", "x".repeat(5000), [], ["a"], [{}], {}, { a: 1 }];

/** Every property any submit variant declares, so mutations hit real fields. */
function fieldsOfVariants(): string[] {
  const fields = new Set<string>(["unknown_field"]);
  for (const branch of (schema("SubmitRequest").oneOf as JsonObject[] | undefined) ?? []) {
    for (const name of Object.keys((deref<JsonObject>(branch).properties as JsonObject | undefined) ?? {})) fields.add(name);
  }
  return [...fields];
}

/** A deterministic generator, so a failure repeats. */
function random(seed: number): () => number {
  return () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed / 0x7fffffff);
}

describe("submit validation", () => {
  it("SUB-0: the quick validator gives the contract validator's verdict on every mutated body, and each refusal has details", () => {
    const fields = fieldsOfVariants();
    expect(fields.length).toBeGreaterThan(10);
    const contractValidator = schemaValidator("SubmitRequest");
    const quick = (body: unknown) => quickChosen("SubmitRequest", body);
    for (const body of [null, [], "video", 5, [{ type: "video" }]]) expect(quick(body), JSON.stringify(body)).toBe(false);
    const next = random(7);
    const pick = <T>(xs: T[]): T => xs[Math.floor(next() * xs.length)]!;
    let accepted = 0;
    let refused = 0;
    for (let i = 0; i < 20_000; i++) {
      const body: Record<string, unknown> = { ...pick(bases) };
      for (let m = Math.floor(next() * 3); m > 0; m--) {
        const field = pick(fields);
        if (next() < 0.2) delete body[field];
        else body[field] = pick(values);
      }
      const expected = contractValidator(body) as boolean;
      expect(quick(body), JSON.stringify(body)).toBe(expected);
      if (expected) accepted++;
      else {
        refused++;
        expect(validateChosen("SubmitRequest", body).length, JSON.stringify(body)).toBeGreaterThan(0);
      }
    }
    // The corpus holds both verdicts in numbers, or it proves nothing.
    expect(accepted).toBeGreaterThan(500);
    expect(refused).toBeGreaterThan(500);
  }, 60_000);
});
