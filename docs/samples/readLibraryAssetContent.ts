import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

const page = await hub.GET("/v1/library/assets", { params: { query: { limit: 1 } } });
// The asset's content link, used as given.
for (const link of page.data.data[0]?.output_urls ?? []) {
  const file = await hub.fetch(new Request(link));
  console.log(file.status, file.headers.get("content-type"));
}
