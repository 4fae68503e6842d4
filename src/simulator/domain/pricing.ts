// One price function: it answers POST /v1/pricing/estimate and it is what a submit
// checks against the balance and debits. Free quotas and promo mode are applied after
// it (see charges.ts) and can only lower the amount.
import { CURRENCY, type ModelDef, type PriceRow } from "../state/fixtures/catalog.ts";
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

/** A request value with the model's defaults filled in, as the price rows see it. */
function valueOf(model: ModelDef, body: Record<string, unknown>, field: string): unknown {
  return field === "resolution" && !Object.hasOwn(body, field) ? model.constraints.default_resolution : body[field];
}

function rowApplies(row: PriceRow, model: ModelDef, body: Record<string, unknown>): boolean {
  const when = row.when;
  if (when) for (const k in when) if (valueOf(model, body, k) !== when[k]) return false;
  return true;
}

/** `inputs`: the files the request names, read and measured (references.ts); a price may depend on them. */
export function priceOf(model: ModelDef, body: Record<string, unknown>, inputs?: Inputs): Price {
  let row: PriceRow | undefined;
  for (const r of model.pricing) {
    if (rowApplies(r, model, body)) {
      row = r;
      break;
    }
  }
  row ??= model.pricing[model.pricing.length - 1];
  if (!row) return { price_cc: 0, currency: CURRENCY, breakdown: { variant: "free", units: 0, surcharge_cc: 0 } };
  const units = unitsOf(row, model, body, inputs);
  let surcharge = 0;
  for (const s of model.surcharges) if (valueOf(model, body, s.field) === s.value) surcharge += s.amount_cc;
  return {
    price_cc: Math.ceil(row.rate_cc * units) + surcharge,
    currency: CURRENCY,
    breakdown: { variant: row.variant, units, surcharge_cc: surcharge },
  };
}
