import { readFile } from "node:fs/promises";
import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

const bytes = await readFile("lighthouse.png");
// The ticket, then the PUT through this API (the ticket's proxy_path) instead of storage.
const { reference, bytesStored } = await hub.upload(bytes, { contentType: "image/png", via: "proxy" });
console.log(reference, bytesStored);
