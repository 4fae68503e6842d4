import { createHubClient } from "@generation-hub/api";

// Site pages only: this route takes the site's session cookie; API keys and OAuth tokens
// answer 403 insufficient_scope.
const hub = createHubClient({ baseUrl: location.origin, credentials: "include" });

const { data } = await hub.POST("/v1/subscription/resume");
console.log("next payment:", data.next_pay_date);
