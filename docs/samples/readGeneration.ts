import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// An id from your submit, an event or a list: here the account's newest generation.
const { data: newest } = await hub.GET("/v1/generations", { params: { query: { limit: 1 } } });
for (const { id } of newest.data) {
  const { data: generation } = await hub.GET("/v1/generations/{id}", { params: { path: { id } } });
  if (generation.status === "FAILED") console.log("failed:", generation.error?.reason); // a record, not an error
  else console.log(generation.status, generation.output_urls);
}
