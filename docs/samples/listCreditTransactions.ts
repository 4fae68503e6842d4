import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// Newest first; amount_cc is signed centi-credits (positive credits, negative debits).
for await (const row of hub.paginate("/v1/billing/transactions", { params: { query: { limit: 100 } } })) {
  console.log(row.amount_cc, row.generation_id, row.reason);
}
