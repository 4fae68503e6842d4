// EP-2 over every answer: a request id the server generates (the request sent none) is a
// fresh one. Two answers that carry the same generated id are two requests a support
// engineer cannot tell apart in the logs: each answer alone looks right.
import { broke, held } from "../answer-checks/check.ts";
import type { Invariant, InvariantFinding } from "./invariant.ts";

const RULE = "EP-2";

export const requestIdsFresh: Invariant = {
  name: "generated request ids are fresh",
  rules: [RULE],
  watch() {
    const seen = new Map<string, { path: string }>();
    const findings: InvariantFinding[] = [];
    let generated = 0;
    return {
      exchange(ex, how) {
        if (how.bare || ex.record.sent.headers["x-request-id"] !== undefined || !ex.path.startsWith("/v1")) return;
        const id = ex.headers.get("x-request-id");
        if (!id) return;
        generated++;
        const first = seen.get(id);
        if (first) findings.push({ ...broke(RULE, `the request id ${id} the server generated for ${ex.method} ${ex.path} it had generated before, for ${first.path}: a generated id must be fresh`), cite: ex.cite });
        // Bounded: the first 10,000 ids are held (a repeat among them is found).
        else if (seen.size < 10_000) seen.set(id, { path: `${ex.method} ${ex.path}` });
      },
      findings: () => (findings.length > 0 || generated < 2 ? findings : [held(RULE)]),
    };
  },
};
