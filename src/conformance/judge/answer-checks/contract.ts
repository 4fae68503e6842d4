// The answer against the contract: `checkAnswer` lists where it departs (an undeclared
// status, a header, the media type, a path in the body) and each departure is charged to
// the seed rule its contract location names; a route the server lacks is reported once,
// as missing. A `/v1` answer the contract declares no response for is held to the headers
// every `/v1` answer carries.
import { checkAnswer, responseFor, type JsonObject, type Operation } from "../../../contract/index.ts";
import { bodyRuleOf, ruleBroken, isCollection, isUnrouted, notRouted, PAGED_OPS, RECORD_OPS } from "../broken-rule.ts";
import { isV1, type Exchange } from "../../target/exchange.ts";
import { broke, held, type AnswerCheck, type Finding } from "./check.ts";

export const matchesContract: AnswerCheck = {
  name: "the answer matches its operation in the contract",
  rules: ["EP-4", "W-4", "GEN-3", "GEN-4", "PAGE-5"],
  check(ex, context) {
    if (!ex.operation) return [];
    const out: Finding[] = [];
    const unrouted = isUnrouted(ex.operation, ex.status);
    for (const v of checkAnswer(ex.operation, { status: ex.status, headers: ex.headers, body: ex.text })) {
      // A route the server lacks is reported once, as such (EP-4), not as an undeclared
      // status of whichever rule's request met it.
      if (unrouted && /^status \d+ is not declared/.test(v.message)) continue;
      out.push(broke(ruleBroken(ex.operation, ex.status, v, ex.json, context.rule), v.message));
    }
    if (unrouted) out.push(broke("EP-4", notRouted(ex.operation, ex)));
    const op = ex.operation.operationId;
    if (ex.status < 300 && ex.json !== undefined) {
      const rule = bodyRuleOf(op);
      if (rule) out.push(held(rule));
      if (isCollection(op)) out.push(held("W-4"));
      if (RECORD_OPS.has(op)) out.push(held("GEN-3"), held("GEN-4"));
    }
    if (PAGED_OPS.has(op)) out.push(held("PAGE-5"));
    return out;
  },
};

export const v1Headers: AnswerCheck = {
  name: "a /v1 answer outside the contract still carries the headers of every /v1 answer",
  rules: ["W-13", "AUTH-8"],
  check(ex, context) {
    if (!isV1(ex)) return [];
    const out: Finding[] = [];
    // A status the contract does not declare for the route (or a route it does not have)
    // was checked against no response: its headers are held to those every /v1 answer carries.
    if (!ex.operation || !responseFor(ex.operation, ex.status)) {
      const general = generalAnswerOf(ex);
      for (const v of checkAnswer(general, { status: ex.status, headers: ex.headers, body: "" })) {
        if (v.message.startsWith("header ")) out.push(broke(ruleBroken(general, ex.status, v, ex.json, context.rule), v.message));
      }
    }
    const listModels = ex.operation?.operationId === "listModels" && (ex.status === 200 || ex.status === 304);
    if (!listModels) out.push(held("W-13"));
    if (ex.status === 401) out.push(held("AUTH-8"));
    return out;
  },
};

/**
 * The route of an answer whose status (or route) the contract does not declare, with the
 * one response every `/v1` answer's headers can be held to: the contract's `NotFound`
 * (X-Request-Id, Cache-Control, Vary, as on every error of `/v1`).
 */
function generalAnswerOf(ex: Exchange): Operation {
  const responses: JsonObject = { [String(ex.status)]: { $ref: "#/components/responses/NotFound" } };
  const base = ex.operation ?? { method: ex.method.toLowerCase() as Operation["method"], path: ex.path.split("?")[0]!, operationId: "", parameters: [], scope: null, schemes: [], op: {} };
  return { ...base, op: { ...base.op, responses } };
}

export const requestIdEcho: AnswerCheck = {
  name: "the caller's X-Request-Id is echoed",
  rules: ["EP-2"],
  check(ex, context) {
    if (!isV1(ex)) return [];
    const echoed = ex.headers.get("x-request-id");
    if (!context.staticMock && ex.sentRequestId && echoed && echoed !== ex.sentRequestId) {
      return [broke("EP-2", `X-Request-Id ${JSON.stringify(echoed)} does not repeat the one sent (${JSON.stringify(ex.sentRequestId)})`)];
    }
    return [held("EP-2")];
  },
};
