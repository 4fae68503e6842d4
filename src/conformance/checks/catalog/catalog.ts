// The model catalog (weak ETag, 304, `type` narrows) and knowledge articles (capped, not
// paged, editorial order, `not_found`).
import { randomToken } from "../../kit/ids.ts";
import { type Check } from "../../facts/check.ts";

export const models: Check = {
  name: "model catalog",
  rules: ["CAT-4"],
  async run(c) {
    const first = await c.get("/v1/models", "CAT-4");
    if (first.status !== 200) return;
    const etag = first.headers.get("etag");
    if (!c.expect(etag !== null, "CAT-4", "GET /v1/models sent no ETag", first)) return;
    const again = await c.get("/v1/models", "CAT-4", { headers: { "if-none-match": etag! } });
    c.expect(again.status === 304, "CAT-4", `If-None-Match with the current ETag answered ${again.status}, not 304`, again);
    c.expect(again.status !== 304 || again.text.length === 0, "CAT-4", "a 304 with a body", again);
    const stale = await c.get("/v1/models", "CAT-4", { headers: { "if-none-match": 'W/"conformance-stale"' } });
    c.expect(stale.status === 200, "CAT-4", `If-None-Match with another ETag answered ${stale.status}, not 200`, stale);
    const data: Record<string, any>[] = Array.isArray(first.json?.data) ? first.json.data : [];
    const type = data.find((m) => typeof m.type === "string")?.type;
    if (type) {
      const narrowed = await c.get(`/v1/models?type=${encodeURIComponent(type)}`, "CAT-4");
      if (narrowed.status === 200 && Array.isArray(narrowed.json?.data)) {
        const others = narrowed.json.data.filter((m: any) => m.type !== type);
        c.expect(others.length === 0 && narrowed.json.data.length > 0, "CAT-4", `?type=${type} answered ${narrowed.json.data.length} models, ${others.length} of another type`, narrowed);
        c.expect(narrowed.json.data.length === data.filter((m) => m.type === type).length, "CAT-4", `?type=${type} answered ${narrowed.json.data.length} models; the full list has ${data.filter((m) => m.type === type).length} of that type`, narrowed);
      } else c.fail("CAT-4", `?type=${type} answered ${narrowed.status}`, narrowed);
    }
  },
};

export const knowledge: Check = {
  name: "knowledge articles",
  rules: ["CAT-5", "CAT-3"],
  async run(c) {
    const five = await c.get("/v1/knowledge?limit=5", "CAT-5");
    if (c.unavailable(five, ["CAT-5", "CAT-3"]) || five.status !== 200 || !Array.isArray(five.json?.data)) return;
    c.expect(five.json.data.length <= 5, "CAT-5", `limit=5 answered ${five.json.data.length} articles`, five);
    c.expect(five.json.next_cursor === null, "CAT-5", `next_cursor is ${JSON.stringify(five.json.next_cursor)}; knowledge is capped, not paged`, five);
    const two = await c.get("/v1/knowledge?limit=2", "CAT-5");
    if (two.status === 200 && Array.isArray(two.json?.data)) {
      const a = two.json.data.map((x: any) => x.slug).join();
      const b = five.json.data.slice(0, two.json.data.length).map((x: any) => x.slug).join();
      c.expect(a === b && two.json.data.length === Math.min(2, five.json.data.length), "CAT-5", `without q the first 2 articles [${a}] are not the first of the first 5 [${b}] (editorial order)`, two);
    }
    const article = five.json.data.find((x: any) => typeof x.slug === "string");
    if (article) {
      const word = String(article.title ?? "").split(/\s+/).find((w: string) => w.length >= 4);
      if (word) {
        const found = await c.get(`/v1/knowledge?q=${encodeURIComponent(word)}&limit=100`, "CAT-5");
        if (found.status === 200 && Array.isArray(found.json?.data)) {
          c.expect(found.json.data.some((x: any) => x.slug === article.slug), "CAT-5", `q=${word} (a word of the title of ${article.slug}) does not find it`, found);
        }
      }
      const one = await c.get(`/v1/knowledge/${encodeURIComponent(article.slug)}`, "CAT-3");
      c.expect(one.status === 200 && one.json?.slug === article.slug, "CAT-3", `the article ${article.slug} does not read back by its slug: ${one.status}`, one);
      if (one.status === 200) c.expect(typeof one.json?.lang === "string", "CAT-3", `the article ${article.slug} does not name its language in lang`, one);
    } else c.skip(["CAT-3"], "no knowledge article to read");
    const none = await c.get(`/v1/knowledge/conformance-no-such-article-${randomToken()}`, "CAT-5");
    c.refusal(none, "not_found", "CAT-5", "an unknown slug");
  },
};
