import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// Change `name` and/or `position`; a name that exists answers 409 folder_name_taken.
const { status } = await hub.PATCH("/v1/library/folders/{id}", {
  params: { path: { id: "fld_01JD8XG5Z1S3U5W7Y9A2C4QR" } },
  body: { name: "Coastlines", position: 0 },
});
console.log(status); // the reply body is not shown in the seed
