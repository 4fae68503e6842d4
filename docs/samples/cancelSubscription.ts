import { createHubClient } from "@generation-hub/api";

// Site pages only: this route takes the site's session cookie; API keys and OAuth tokens
// answer 403 insufficient_scope.
const hub = createHubClient({ baseUrl: location.origin, credentials: "include" });

const { data } = await hub.POST("/v1/subscription/cancel", { body: { reason_text: "Paused for the summer" } });
console.log("plan ends:", data.plan_ends_at, "already extended by a newer subscription:", data.superseded);
