// Every bound of every submit variant, read from the seed's own variant tables: the
// value just inside is accepted, the value just outside refused, and the refusal names
// the field. Unknown fields are refused in each variant and inside `multi_prompt` items.
import { describe, expect, it } from "vitest";
import { deref, schema, schemaValidator, validateChosen, type JsonObject } from "../../src/contract/index.ts";
import { backticked, section, tableAfter } from "../support/seed.ts";

// The 3D variant's `type` value is not shown; any value other than the known types
// selects it, so the tests use one no real variant uses.
const TYPE_3D = "test-3d-type";

interface Variant {
  label: string;
  schema: string;
  marker: string;
  base: Record<string, unknown>;
}

const variants: Variant[] = [
  { label: "video", schema: "VideoSubmit", marker: "Variant `type: video`", base: { type: "video", model: "mm" } },
  { label: "image", schema: "ImageSubmit", marker: "Variant `type: image`", base: { type: "image", model: "mm" } },
  { label: "upscale", schema: "UpscaleSubmit", marker: "Variant `type: upscale`", base: { type: "upscale", image_url: "u", scale: 1 } },
  { label: "3D", schema: "Model3dSubmit", marker: "Variant for 3D models", base: { type: TYPE_3D } },
];

const submitSection = section("POST /v1/generations");

interface Case {
  name: string;
  field: string;
  body: Record<string, unknown>;
  valid: boolean;
}

/** What a bound of the seed's wording means, as test values. Unknown wording fails the test. */
function casesFor(variant: Variant, field: string, type: string, text: string): Case[] {
  const bounds = text.replace(/\.$/, "").trim();
  const first = bounds.split(";")[0]!.trim();
  const out: Case[] = [];
  const add = (name: string, value: unknown, valid: boolean) =>
    out.push({ name: `${field} ${name}`, field, body: { ...variant.base, [field]: value }, valid });
  const str = (n: number) => "a".repeat(n);
  let m: RegExpMatchArray | null;

  if (type === "const") return [];
  if (type === "boolean") {
    add("true", true, true);
    add("a string", "yes", false);
    return out;
  }
  if (type === "enum") {
    const values = first.startsWith("Default")
      ? backticked(bounds.split("Values:")[1]!)
      : backticked(first);
    for (const v of values) add(`= ${v}`, v, true);
    // A list the seed leaves open ("and further values") accepts other values.
    add("outside the listed values", "not-a-listed-value", /further values/.test(bounds));
    return out;
  }
  if (type === "string") {
    if ((m = first.match(/^Default empty, max (\d+)$/))) {
      const max = Number(m[1]);
      add(`of ${max} characters`, str(max), true);
      add(`of ${max + 1} characters`, str(max + 1), false);
      return out;
    }
    if ((m = first.match(/^(\d+)\.\.(\d+)( chars)?$/))) {
      const [min, max] = [Number(m[1]), Number(m[2])];
      add(`of ${min} characters`, str(min), true);
      add(`of ${min - 1} characters`, str(min - 1), false);
      add(`of ${max} characters`, str(max), true);
      add(`of ${max + 1} characters`, str(max + 1), false);
      return out;
    }
    if ((m = first.match(/^max (\d+)$/))) {
      const max = Number(m[1]);
      add(`of ${max} characters`, str(max), true);
      add(`of ${max + 1} characters`, str(max + 1), false);
      return out;
    }
  }
  if (type === "integer") {
    let min: number | undefined;
    let max: number | undefined;
    let exclusiveMin = false;
    if ((m = first.match(/^(\d+)\.\.(\d+)$/))) [min, max] = [Number(m[1]), Number(m[2])];
    else if ((m = first.match(/^greater than 0, max (\d+)$/))) [min, max, exclusiveMin] = [0, Number(m[1]), true];
    if (min !== undefined && max !== undefined) {
      if (exclusiveMin) {
        add("= 0", 0, false);
        add("= 1", 1, true);
      } else {
        add(`= ${min}`, min, true);
        add(`= ${min - 1}`, min - 1, false);
      }
      add(`= ${max}`, max, true);
      add(`= ${max + 1}`, max + 1, false);
      add("not an integer", (exclusiveMin ? 1 : min) + 0.5, false);
      return out;
    }
  }
  if (type === "number") {
    if (first === "no bounds given") {
      add("any number", -123.5, true);
      add("a string", "1", false);
      return out;
    }
    if ((m = first.match(/^greater than 0, max (\d+)$/))) {
      const max = Number(m[1]);
      add("= 0", 0, false);
      add("just above 0", 0.001, true);
      add(`= ${max}`, max, true);
      add(`just above ${max}`, max + 0.001, false);
      return out;
    }
    if ((m = first.match(/^each (\d+)\.\.(\d+)$/))) {
      const [min, max] = [Number(m[1]), Number(m[2])];
      add(`= ${min}`, min, true);
      add(`just below ${min}`, min - 0.001, false);
      add(`= ${max}`, max, true);
      add(`just above ${max}`, max + 0.001, false);
      return out;
    }
  }
  if (field === "multi_prompt") return multiPromptCases(variant, bounds);
  if (type.startsWith("array")) {
    const item = type === "array of numbers" ? 0 : type === "array of booleans" ? true : "a";
    if ((m = first.match(/^max (\d+)(?: items)?(?:, each (?:max (\d+)|(\d+)\.\.(\d+))( chars)?)?$/))) {
      const maxItems = Number(m[1]);
      add(`with ${maxItems} items`, Array(maxItems).fill(item), true);
      add(`with ${maxItems + 1} items`, Array(maxItems + 1).fill(item), false);
      if (m[2]) {
        const max = Number(m[2]);
        add(`item of ${max} characters`, ["a".repeat(max)], true);
        add(`item of ${max + 1} characters`, ["a".repeat(max + 1)], false);
      } else if (m[3]) {
        const [min, max] = [Number(m[3]), Number(m[4])];
        if (m[5] || type === "array of strings") {
          add(`item of ${min} characters`, ["a".repeat(min)], true);
          add(`item of ${min - 1} characters`, ["a".repeat(min - 1)], false);
          add(`item of ${max} characters`, ["a".repeat(max)], true);
          add(`item of ${max + 1} characters`, ["a".repeat(max + 1)], false);
        } else {
          add(`item = ${min}`, [min], true);
          add(`item below ${min}`, [min - 0.001], false);
          add(`item = ${max}`, [max], true);
          add(`item above ${max}`, [max + 0.001], false);
        }
      }
      add("of the wrong item type", [{}], false);
      return out;
    }
  }
  throw new Error(`No test values for "${field}" (${type}): "${text}". Teach casesFor this wording.`);
}

