import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// Not paged: at most `limit` articles; without `q`, the first ones in editorial order.
const { data: results } = await hub.GET("/v1/knowledge", { params: { query: { q: "idempotency", limit: 10 } } });
for (const article of results.data) console.log(article.slug, article.lang);
