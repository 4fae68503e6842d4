import { createHubClient } from "@generation-hub/api";

// Site pages only: this route takes the site's session cookie; API keys and OAuth tokens
// answer 403 insufficient_scope.
const hub = createHubClient({ baseUrl: location.origin, credentials: "include" });

// Answers the payment_id (with parameters for the payment widget).
const { data } = await hub.POST("/v1/subscription/card-change");
console.log(data.payment_id);
