// The contract's links (OpenAPI link objects) tie answers to the operations their values
// feed: each names an operation of the contract, fills only parameters that operation
// has, takes values from the answer it hangs on, and a body it gives is a body the target
// operation takes once its expressions are filled in.
import { describe, expect, it } from "vitest";
import { contract, deref, operationById, operations, schemaValidator, type JsonObject } from "../../src/contract/index.ts";

interface Link {
  operationId: string;
  parameters?: Record<string, string>;
  requestBody?: unknown;
}

const links = operations().flatMap((op) =>
  Object.entries(op.op.responses as JsonObject).flatMap(([status, response]) =>
    Object.entries((deref<JsonObject>(response).links ?? {}) as JsonObject).map(([name, link]) => ({ from: `${op.operationId} ${status}`, name, link: deref<Link>(link) })),
  ),
);

/** A body with every runtime expression replaced by a value of the right shape (an id). */
function filled(body: unknown): unknown {
  if (typeof body === "string") return body.startsWith("{$") || body.startsWith("$") ? "gen_01JD8X4K2M9QF7T3V5W6Y8Z0AB" : body;
  if (Array.isArray(body)) return body.map(filled);
  if (body && typeof body === "object") return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, filled(v)]));
  return body;
}

describe("links", () => {
  it("GEN-2 EVT-2 BATCH-1: a submitted generation links to its read, batch read, report, title change and the event stream", () => {
    expect(links.filter((l) => l.from === "submitGeneration 202").map((l) => l.link.operationId).sort()).toEqual(
      ["changeGenerationTitle", "readGeneration", "readGenerationStatuses", "reportGeneration", "streamGenerationEvents"],
    );
    expect(links.length).toBeGreaterThanOrEqual(14);
    expect(Object.keys((contract.components as JsonObject).links as JsonObject).length).toBeGreaterThan(0);
  });

  it.each(links.map((l) => [`${l.from} -> ${l.name}`, l] as const))("%s names an operation, its own parameters, and a body it takes", (_title, { link }) => {
    const target = operationById(link.operationId);
    const names = target.parameters.map((p) => String(p.name));
    if (/\{/.test(target.path)) expect(Object.keys(link.parameters ?? {})).not.toHaveLength(0);
    for (const [name, value] of Object.entries(link.parameters ?? {})) {
      expect(names, `${link.operationId} has no parameter ${name}`).toContain(name);
      expect(value).toMatch(/^\$response\.body#\//);
    }
    const required = target.parameters.filter((p) => p.in === "path").map((p) => String(p.name));
    if (/\{/.test(target.path)) expect(required).not.toHaveLength(0);
    for (const name of required) expect(Object.keys(link.parameters ?? {}), `${link.operationId} needs ${name}`).toContain(name);
    if (link.requestBody !== undefined) {
      const media = ((target.op.requestBody as JsonObject).content as JsonObject)["application/json"] as JsonObject;
      const name = String((media.schema as JsonObject).$ref).split("/").pop()!;
      expect(schemaValidator(name)(filled(link.requestBody)), `${link.operationId} takes ${JSON.stringify(link.requestBody)}`).toBe(true);
    }
  });
});
