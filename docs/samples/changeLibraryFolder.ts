import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// A folder id from the folder list (or from creating one).
const { data: folders } = await hub.GET("/v1/library/folders");
const [folder] = folders.data;
if (folder) {
  // Change `name` and/or `position`; a name that exists answers 409 folder_name_taken.
  const { status } = await hub.PATCH("/v1/library/folders/{id}", {
    params: { path: { id: folder.id } },
    body: { name: `${folder.name} (archive)`, position: 0 },
  });
  console.log(status); // the reply body is not shown in the seed
}
