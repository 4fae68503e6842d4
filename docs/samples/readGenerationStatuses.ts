import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// The ids you follow (from your submits); here the account's two newest generations.
const { data: recent } = await hub.GET("/v1/generations", { params: { query: { limit: 2 } } });
const ids = recent.data.map((g) => g.id);

// Up to 50 ids per call; `statuses()` splits longer lists into calls of 50.
const { data: batch } = await hub.POST("/v1/generations/status", { body: { ids } });
for (const generation of batch.data) console.log(generation.id, generation.status);

const records = await hub.statuses(ids);
console.log(records.length);
