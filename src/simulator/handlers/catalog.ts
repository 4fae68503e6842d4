// Catalog routes: the model list (weak ETag, 304 on If-None-Match, cacheable by
// validation: `private, max-age=0, must-revalidate`) and the knowledge articles.
import { json, headerOf, baseHeaders, REVALIDATE, type Handler } from "../pipeline/context.ts";
import { refuse } from "../domain/refusal.ts";
import { CURRENCY, type ModelDef } from "../state/fixtures/catalog.ts";
import { readLimit } from "../pipeline/paging.ts";
import { launchable } from "../domain/submit.ts";
import { fnv } from "../state/util.ts";
import { isRefusal } from "../pipeline/context.ts";

export function modelRecord(m: ModelDef): Record<string, unknown> {
  return {
    id: m.id,
    type: m.type,
    name: m.name,
    constraints: m.constraints,
    pricing: {
      currency: CURRENCY,
      variants: m.pricing.map((r) => ({ variant: r.variant, unit: r.unit, rate_cc: r.rate_cc, ...(r.when ? { applies_when: r.when } : {}) })),
      surcharges: m.surcharges.map((s) => ({ field: s.field, value: s.value, amount_cc: s.amount_cc })),
    },
    prompt_limit: m.prompt_limit,
    prompt_expansion_modes: m.prompt_expansion_modes,
    default_prompt_expansion: m.default_prompt_expansion,
    has_seed: m.has_seed,
    early_access: m.early_access,
  };
}

/** Does `If-None-Match` name this entity tag (weak comparison, lists and `*`)? */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = etag.replace(/^W\//, "");
  return ifNoneMatch.split(",").some((t) => {
    const v = t.trim();
    return v === "*" || v.replace(/^W\//, "") === bare;
  });
}

const listModels: Handler = (ctx) => {
  const type = ctx.query.get("type");
  const models = launchable(ctx.hub.state.models, ctx.account!).filter((m) => type === null || m.type === type);
  const text = JSON.stringify({ data: models.map(modelRecord), next_cursor: null });
  const etag = `W/"${fnv(text)}${text.length.toString(36)}"`;
  const extra = { etag, "cache-control": REVALIDATE };
  if (matches(headerOf(ctx, "if-none-match"), etag)) {
    return { kind: "body", status: 304, headers: { ...baseHeaders(ctx), ...extra } };
  }
  const answer = json(ctx, 200, null, extra);
  answer.body = text;
  return answer;
};

const searchKnowledge: Handler = (ctx) => {
  const limit = readLimit(ctx.query);
  if (isRefusal(limit)) return limit;
  const q = ctx.query.get("q")?.trim().toLowerCase();
  const found = ctx.hub.state.articles
    .filter((a) => a.public && (!q || a.title.toLowerCase().includes(q) || a.summary.toLowerCase().includes(q)))
    .slice(0, limit)
    .map((a) => ({ slug: a.slug, lang: a.lang, title: a.title, summary: a.summary }));
  return json(ctx, 200, { data: found, next_cursor: null });
};

const readKnowledgeArticle: Handler = (ctx) => {
  const article = ctx.hub.state.articles.find((a) => a.public && a.slug === ctx.params.slug);
  if (!article) return refuse("not_found");
  return json(ctx, 200, { slug: article.slug, lang: article.lang, title: article.title, summary: article.summary, body: article.body });
};

export const catalogHandlers = { listModels, searchKnowledge, readKnowledgeArticle };
