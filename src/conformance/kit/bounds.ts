// A value just past a bound of a submit variant, read from the contract (never retyped).
import { deref, schema, type JsonObject } from "../../contract/index.ts";

/** A field of the variant with a numeric or length bound, and a value just beyond it. */
export function overBound(type: string, skip: readonly string[] = ["prompt", "model", "type"]): { field: string; value: unknown } | undefined {
  const name = { video: "VideoSubmit", image: "ImageSubmit", upscale: "UpscaleSubmit" }[type];
  if (!name) return undefined;
  const props = deref<JsonObject>(schema(name)).properties as JsonObject;
  for (const [field, raw] of Object.entries(props)) {
    if (skip.includes(field)) continue;
    const p = deref<JsonObject>(raw);
    if ((p.type === "integer" || p.type === "number") && typeof p.maximum === "number" && p.maximum < 1e9) return { field, value: p.maximum + 1 };
    if (p.type === "string" && typeof p.maxLength === "number" && p.maxLength <= 5000 && !p.enum) return { field, value: "x".repeat(p.maxLength + 1) };
  }
  return undefined;
}