/** `max 6 items; each an object with required index (integer 1..6), prompt (string max 2500), duration (integer 2..30); no other keys`. */
function multiPromptCases(variant: Variant, bounds: string): Case[] {
  const maxItems = Number(bounds.match(/^max (\d+) items/)![1]);
  const [iMin, iMax] = bounds.match(/`index` \(integer (\d+)\.\.(\d+)\)/)!.slice(1).map(Number) as [number, number];
  const pMax = Number(bounds.match(/`prompt` \(string max (\d+)\)/)![1]);
  const [dMin, dMax] = bounds.match(/`duration` \(integer (\d+)\.\.(\d+)\)/)!.slice(1).map(Number) as [number, number];
  expect(bounds).toMatch(/no other keys/);
  const shot = { index: iMin, prompt: "p", duration: dMin };
  const cases: Case[] = [];
  const add = (name: string, value: unknown, valid: boolean, field = "multi_prompt") =>
    cases.push({ name: `multi_prompt ${name}`, field, body: { ...variant.base, multi_prompt: value }, valid });
  add(`with ${maxItems} shots`, Array(maxItems).fill(shot), true);
  add(`with ${maxItems + 1} shots`, Array(maxItems + 1).fill(shot), false);
  add(`index ${iMax}`, [{ ...shot, index: iMax }], true);
  add(`index ${iMin - 1}`, [{ ...shot, index: iMin - 1 }], false, "multi_prompt.0.index");
  add(`index ${iMax + 1}`, [{ ...shot, index: iMax + 1 }], false, "multi_prompt.0.index");
  add(`prompt of ${pMax} characters`, [{ ...shot, prompt: "a".repeat(pMax) }], true);
  add(`prompt of ${pMax + 1} characters`, [{ ...shot, prompt: "a".repeat(pMax + 1) }], false, "multi_prompt.0.prompt");
  add(`duration ${dMax}`, [{ ...shot, duration: dMax }], true);
  add(`duration ${dMin - 1}`, [{ ...shot, duration: dMin - 1 }], false, "multi_prompt.0.duration");
  add(`duration ${dMax + 1}`, [{ ...shot, duration: dMax + 1 }], false, "multi_prompt.0.duration");
  for (const key of ["index", "prompt", "duration"]) {
    const partial: Record<string, unknown> = { ...shot };
    delete partial[key];
    add(`shot without ${key}`, [partial], false, `multi_prompt.0.${key}`);
  }
  add("shot with another key", [{ ...shot, note: "x" }], false, "multi_prompt.0.note");
  return cases;
}

