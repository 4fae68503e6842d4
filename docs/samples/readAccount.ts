import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

const { data: account } = await hub.GET("/v1/me");
console.log(account.plan?.id, account.credits?.main_cc, account.limits?.submissions);
