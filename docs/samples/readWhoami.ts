import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

const { data: whoami } = await hub.GET("/v1/whoami");
console.log(whoami.user_id, whoami.channel, whoami.key_id, whoami.scopes);
