import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// Newest first; the paginator passes `next_cursor` back unchanged until it is null.
for await (const generation of hub.paginate("/v1/generations", { params: { query: { limit: 100 } } })) {
  console.log(generation.id, generation.type, generation.status);
}
