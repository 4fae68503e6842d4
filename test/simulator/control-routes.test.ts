// The control interface is routed by one table (`METHOD path` after /_sim/), as /v1 is by
// operationId: every route of it answers, no module claims a route another holds, and a
// path of the table asked with another method says which methods it takes.
import { describe, expect, it } from "vitest";
import { coreControl } from "../../src/simulator/handlers/control/core.ts";
import { faultsControl } from "../../src/simulator/handlers/control/faults.ts";
import { inspectorControl } from "../../src/simulator/handlers/control/inspector/index.ts";
import { libraryControl } from "../../src/simulator/handlers/control/library.ts";
import { oauthControl } from "../../src/simulator/handlers/control/oauth.ts";
import { scenarioControl } from "../../src/simulator/handlers/control/scenarios.ts";
import { sessionsControl } from "../../src/simulator/handlers/control/sessions.ts";
import { subscriptionControl } from "../../src/simulator/handlers/control/subscriptions.ts";
import { controlHandlers } from "../../src/simulator/handlers/index.ts";
import { Hub } from "../../src/simulator/index.ts";

const hub = new Hub({ clockSpeed: 0 });

function ask(method: string, path: string, body?: unknown) {
  const answer = hub.handle({
    method,
    url: path,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : new TextEncoder().encode(JSON.stringify(body)),
    baseUrl: "http://127.0.0.1:4010",
  });
  // A stream (the scenario export written a slice at a time, the inspector's push channel)
  // was routed to its handler; the inspector's page, script and style are not JSON.
  if (answer.kind === "stream") return { status: answer.status, headers: answer.headers, json: {} };
  if (answer.kind !== "body") throw new Error(`${method} ${path} answered a ${answer.kind}`);
  const json = (answer.headers["content-type"] ?? "").includes("json") ? JSON.parse(answer.body as string) : {};
  return { status: answer.status, headers: answer.headers, json };
}

describe("the control table", () => {
  it("holds every module's routes, none claimed twice", () => {
    const modules = [coreControl, scenarioControl, faultsControl, libraryControl, sessionsControl, subscriptionControl, oauthControl, inspectorControl];
    const all = modules.flatMap((m) => Object.keys(m));
    expect(all.length).toBeGreaterThan(40);
    expect(new Set(all).size).toBe(all.length);
    expect(Object.keys(controlHandlers).sort()).toEqual([...all].sort());
  });

  it("routes every entry to its handler: none answers that there is no such control route", () => {
    const routes = Object.keys(controlHandlers);
    expect(routes.length).toBeGreaterThan(40);
    for (const route of routes) {
      const [method, path] = [route.slice(0, route.indexOf(" ")), route.slice(route.indexOf(" ") + 1)];
      hub.reset();
      const r = ask(method, `/_sim/${path.replace(/\{\w+\}/g, "nothing_here")}`, method === "GET" ? undefined : {});
      expect(r.json.error?.message ?? "", route).not.toMatch(/^No control route/);
    }
  });

  it("a path of the table with another method answers 404 naming the methods it takes (and Allow)", () => {
    const r = ask("PUT", "/_sim/keys/ghk_demo_full", {});
    expect(r.status).toBe(404);
    expect(r.json.error.message).toBe("No control route PUT /_sim/keys/ghk_demo_full: this path takes PATCH.");
    expect(r.headers.allow).toBe("PATCH");
    const none = ask("GET", "/_sim/nowhere/at/all");
    expect([none.status, none.json.error.message]).toEqual([404, "No control route GET /_sim/nowhere/at/all."]);
  });
});
