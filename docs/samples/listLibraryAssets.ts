import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

for await (const asset of hub.paginate("/v1/library/assets", { params: { query: { limit: 50 } } })) {
  console.log(asset.id, asset.kind, asset.folder_id, asset.expires_at);
}
