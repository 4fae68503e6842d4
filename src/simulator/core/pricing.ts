// One price function: it answers POST /v1/pricing/estimate and it is what a submit
// checks against the balance and debits. Free quotas and promo mode are applied after
// it (see charges.ts) and can only lower the amount.
import { CURRENCY, type ModelDef, type PriceRow } from "./fixtures/catalog.ts";
import type { Inputs } from "./references.ts";

export interface Price {
  price_cc: number;
  currency: string;
  breakdown: { variant: string; units: number; surcharge_cc: number };
}

function unitsOf(row: PriceRow, model: ModelDef, body: Record<string, unknown>, inputs?: Inputs): number {
  switch (row.unit) {
    case "second":
      return typeof body.duration === "number" ? body.duration : (model.constraints.default_duration ?? 5);
    case "image":
      return typeof body.n_variants === "number" ? body.n_variants : 1;
    case "scale":
      return typeof body.scale === "number" ? body.scale : 1;
    case "output_megapixel": {
      // The measured input image times the scale, in whole megapixels (at least one).
      const scale = typeof body.scale === "number" ? body.scale : 1;
      const w = inputs?.image?.width ?? (typeof body.input_width === "number" ? body.input_width : 1000);
      const h = inputs?.image?.height ?? (typeof body.input_height === "number" ? body.input_height : 1000);
      return Math.max(1, Math.ceil((w * scale * h * scale) / 1_000_000));
    }
    case "clip":
    case "model":
      return 1;
  }
}

/** Request values with the model's defaults filled in, as the price rows see them. */
function effective(model: ModelDef, body: Record<string, unknown>): Record<string, unknown> {
  return { resolution: model.constraints.default_resolution, ...body };
}

/** `inputs`: the files the request names, read and measured (references.ts); a price may depend on them. */
export function priceOf(model: ModelDef, body: Record<string, unknown>, inputs?: Inputs): Price {
  const values = effective(model, body);
  const row = model.pricing.find((r) => Object.entries(r.when ?? {}).every(([k, v]) => values[k] === v)) ?? model.pricing[model.pricing.length - 1];
  if (!row) return { price_cc: 0, currency: CURRENCY, breakdown: { variant: "free", units: 0, surcharge_cc: 0 } };
  const units = unitsOf(row, model, body, inputs);
  const surcharge = model.surcharges.filter((s) => values[s.field] === s.value).reduce((sum, s) => sum + s.amount_cc, 0);
  return {
    price_cc: Math.ceil(row.rate_cc * units) + surcharge,
    currency: CURRENCY,
    breakdown: { variant: row.variant, units, surcharge_cc: surcharge },
  };
}
