import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// Item ids from the asset list, a folder id from the folder list.
const { data: assets } = await hub.GET("/v1/library/assets", { params: { query: { limit: 10 } } });
const { data: folders } = await hub.GET("/v1/library/folders");
const target = folders.data.at(-1);
if (assets.data.length > 0 && target) {
  const { status } = await hub.POST("/v1/library/move", {
    body: { item_ids: assets.data.map((a) => a.id), folder_id: target.id }, // folder_id null: to the root
  });
  console.log(status);
}
