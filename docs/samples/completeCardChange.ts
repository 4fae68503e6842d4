import { createHubClient } from "@generation-hub/api";

// Site pages only: this route takes the site's session cookie; API keys and OAuth tokens
// answer 403 insufficient_scope.
const hub = createHubClient({ baseUrl: location.origin, credentials: "include" });

const { data } = await hub.POST("/v1/subscription/card-change/complete", { body: { payment_id: "pay_01JD8XK1C7V9X2Z4B6D8F1WX" } });
console.log(data.card, data.next_pay_date, data.resumed, data.charge);
