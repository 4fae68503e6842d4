// Broken servers that only the invariants find (src/conformance/judge/invariants/): each
// answer is right on its own, and only the whole trace shows the bug (two answers that
// should differ and do not, a record read in two places, a frame delivered twice). Each is
// the simulator behind the rewriting proxy with one such bug. doubles.ts spreads them into
// DOUBLES; test/conformance/invariants.test.ts runs them.
import type { Double } from "./doubles.ts";
import { editJson, pathOnly } from "./proxy.ts";

const CONSTANT_ID = "req_00000000000000000000000001";

export const INVARIANT_DOUBLES: Double[] = [
  {
    rule: "EP-2",
    title: "generates one request id for every request that sends none",
    area: "headers",
    found: "default",
    make: () => ({
      answer: (req, a) => {
        if (req.headers["x-request-id"] !== undefined || !req.path.startsWith("/v1")) return a;
        // The envelope's request_id is the same constant: each answer agrees with itself.
        const same = editJson(a, (body) => (body?.error?.request_id ? { ...body, error: { ...body.error, request_id: CONSTANT_ID } } : body));
        return { ...same, headers: { ...a.headers, "x-request-id": CONSTANT_ID } };
      },
    }),
  },
  {
    rule: "ST-5",
    title: "lists generations from a stale copy: each as it was first listed (a DONE one listed as it was before)",
    area: "stateful",
    found: "default",
    make: () => {
      const firstListed = new Map<string, unknown>();
      return {
        answer: (req, a) =>
          req.method !== "GET" || pathOnly(req) !== "/v1/generations" || a.status !== 200
            ? a
            : editJson(a, (body) => {
                const items = Object.values(body).find(Array.isArray) as { id: string }[] | undefined;
                if (!items) return body;
                items.forEach((item, i) => {
                  if (!firstListed.has(item.id)) firstListed.set(item.id, item);
                  else items[i] = firstListed.get(item.id) as { id: string };
                });
                return body;
              }),
      };
    },
  },
  {
    rule: "EVT-9",
    title: "delivers the change to RUNNING twice on a fresh stream (the worker's and the scheduler's), the same frame with the same id",
    area: "events",
    found: "default",
    make: () => ({
      stream: (req, chunk) =>
        req.headers["last-event-id"] !== undefined
          ? chunk
          : chunk
              .split("\n\n")
              .map((frame) => (frame.includes("event: generation.status_changed") && frame.includes('"status":"RUNNING"') ? `${frame}\n\n${frame}` : frame))
              .join("\n\n"),
    }),
  },
];
