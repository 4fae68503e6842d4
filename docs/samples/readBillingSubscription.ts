import { createHubClient } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// The record, or an object with `subscription`, or null: accept all three.
const { data } = await hub.GET("/v1/billing/subscription");
const subscription = data !== null && "subscription" in data ? data.subscription : data;
console.log(subscription ? `${subscription.status}, next payment ${subscription.next_payment_at}` : "no live subscription");
