import { readFile } from "node:fs/promises";
import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// Images are upload references (not links): upload the screenshot first.
const { reference } = await hub.upload(await readFile("lighthouse.png"), { contentType: "image/png" });
// client_msg_id makes a retry safe: a replay returns the message already sent.
const { data: message } = await hub.POST("/v1/support/messages", {
  body: {
    text: "My upscale stops at 50%.",
    images: [reference], // up to 3
    client_msg_id: crypto.randomUUID(),
  },
});
console.log(message.from, message.text);
