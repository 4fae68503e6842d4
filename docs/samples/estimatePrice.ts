import { createHubClient, HubApiError } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

try {
  // The same body as a submit; creates and charges nothing.
  const { data: estimate } = await hub.POST("/v1/pricing/estimate", {
    body: { type: "video", model: "video-model-a", prompt: "A lighthouse at dusk", duration: 5 },
  });
  console.log(estimate.price_cc, estimate.currency, estimate.breakdown.variant); // a ceiling, in centi-credits
} catch (error) {
  if (error instanceof HubApiError && error.code === "estimate_unavailable") console.log("promo_mode requests are not priced in advance");
  else throw error;
}
