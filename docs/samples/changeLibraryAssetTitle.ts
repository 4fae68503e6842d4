import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// The seed shows neither the request body (nor the title field's name) nor the reply:
// the body is passed through as the caller's server documents it.
export async function changeLibraryAssetTitle(id: string, body: unknown): Promise<number> {
  const { status } = await hub.PATCH("/v1/library/assets/{id}", { params: { path: { id } }, body });
  return status;
}
