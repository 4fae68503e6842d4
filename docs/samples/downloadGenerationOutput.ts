import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// A DONE generation of the account (here the newest of the list) carries output_urls.
for await (const generation of hub.paginate("/v1/generations", { params: { query: { limit: 20 } } })) {
  if (generation.status !== "DONE") continue;
  // Use each link as given (never assemble one); the client adds the owner's Authorization.
  for (const link of generation.output_urls ?? []) {
    const file = await hub.fetch(new Request(link));
    console.log(link, file.status, file.headers.get("content-type"), (await file.arrayBuffer()).byteLength);
  }
  break;
}
