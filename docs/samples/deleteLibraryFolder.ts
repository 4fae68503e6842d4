import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// Deletes only the folder: its contents return to the root.
const { status } = await hub.DELETE("/v1/library/folders/{id}", { params: { path: { id: "fld_01JD8XG5Z1S3U5W7Y9A2C4QR" } } });
console.log(status);