/** Rows of a variant's table, with multi-field rows ("face_strength, sharpen, ...") split. */
function rowsOf(variant: Variant): { field: string; type: string; bounds: string }[] {
  return tableAfter(submitSection, variant.marker).flatMap(([fields, type, bounds]) =>
    fields!.split(",").map((f) => ({ field: f.trim(), type: type!, bounds: bounds ?? "" })),
  );
}

describe.each(variants)("SUB-V SUB-I SUB-U SUB-3D: variant $label", (variant) => {
  const rows = rowsOf(variant);
  const props = deref<JsonObject>(schema(variant.schema)).properties as JsonObject;
  const validate = schemaValidator("SubmitRequest");

  const heading = submitSection.split("\n").find((l) => l.includes(variant.marker))!;
  // The 3D heading says its `type` value and required fields are not shown: the variant
  // still has `type` (the choice between variants) and requires only that.
  const typeNotShown = /not shown/.test(heading);

  it("has exactly the fields of the seed's table", () => {
    const expected = rows.map((r) => r.field).concat(typeNotShown ? ["type"] : []);
    expect(Object.keys(props).sort()).toEqual(expected.sort());
  });

  it("requires exactly the fields the seed names as required", () => {
    const required = typeNotShown ? ["type"] : backticked(heading.match(/required: ([^)]*)\)/)![1]!);
    expect([...(deref<JsonObject>(schema(variant.schema)).required as string[])].sort()).toEqual(required.sort());
    if (!typeNotShown) expect(required.filter((f) => f !== "type")).not.toHaveLength(0);
    for (const field of required.filter((f) => f !== "type")) {
      const body: Record<string, unknown> = { ...variant.base };
      delete body[field];
      expect(validate(body), `without ${field}`).toBe(false);
      expect(validateChosen("SubmitRequest", body)).toContainEqual(expect.objectContaining({ field, reason: "required" }));
    }
  });

  it("SUB-0: accepts its minimal body and refuses an unknown field", () => {
    expect(validate(variant.base)).toBe(true);
    expect(validate({ ...variant.base, not_a_field: 1 })).toBe(false);
    expect(validateChosen("SubmitRequest", { ...variant.base, not_a_field: 1 })).toEqual([
      expect.objectContaining({ field: "not_a_field", reason: "unknown_field" }),
    ]);
  });

  const cases = rows.flatMap((r) => casesFor(variant, r.field, r.type, r.bounds));
  it.each(cases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    expect(validate(c.body), JSON.stringify(c.body).slice(0, 120)).toBe(c.valid);
    const details = validateChosen("SubmitRequest", c.body);
    if (c.valid) expect(details).toEqual([]);
    else {
      // A fault inside an item is named with its index (`image_urls.0`).
      const named = details.some((d) => d.field === c.field || d.field?.startsWith(`${c.field}.`));
      expect(named, `the refusal names ${c.field}: ${JSON.stringify(details)}`).toBe(true);
    }
  });
});

describe("prompt defaults", () => {
  it.each([
    ["VideoSubmit", "SubmitPrompt"],
    ["ImageSubmit", "SubmitPrompt"],
  ])("SUB-V SUB-I: %s prompt defaults to empty", (variantName) => {
    const prompt = deref<JsonObject>((deref<JsonObject>(schema(variantName)).properties as JsonObject).prompt);
    expect(prompt.default).toBe("");
  });
  it("SUB-3D: the 3D prompt defaults to empty", () => {
    const prompt = (deref<JsonObject>(schema("Model3dSubmit")).properties as JsonObject).prompt as JsonObject;
    expect(prompt.default).toBe("");
  });
  it("SUB-U: the upscale model defaults to vendorA-upscale", () => {
    const model = (deref<JsonObject>(schema("UpscaleSubmit")).properties as JsonObject).model as JsonObject;
    expect(model.default).toBe(backticked(tableAfter(submitSection, "Variant `type: upscale`").find((r) => r[0] === "model")![2]!)[0]);
  });
});
