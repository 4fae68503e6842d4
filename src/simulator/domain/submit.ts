// Everything a submit and an estimate refuse before anything is created or charged:
// the type the API does not submit (503), the contract's schema (400 with details from
// the contract's own validator), then the model-specific reasons of the seed's reason
// table, checked against the catalog entry of the model this key can launch.
import { validateChosen, type Detail } from "../../contract/validator.ts";
import { refuse, type Refusal } from "./refusal.ts";
import { DEFAULT_MODEL, PUBLISHED_TYPES, UNSUBMITTABLE_TYPES, type ModelDef } from "../state/fixtures/catalog.ts";
import { quickChosen } from "./quick-validators.ts";
import type { Account } from "../state/accounts.ts";

export interface AcceptedSubmit {
  type: string;
  model: ModelDef;
  body: Record<string, unknown>;
}

/** Can this account's keys launch the model: enabled, of a submitted type, early access only with access. */
export function canLaunch(m: ModelDef, account: Account): boolean {
  return m.enabled && !(UNSUBMITTABLE_TYPES as readonly string[]).includes(m.type) && (!m.early_access || account.early_access);
}

export function launchable(models: readonly ModelDef[], account: Account): ModelDef[] {
  return models.filter((m) => canLaunch(m, account));
}

export function checkSubmit(body: unknown, models: readonly ModelDef[], account: Account): AcceptedSubmit | Refusal {
  const type = body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>).type : undefined;
  if (typeof type === "string" && (UNSUBMITTABLE_TYPES as readonly string[]).includes(type)) {
    return refuse("submit_unavailable", { message: `Generation type ${type} is not submitted through this API; nothing was charged.` });
  }
  // The quick validator answers valid bodies; the branch-aware one names the faults of
  // an invalid body.
  if (!quickChosen("SubmitRequest", body)) {
    return refuse("invalid_request", { details: validateChosen("SubmitRequest", body) });
  }
  const request = body as Record<string, unknown>;
  const t = type as string;
  if (!(PUBLISHED_TYPES as readonly string[]).includes(t)) {
    return refuse("invalid_request", { details: [{ field: "type", reason: "not_allowed", message: `type ${t} is not a published generation type` }] });
  }
  const modelId = typeof request.model === "string" ? request.model : DEFAULT_MODEL[t];
  let found: ModelDef | undefined;
  for (const m of models) if (m.id === modelId) found = m;
  if (!found || !canLaunch(found, account)) {
    return refuse("invalid_request", { details: [{ field: "model", reason: "unknown_model", message: `model ${modelId} is not in GET /v1/models for this key` }] });
  }
  if (found.type !== t) {
    return refuse("invalid_request", { details: [{ field: "model", reason: "unsupported_model", message: `model ${found.id} is not served through type ${t}` }] });
  }
  const details = modelDetails(found, request);
  if (details.length > 0) return refuse("invalid_request", { details });
  return { type: t, model: found, body: request };
}

// A module function, not a closure per call (the dev runner names every closure it makes).
function add(out: Detail[], field: string, reason: string, message: string): void {
  out.push({ field, reason, message });
}

function modelDetails(model: ModelDef, body: Record<string, unknown>): Detail[] {
  const c = model.constraints;
  const out: Detail[] = [];
  if (typeof body.prompt === "string" && body.prompt.length > model.prompt_limit) {
    add(out, "prompt", "prompt_too_long", `prompt is longer than the model's limit of ${model.prompt_limit} characters`);
  }
  if (typeof body.duration === "number" && c.durations && !c.durations.includes(body.duration)) {
    add(out, "duration", "unsupported_duration", `duration must be one of ${c.durations.join(", ")}`);
  }
  if (typeof body.resolution === "string" && c.resolutions && !c.resolutions.includes(body.resolution)) {
    add(out, "resolution", "unsupported_resolution", `resolution must be one of ${c.resolutions.join(", ")}`);
  }
  if (typeof body.aspect === "string" && c.aspects && !c.aspects.includes(body.aspect)) {
    add(out, "aspect", "unsupported_aspect", `aspect must be one of ${c.aspects.join(", ")}`);
  }
  if (typeof body.n_variants === "number" && body.n_variants > (c.max_variants ?? 1)) {
    add(out, "n_variants", "unsupported_n_variants", `the model renders at most ${c.max_variants ?? 1} outputs`);
  }
  if (typeof body.quality === "string" && !(c.qualities ?? []).includes(body.quality)) {
    add(out, "quality", "unsupported_quality", c.qualities ? `quality must be one of ${c.qualities.join(", ")}` : "the model has no quality axis");
  }
  if (body.background === "transparent" && !c.transparency) {
    add(out, "background", "transparency_not_supported", "the model cannot render a transparent background");
  }
  if (typeof body.scale === "number" && c.scales && !c.scales.includes(body.scale)) {
    add(out, "scale", "unsupported_scale", `scale must be one of ${c.scales.join(", ")}`);
  }
  const images = Array.isArray(body.image_urls) ? body.image_urls.length : 0;
  if (c.min_images && images < c.min_images) {
    add(out, "image_urls", "image_required", `the model needs at least ${c.min_images} reference image(s)`);
  }
  if (images > (c.max_images ?? 0)) {
    add(out, "image_urls", "too_many_images", `the model accepts at most ${c.max_images ?? 0} reference image(s)`);
  }
  if (typeof body.prompt_expansion === "string" && !model.prompt_expansion_modes.includes(body.prompt_expansion)) {
    add(out, "prompt_expansion", "not_available", `prompt_expansion must be one of ${model.prompt_expansion_modes.join(", ")}`);
  }
  if (body.seed !== undefined && !model.has_seed) {
    add(out, "seed", "not_available", "the model does not publish has_seed");
  }
  return out;
}
