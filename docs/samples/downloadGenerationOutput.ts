import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

const { data: generation } = await hub.GET("/v1/generations/{id}", { params: { path: { id: "gen_01JD8X9R3N7PQ2T4V6W8Y1Z3CD" } } });
// Use each link as given (never assemble one); the client adds the owner's Authorization.
for (const link of generation.output_urls ?? []) {
  const file = await hub.fetch(new Request(link));
  console.log(link, file.status, file.headers.get("content-type"), (await file.arrayBuffer()).byteLength);
}
