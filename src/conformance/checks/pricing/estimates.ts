// Price estimates: priced like the submit (the bodies the server prices are the fact
// `priced`, cheapest first), creating and charging nothing, refused the same way (an
// unknown field, a model not in the catalog, a bound, promo_mode, the text type, a file the
// server cannot read), and open to an account without a paid plan.
import { moneyOf, sameMoney } from "../../kit/money.ts";
import { shown } from "../../kit/describe.ts";
import { randomToken } from "../../kit/ids.ts";
import { overBound } from "../../kit/bounds.ts";
import type { Check } from "../../facts/check.ts";
import { FACTS, type Priced } from "../../facts/learnt.ts";
import { errorCodeOf, said, type Exchange } from "../../target/exchange.ts";
import { type CheckContext } from "../../facts/check.ts";

/** A first guess at the smallest body of a model's type the submit accepts. */
export function minimalBody(model: Record<string, any>): Record<string, unknown> | undefined {
  switch (model.type) {
    case "video":
    case "image":
      return { type: model.type, model: model.id, prompt: "A conformance check: a plain grey square." };
    case "upscale":
      return undefined; // needs a readable image: priced from the file
    default:
      return undefined;
  }
}

/**
 * Prices the catalog's models: the bodies the server prices, cheapest first (the fact
 * `priced`). Valid bodies that none of the estimates priced are the server's fault (but a
 * quota refusal, or a route not offered now).
 */
async function priceModels(c: CheckContext): Promise<Priced[]> {
  const models = c.known("models");
  const candidates = (models ?? []).map((m) => ({ m, body: minimalBody(m) })).filter((x) => x.body).slice(0, 6);
  const priced: Priced[] = [];
  let refused: Exchange | undefined;
  for (const { m, body } of candidates) {
    const ex = await c.post("/v1/pricing/estimate", body, "PRICE-1");
    if (ex.status === 200 && Number.isInteger(ex.json?.price_cc)) {
      priced.push({ body: body!, price_cc: ex.json.price_cc, model: m });
      c.pass("PRICE-2", "the estimate takes a submit body as it is");
      c.expect(ex.json.model_id === m.id && ex.json.type === m.type, "PRICE-1", `the estimate names ${ex.json.type}/${ex.json.model_id} for a ${m.type}/${m.id} body`, ex);
    } else refused ??= ex;
  }
  priced.sort((a, b) => a.price_cc - b.price_cc);
  if (priced.length > 0) c.learn("priced", priced);
  else if (!models) c.notLearnt("priced", `${FACTS.models} is not known (${c.whyUnknown("models")})`);
  else if (!refused) c.notLearnt("priced", "the catalog has no video or image model to price with a minimal body");
  else if (refused.status === 429 || (refused.status === 503 && errorCodeOf(refused.json) === "service_unavailable")) c.notLearnt("priced", `the estimate answered ${said(refused)}`);
  else c.cannotLearn("priced", "PRICE-2", `none of ${candidates.length} minimal video or image bodies of the catalog was priced: the estimate answered ${said(refused)}`, refused);
  return priced;
}

