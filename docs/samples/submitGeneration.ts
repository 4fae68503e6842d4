import { createHubClient, HubApiError } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

try {
  // One Idempotency-Key per logical submit, kept on every retry: a replay answers the
  // first submit's record and charges nothing. Pass `idempotencyKey` to choose it.
  const { data: generation, status, idempotencyKey } = await hub.submit({
    type: "video",
    model: "video-model-a",
    prompt: "A lighthouse at dusk, waves breaking, slow dolly-in",
    duration: 5,
  });
  console.log(status, generation.id, generation.status, idempotencyKey); // 202, never 201

  // Follow it to a final status; FAILED is a record with error.reason, not an exception.
  const final = await hub.waitForGeneration(generation.id);
  if (final.status === "DONE") console.log(final.output_urls);
  else console.log("failed:", final.error?.reason);
} catch (error) {
  if (!(error instanceof HubApiError)) throw error;
  switch (error.code) {
    case "invalid_request":
      console.log(error.details); // each field at fault, with its reason
      break;
    case "payment_required":
    case "insufficient_credits":
      console.log("no paid plan or balance:", error.user_message);
      break;
    default:
      console.log(error.code, error.request_id);
  }
}
