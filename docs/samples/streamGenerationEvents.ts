import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// Reconnects with Last-Event-ID, detects dead connections (no heartbeat), and on `reset`
// catches up the tracked generations through the batch status read.
const stream = hub.events({ types: ["video", "image"] });
for await (const event of stream) {
  if (event.event === "reset") {
    for (const record of event.records) console.log("caught up:", record.id, record.status);
    continue;
  }
  const { id, status, deleted } = event.data; // never the full record: re-read it when needed
  console.log(id, status, deleted);
  if (status === "DONE") {
    const { data: record } = await hub.GET("/v1/generations/{id}", { params: { path: { id } } });
    console.log(record.output_urls);
  }
}
// Store stream.lastEventId to resume later: hub.events({ lastEventId }).
console.log(stream.lastEventId);
