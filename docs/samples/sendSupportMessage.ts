import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// client_msg_id makes a retry safe: a replay returns the message already sent.
const { data: message } = await hub.POST("/v1/support/messages", {
  body: {
    text: "My upscale stops at 50%.",
    images: ["upl_01JD8XC7V2N4Q6S8W1Y3Z5GH"], // up to 3 upload references (not links)
    client_msg_id: crypto.randomUUID(),
  },
});
console.log(message.from, message.text);
