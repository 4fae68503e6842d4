import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// All folders at once (next_cursor is always null).
const { data: folders } = await hub.GET("/v1/library/folders");
for (const folder of folders.data) console.log(folder.id, folder.name, folder.position);