export const pricing: Check = {
  name: "price estimates",
  rules: ["PRICE-1", "PRICE-2", "PRICE-4", "PRICE-5", "PRICE-6", "PRICE-7", "W-10", "W-9"],
  needs: { uses: ["models"] },
  provides: ["priced"],
  async run(c) {
    const before = await c.get("/v1/generations?limit=1", "PRICE-4");
    const money = await moneyOf(c, "PRICE-4");
    const cheapest = (await priceModels(c))[0];
    const models = c.known("models") ?? [];
    if (!cheapest) {
      c.skip(["PRICE-1", "PRICE-2", "PRICE-4", "PRICE-6", "PRICE-7", "W-10"], "no model of the catalog could be priced with a minimal video or image body");
    } else {
      // Nothing created, nothing charged.
      const after = await c.get("/v1/generations?limit=1", "PRICE-4");
      if (before.status === 200 && after.status === 200) {
        c.expect(before.json?.data?.[0]?.id === after.json?.data?.[0]?.id, "PRICE-4", "an estimate created a generation", after);
      }
      sameMoney(c, "PRICE-4", money, await moneyOf(c, "PRICE-4"), "estimates");

      // promo_mode cannot be priced in advance.
      const promo = await c.post("/v1/pricing/estimate", { ...cheapest.body, promo_mode: "queue" }, "PRICE-6");
      c.refusal(promo, "estimate_unavailable", "PRICE-6", "an estimate with promo_mode");

      // Refused like the submit: an unknown field, a model not in the catalog, a bound.
      const unknownField = await c.post("/v1/pricing/estimate", { ...cheapest.body, conformance_unknown_field: 1 }, "PRICE-7");
      c.target.deliberate(unknownField);
      if (c.refusal(unknownField, "invalid_request", "PRICE-7", "an estimate with an unknown field")) {
        const d = unknownField.json?.error?.details;
        c.expect(Array.isArray(d) && d.some((x: any) => x.field === "conformance_unknown_field" && x.reason === "unknown_field"), "PRICE-7", `details do not name the unknown field: ${JSON.stringify(d)}`, unknownField);
      }
      const noModel = await c.post("/v1/pricing/estimate", { ...cheapest.body, model: `conformance-no-such-model-${randomToken()}` }, "PRICE-7");
      c.expect(noModel.status === 400, "PRICE-7", `a model not in the catalog answered ${noModel.status} ${errorCodeOf(noModel.json) ?? ""}, not 400`, noModel);
      const over = overBound(String(cheapest.body.type));
      if (over) {
        const ex = await c.post("/v1/pricing/estimate", { ...cheapest.body, [over.field]: over.value }, "PRICE-7");
        c.target.deliberate(ex);
        if (c.refusal(ex, "invalid_request", "PRICE-7", `an estimate with ${over.field} out of bounds`)) {
          const d = ex.json?.error?.details;
          c.expect(Array.isArray(d) && d.some((x: any) => x.field === over.field && x.reason === "out_of_range"), "PRICE-7", `details do not name ${over.field} out_of_range: ${JSON.stringify(d)}`, ex);
        }
      }
    }
    // The type the API does not submit.
    const text = await c.post("/v1/pricing/estimate", { type: "text", model: models[0]?.id ?? "conformance-model", prompt: "hello" }, "W-10");
    c.refusal(text, "submit_unavailable", "PRICE-7", "an estimate of type text");
    sameMoney(c, "W-10", money, await moneyOf(c, "W-10"), "estimates and an estimate of type text", text);

    // A price that depends on a file the server cannot read is refused, not a number.
    const upscale = models.find((m) => m.type === "upscale");
    if (upscale) {
      const ex = await c.post("/v1/pricing/estimate", { type: "upscale", model: upscale.id, image_url: `https://conformance.invalid/missing-${randomToken()}.png`, scale: 2 }, "PRICE-5");
      c.expect(ex.status === 400, "PRICE-5", `an upscale estimate whose image cannot be read answered ${ex.status}${ex.status === 200 ? ` with price_cc ${shown(ex.json?.price_cc)}` : ""}, not 400`, ex);
    } else c.skip(["PRICE-5"], "no upscale model in the catalog (the price of an upscale depends on its image)");

    // Reading, the catalog and prices need no plan.
    const free = c.role("free");
    if (free) {
      for (const path of ["/v1/generations?limit=1", "/v1/models"]) {
        const ex = await c.get(path, "W-9", { key: free });
        c.expect(ex.status === 200, "W-9", `GET ${path} with a key without a paid plan answered ${ex.status} ${errorCodeOf(ex.json) ?? ""}`, ex);
      }
      if (cheapest) {
        const ex = await c.post("/v1/pricing/estimate", cheapest.body, "W-9", { key: free });
        c.expect(ex.status === 200, "W-9", `an estimate with a key without a paid plan answered ${ex.status} ${errorCodeOf(ex.json) ?? ""}`, ex);
      }
    } else c.skip(["W-9"], "reading without a paid plan not tried (no --key free=...)");
  },
};
