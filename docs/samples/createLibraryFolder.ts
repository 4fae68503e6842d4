import { createHubClient, HubApiError } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

try {
  // The reply body is not shown in the seed; read the folder list for its id.
  const { status } = await hub.POST("/v1/library/folders", { body: { name: "Lighthouses" } });
  console.log(status);
} catch (error) {
  if (error instanceof HubApiError && (error.code === "folder_name_taken" || error.code === "folder_limit_reached")) console.log(error.code);
  else throw error;
}
