import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// The whole thread (empty when there are no messages); reading marks it as read.
const { data: thread } = await hub.GET("/v1/support/messages");
for (const message of thread.data) console.log(message.from, message.text);
