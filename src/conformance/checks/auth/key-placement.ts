// Where a key is accepted: the Authorization header only (never the query), and no
// cross-origin preflight opens it to other sites.
import { errorCodeOf } from "../../target/exchange.ts";
import { type Check } from "../../facts/check.ts";

export const keyPlacement: Check = {
  name: "where a key is accepted",
  rules: ["AUTH-4"],
  async run(c) {
    for (const param of ["api_key", "access_token"]) {
      const ex = await c.get(`/v1/whoami?${param}=${encodeURIComponent(c.apiKey)}`, "AUTH-4", { key: null });
      c.target.deliberate(ex);
      c.expect(ex.status === 401 && errorCodeOf(ex.json) === "unauthorized", "AUTH-4", `a key in the query (${param}) was not refused as no credential: ${ex.status} ${errorCodeOf(ex.json) ?? ""}`, ex);
    }
    const origin = "https://conformance.invalid";
    const pre = await c.request({
      method: "OPTIONS",
      path: "/v1/whoami",
      key: null,
      rule: "AUTH-4",
      bare: true,
      headers: { origin, "access-control-request-method": "GET", "access-control-request-headers": "authorization" },
    });
    const allowOrigin = pre.headers.get("access-control-allow-origin");
    const allowHeaders = (pre.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(",").map((h) => h.trim());
    const open = (allowOrigin === origin || allowOrigin === "*") && allowHeaders.includes("authorization");
    c.expect(!open, "AUTH-4", `a cross-origin preflight from ${origin} is allowed to send Authorization (Access-Control-Allow-Origin ${allowOrigin}, -Headers ${allowHeaders.join(", ")})`, pre);
  },
};
