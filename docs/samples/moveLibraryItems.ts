import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// folder_id null moves the items to the root.
const { status } = await hub.POST("/v1/library/move", {
  body: { item_ids: ["upl_01JD8XC7V2N4Q6S8W1Y3Z5GH"], folder_id: "fld_01JD8XG5Z1S3U5W7Y9A2C4QR" },
});
console.log(status);
