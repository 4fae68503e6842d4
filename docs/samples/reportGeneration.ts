import { createHubClient, HubApiError } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// An id from your submit, an event or a list: here the account's newest generation.
const { data: newest } = await hub.GET("/v1/generations", { params: { query: { limit: 1 } } });
for (const { id } of newest.data) {
  try {
    // A replay with the same client_msg_id returns the same report.
    const { data: report } = await hub.POST("/v1/generations/{id}/report", {
      params: { path: { id } },
      body: { text: "The video stops after two seconds.", reason: "failure", client_msg_id: crypto.randomUUID() },
    });
    console.log(report.support_request_id, report.message_id);
  } catch (error) {
    if (error instanceof HubApiError && error.code === "generation_already_settled") console.log("nothing left to settle");
    else throw error;
  }
}
