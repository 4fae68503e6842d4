import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// Only the models this key can launch; `type` narrows the list.
const { data: models, response } = await hub.GET("/v1/models", { params: { query: { type: "video" } } });
for (const model of models?.data ?? []) console.log(model.id, model.prompt_limit, model.has_seed);

// Revalidate later with the weak ETag: 304 (data undefined) when nothing changed.
const etag = response.headers.get("etag");
if (etag) {
  const again = await hub.GET("/v1/models", { params: { query: { type: "video" }, header: { "If-None-Match": etag } } });
  console.log(again.status === 304 ? "catalog unchanged" : "catalog changed");
}
