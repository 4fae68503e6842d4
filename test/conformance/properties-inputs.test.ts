// The bounds of every input and the refusals a framework answers by itself, as properties
// of every route (src/conformance/properties/): each broken server breaks the rule on some
// inputs or routes only, the suite fails exactly that rule, and only the property finds it.
import { describe, expect, it } from "vitest";
import { boundCases } from "../../src/conformance/checks/inputs/bounds.ts";
import { planFor, type Known, type Plan } from "../../src/conformance/kit/generate/plans.ts";
import { fieldsOf } from "../../src/conformance/kit/generate/schema.ts";
import { operations } from "../../src/contract/index.ts";
import { against, messages, routeDouble } from "./support/properties.ts";
import { explain, failing } from "./support/run.ts";

const KNOWN: Known = {
  models: [
    { id: "video-model-a", type: "video" },
    { id: "image-model-a", type: "image" },
    { id: "vendorA-upscale", type: "upscale" },
    { id: "model3d-a", type: "model_3d" },
  ],
  ownIds: ["gen_01JCONFORMANCE0000000000"],
  createdIds: ["gen_01JCONFORMANCE0000000000"],
  uploadRefs: ["upl_conformance"],
  assetIds: [],
  slugs: [],
  outputPaths: [],
  cursors: {},
};

/** Every bound the contract states on an operation's inputs, as `field keyword`. */
function boundsOf(plan: Plan): string[] {
  const out: string[] = [];
  const keywords = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems"];
  const add = (prefix: string, s: Record<string, unknown>) => {
    for (const k of keywords) if (typeof s[k] === "number" && !(k === "minLength" && s[k] === 0) && !(k === "minItems" && s[k] === 0)) out.push(`${prefix} ${k}`);
  };
  for (const p of plan.query) add(p.name, (fieldsOf({ type: "object", properties: { [p.name]: p.raw } })[0]!.view.s));
  for (const v of plan.body?.variants.filter((x) => !x.unavailable) ?? []) for (const f of fieldsOf(v.raw)) add(`${v.name}.${f.path.join(".")}`, f.view.s);
  return out;
}

describe("the bounds of every input", () => {
  it("PRICE-7 PAGE-3 BATCH-1 REP-2 UPL-5 SUP-3: one past every bound the contract states, on every operation the suite sends, read from the contract", () => {
    let total = 0;
    for (const op of operations()) {
      const plan = planFor(op.operationId, KNOWN);
      if ("skipped" in plan) continue;
      const { invalid } = boundCases(plan, KNOWN);
      const stated = boundsOf(plan);
      total += stated.length;
      // Each stated bound has its fault, named by the field and the bound it passes.
      expect(invalid.length, `${op.operationId}: ${stated.join(", ")}`).toBe(stated.length);
      for (const k of invalid) expect(k.fault!.expected.statuses, k.fault!.describe).toEqual([400]);
    }
    expect(total).toBeGreaterThan(80);
  });

  it("SUB-V SUB-I SUB-U SUB-3D: every bounded field of each variant at its upper edges in one estimate body, at its lower edges in another, the model's length alone", () => {
    const plan = planFor("estimatePrice", KNOWN) as Plan;
    const { valid } = boundCases(plan, KNOWN);
    expect(valid).not.toHaveLength(0);
    for (const k of valid) expect(plan.body!.details(k.body!), JSON.stringify(k.body).slice(0, 200)).toEqual([]);
    const video = valid.filter((k) => k.variant === "VideoSubmit");
    expect(video.some((k) => (k.body as any).duration === 30 && (k.body as any).seed === 2147483647 && (k.body as any).multi_prompt?.length === 6)).toBe(true);
    expect(video.some((k) => (k.body as any).duration === 2 && (k.body as any).draft_generation_id?.length === 20)).toBe(true);
    expect(video.filter((k) => String((k.body as any).model).length === 80 || String((k.body as any).model).length === 2)).toHaveLength(2);
    expect(new Set(valid.map((k) => k.variant))).toEqual(new Set(["VideoSubmit", "ImageSubmit", "UpscaleSubmit", "Model3dSubmit"]));
  });

  it("SUB-V: fails a server whose video duration is off by one (30 refused as out_of_range), found by the estimate at its edges", { timeout: 60_000 }, async () => {
    const report = await against(routeDouble("SUB-V", /off by one/));
    expect(report.errors, explain(report)).toEqual([]);
    expect(failing(report), explain(report)).toEqual(["SUB-V"]);
    expect(messages(report, "SUB-V")).toEqual([expect.stringMatching(/^estimatePrice: a VideoSubmit valid against the contract was refused 400 invalid_request naming duration out_of_range, a schema reason for a valid field \(the bounds of every input\)$/)]);
  });

  it("PRICE-7: fails a server that does not check the length of audio_urls items (and only those)", { timeout: 60_000 }, async () => {
    const report = await against(routeDouble("PRICE-7", /audio_urls/));
    expect(failing(report), explain(report)).toEqual(["PRICE-7"]);
    expect(messages(report, "PRICE-7")).toEqual([expect.stringMatching(/^estimatePrice: audio_urls\.0 of 2049 characters \(maxLength 2048\): accepted with 200; expected 400 invalid_request \(the bounds of every input\)$/)]);
  });

  it("PAGE-3: finds a knowledge search that clamps limit without generated inputs", { timeout: 60_000 }, async () => {
    const report = await against(routeDouble("PAGE-3", /knowledge search clamps/));
    expect(failing(report), explain(report)).toEqual(["PAGE-3"]);
    expect(messages(report, "PAGE-3").sort()).toEqual([expect.stringMatching(/^searchKnowledge: limit="0" \(minimum 1\): accepted with 200/), expect.stringMatching(/^searchKnowledge: limit="101" \(maximum 100\): accepted with 200/)]);
  });
});

describe("refusals a framework answers, on every route", () => {
  it("W-5 EP-1: fails a server that answers a method a path does not take with its HTML 405 page", { timeout: 60_000 }, async () => {
    const report = await against(routeDouble("W-5", /405/));
    expect(failing(report), explain(report)).toEqual(["EP-1", "W-5"]);
    const rows = report.rows.find((r) => r.id === "W-5")!.failures;
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.every((f) => /^a failure whose body is not JSON: "<html>/.test(f.message) && / -> 405$/.test(f.request ?? ""))).toBe(true);
  });

  it("ENV-6: fails a server that answers a body that is not JSON with the parser's message on every route but the estimate", { timeout: 60_000 }, async () => {
    const report = await against(routeDouble("ENV-6", /parser's message/));
    expect(failing(report), explain(report)).toEqual(["ENV-6"]);
    const rows = report.rows.find((r) => r.id === "ENV-6")!.failures;
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.every((f) => /Unexpected end of JSON input/.test(f.message) && !/pricing\/estimate/.test(f.request ?? ""))).toBe(true);
  });

  it("EP-3: fails a server that drops the RateLimit pair from its 404 answers (the route's own refusals)", { timeout: 60_000 }, async () => {
    const report = await against(routeDouble("EP-3", /404/));
    expect(failing(report), explain(report)).toEqual(["EP-3"]);
    expect(messages(report, "EP-3").every((m) => /^a 404 not_found of \w+ \(the route's own refusal: the request passed the limiter\) came without RateLimit and RateLimit-Policy$/.test(m))).toBe(true);
  });
});
