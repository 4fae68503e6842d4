import { createHubClient, isFinal } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

const { data: submitted } = await hub.submit({ type: "image", model: "image-model-a", prompt: "A lighthouse at dusk" });

// Reconnects with Last-Event-ID, detects dead connections (no heartbeat), and on `reset`
// catches up the tracked generations through the batch status read. A stream starts at
// the current moment: once it is open, read the record once, in case it is already final.
const stream = hub.events({
  types: ["video", "image"],
  track: [submitted.id],
  onOpen: () =>
    void hub.GET("/v1/generations/{id}", { params: { path: { id: submitted.id } } }).then(
      ({ data }) => isFinal(data) && stream.close(),
      () => stream.close(),
    ),
});
for await (const event of stream) {
  if (event.event === "reset") {
    for (const record of event.records) console.log("caught up:", record.id, record.status);
    if (event.records.some((r) => r.id === submitted.id && isFinal(r))) break;
    continue;
  }
  const { id, status, deleted } = event.data; // never the full record: re-read it when needed
  console.log(id, status, deleted);
  if (id === submitted.id && (deleted || isFinal(event.data))) break;
}
const { data: record } = await hub.GET("/v1/generations/{id}", { params: { path: { id: submitted.id } } });
console.log(record.status, record.output_urls);
// Store stream.lastEventId to resume later: hub.events({ lastEventId }).
console.log(stream.lastEventId);
