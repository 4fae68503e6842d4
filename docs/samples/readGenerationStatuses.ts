import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// Up to 50 ids per call; `statuses()` splits longer lists into calls of 50.
const ids = ["gen_01JD8X4K2M9QF7T3V5W6Y8Z0AB", "gen_01JD8X9R3N7PQ2T4V6W8Y1Z3CD"];
const { data: batch } = await hub.POST("/v1/generations/status", { body: { ids } });
for (const generation of batch.data) console.log(generation.id, generation.status);

const records = await hub.statuses(ids);
console.log(records.length);
