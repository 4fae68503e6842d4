import { createHubClient, type BillingSubscription } from "@generation-hub/api";

const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: process.env.HUB_KEY! });

// The record, or an object with `subscription`, or null: accept all three.
const { data } = await hub.GET("/v1/billing/subscription");
const subscription: BillingSubscription | null | undefined =
  data && "subscription" in data && Object.keys(data).length === 1 ? (data.subscription as BillingSubscription | null) : (data as BillingSubscription | null);
console.log(subscription ? `${subscription.status}, next payment ${String(subscription.next_payment_at)}` : "no live subscription");
