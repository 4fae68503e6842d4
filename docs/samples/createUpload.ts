import { readFile } from "node:fs/promises";
import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

const bytes = await readFile("lighthouse.png");
// Ticket (kind, content type, exact length), then one PUT to the signed storage address
// with exactly the ticket's headers. Send `reference` in image_urls or support images.
const { reference, ticket } = await hub.upload(bytes, { contentType: "image/png" });
console.log(reference, ticket.expires_at); // expires_at: the signature's expiry, not the file's

// The ticket alone, without the PUT:
const { data: only } = await hub.POST("/v1/uploads", { body: { kind: "image", content_type: "image/png", content_length: bytes.byteLength } });
console.log(only.url, only.proxy_path, only.headers);
