// Failures of every kind answer the envelope, with no stack trace or framework message:
// the refusals a framework answers by itself, before any route of the API, are provoked
// on every route so that the observations every answer gets (the envelope, its request
// id, its headers, no trace: EP-1, W-5, ENV-6, EP-2, W-13) meet them.
// - A method the path does not take, on every path of the contract: GET where the path
//   has none (with a key that may read it), otherwise a write method without a credential
//   (a method the contract does not show is never sent with one: the server may have it).
// - A path no route has, under every resource of `/v1`: 404 `not_found`.
// - A body that is not JSON, on every route that takes a JSON body (a key of the route's
//   scope): refused, never served (W-3), never a crash.
import { deref, errorCodes, matchOperation, operations, type JsonObject, type Operation } from "../../../contract/index.ts";
import { planFor } from "../../kit/generate/plans.ts";
import { keyFor } from "../../kit/credentials.ts";
import { harmless, sessionOnlyOperations } from "../../kit/routes.ts";
import { randomToken } from "../../kit/ids.ts";
import { knownOf, KNOWN_FACTS } from "../../kit/known.ts";
import { errorCodeOf, operationLabel, said } from "../../target/exchange.ts";
import { type Check } from "../../facts/check.ts";

const METHODS = ["GET", "PUT", "PATCH", "DELETE", "POST"] as const;

/** Every path of `/v1` once, with the operations it has. */
function paths(): Map<string, Operation[]> {
  const out = new Map<string, Operation[]>();
  for (const op of operations()) if (op.path.startsWith("/v1/")) out.set(op.path, [...(out.get(op.path) ?? []), op]);
  return out;
}

function takesJson(op: Operation): boolean {
  const body = op.op.requestBody ? deref<JsonObject>(op.op.requestBody as JsonObject) : undefined;
  return Boolean((body?.content as JsonObject | undefined)?.["application/json"]);
}

/** A 5xx the API's own table gives for the case (a type not submitted, ...), not a crash. */
function declared5xx(status: number, code: string | undefined): boolean {
  return code !== undefined && errorCodes.get(code)?.status === status;
}

export const frameworkRefusals: Check = {
  name: "refusals a framework answers, on every route",
  rules: ["EP-1", "W-5", "ENV-6", "W-3"],
  needs: { uses: KNOWN_FACTS },
  async run(c) {
    // A method the path does not take.
    for (const [template, ops] of paths()) {
      const path = harmless(ops[0]!, "EP-1").path;
      const method = METHODS.find((m) => !ops.some((o) => o.method.toUpperCase() === m) && !matchOperation(m, path));
      if (!method) continue;
      const as = method === "GET" ? { ...(await keyFor(c, ops[0]!.scope)) } : { key: null };
      const ex = await c.request({ method, path, ...as, rule: "EP-1", ...(method === "GET" ? { headersOnly: true } : {}) });
      c.target.deliberate(ex);
      const what = `${method} ${template} (the contract has ${ops.map((o) => o.method.toUpperCase()).join(", ")} there)`;
      // A route beyond the contract is the server's own (the seed does not show every route).
      if (ex.status < 400) c.note("EP-4", `${what} answered ${ex.status}: a route beyond the contract`);
      else c.expect(ex.status < 500 || declared5xx(ex.status, errorCodeOf(ex.json)), "EP-1", `${what} answered ${said(ex)}; a method the path does not take is refused, not a crash`, ex);
    }

    // A path no route has, under every resource.
    const resources = [...new Set([...paths().keys()].map((p) => p.split("/")[2]!))];
    for (const resource of resources) {
      let path = `/v1/${resource}/conformance-no-such-route-${randomToken()}`;
      while (matchOperation("GET", path)) path += "/conformance";
      const ex = await c.get(path, "EP-1", await keyFor(c, null));
      c.target.deliberate(ex);
      c.refusal(ex, "not_found", "EP-1", `GET ${path.replace(/-[a-z0-9]+$/, "-…")} (no such route under /v1/${resource})`);
    }

    // A body that is not JSON, on every route that reads one (the session-only routes refuse an API key before any body).
    const sessionOnly = new Set(sessionOnlyOperations());
    const known = knownOf(c);
    for (const op of operations()) {
      if (!op.path.startsWith("/v1/") || !takesJson(op) || sessionOnly.has(op)) continue;
      const spec = harmless(op, "W-3");
      const plan = planFor(op.operationId, known);
      const rule = "skipped" in plan ? "W-3" : plan.invalidRule;
      const ex = await c.request({ ...spec, json: undefined, raw: '{"conformance": ', headers: { ...spec.headers, "content-type": "application/json" }, ...(await keyFor(c, op.scope)), rule, direct: true });
      c.target.deliberate(ex);
      const code = errorCodeOf(ex.json);
      if (ex.status < 300) c.fail("W-3", `${operationLabel(op)} served a body that is not JSON (${ex.status})`, ex);
      else if (ex.status >= 500 && !declared5xx(ex.status, code)) c.fail(rule, `${operationLabel(op)}: a body that is not JSON answered ${said(ex)}, not a refusal`, ex);
      else c.pass("W-3");
    }
  },
};
