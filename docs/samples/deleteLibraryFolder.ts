import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// A folder id from the folder list (or from creating one).
const { data: folders } = await hub.GET("/v1/library/folders");
const folder = folders.data.at(-1);
if (folder) {
  // Deletes only the folder: its contents return to the root.
  const { status } = await hub.DELETE("/v1/library/folders/{id}", { params: { path: { id: folder.id } } });
  console.log(folder.name, status);
}
