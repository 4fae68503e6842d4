import { createHubClient } from "@generation-hub/api";

// Site pages only: this route takes the site's session cookie; API keys and OAuth tokens
// answer 403 insufficient_scope.
const hub = createHubClient({ baseUrl: location.origin, credentials: "include" });

// The payment_id of the card change this page started (POST /v1/subscription/card-change),
// once the payment widget has checked the new card.
const { data: started } = await hub.POST("/v1/subscription/card-change");
const { data } = await hub.POST("/v1/subscription/card-change/complete", { body: { payment_id: started.payment_id } });
console.log(data.card, data.next_pay_date, data.resumed, data.charge);
