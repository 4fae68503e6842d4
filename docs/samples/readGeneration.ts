import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

const { data: generation } = await hub.GET("/v1/generations/{id}", { params: { path: { id: "gen_01JD8X4K2M9QF7T3V5W6Y8Z0AB" } } });
if (generation.status === "FAILED") console.log("failed:", generation.error?.reason); // a record, not an error
else console.log(generation.status, generation.output_urls);
