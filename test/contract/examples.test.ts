// Every example in the document validates against its schema; every error example is
// named after its code and sits under that code's HTTP status.
import { describe, expect, it } from "vitest";
import { encodePointer, statusOf, validatorAt } from "../../src/contract/index.ts";
import { contract, deref, errorCodesOf, isErrorStatus, operations, responsesOf, type JsonObject } from "../support/contract.ts";

interface Sample {
  where: string;
  schemaPointer: string;
  value: unknown;
}

/** Examples of every media type reachable in the bundle, with the pointer of their schema. */
function mediaSamples(): Sample[] {
  const samples: Sample[] = [];
  const visitContent = (base: string, content: JsonObject | undefined) => {
    for (const [type, raw] of Object.entries(content ?? {})) {
      const media = raw as JsonObject;
      if (!media.schema) continue;
      const schemaPointer = `${base}/content/${encodePointer(type)}/schema`;
      if (media.example !== undefined) samples.push({ where: `${base} ${type} example`, schemaPointer, value: media.example });
      for (const [name, ex] of Object.entries((media.examples as JsonObject) ?? {})) {
        samples.push({ where: `${base} ${type} ${name}`, schemaPointer, value: deref<JsonObject>(ex).value });
      }
    }
  };
  const components = contract.components as JsonObject;
  for (const [name, r] of Object.entries(components.responses as JsonObject)) visitContent(`#/components/responses/${name}`, (r as JsonObject).content as JsonObject);
  for (const op of operations()) {
    const base = `#/paths/${encodePointer(op.path)}/${op.method}`;
    const body = op.op.requestBody as JsonObject | undefined;
    if (body && !body.$ref) visitContent(`${base}/requestBody`, body.content as JsonObject);
    for (const [status, raw] of Object.entries(op.op.responses as JsonObject)) {
      if (!(raw as JsonObject).$ref) visitContent(`${base}/responses/${status}`, (raw as JsonObject).content as JsonObject);
    }
  }
  return samples;
}

/** `example` of parameters and headers, and `examples` arrays inside schemas. */
function otherSamples(): Sample[] {
  const samples: Sample[] = [];
  const components = contract.components as JsonObject;
  for (const kind of ["parameters", "headers"] as const) {
    for (const [name, raw] of Object.entries(components[kind] as JsonObject)) {
      const p = raw as JsonObject;
      if (p.example !== undefined) samples.push({ where: `${kind}/${name}`, schemaPointer: `#/components/${kind}/${name}/schema`, value: p.example });
    }
  }
  const walk = (node: unknown, pointer: string) => {
    if (!node || typeof node !== "object") return;
    const n = node as JsonObject;
    if (Array.isArray(n.examples) && !pointer.includes("/examples/")) {
      n.examples.forEach((value, i) => samples.push({ where: `${pointer} examples[${i}]`, schemaPointer: pointer, value }));
    }
    for (const [key, child] of Object.entries(n)) {
      if (key === "examples" || key === "example") continue;
      walk(child, `${pointer}/${encodePointer(key)}`);
    }
  };
  for (const [name, s] of Object.entries(components.schemas as JsonObject)) walk(s, `#/components/schemas/${name}`);
  return samples;
}

// Header examples are strings on the wire; an integer header's example is a number in YAML.
describe("examples", () => {
  const samples = [...mediaSamples(), ...otherSamples()];

  it("there are examples to check (request, response, parameter, header, schema)", () => {
    expect(samples.length).toBeGreaterThan(150);
  });

  it.each(samples.map((s) => [s.where, s] as const))("%s validates against its schema", (_where, sample) => {
    const validate = validatorAt(sample.schemaPointer);
    const ok = validate(sample.value);
    expect(validate.errors ?? [], JSON.stringify(sample.value)).toEqual([]);
    expect(ok).toBe(true);
  });
});

describe("error examples", () => {
  const cases = operations().flatMap((op) =>
    responsesOf(op)
      .filter(([status]) => isErrorStatus(status))
      .map(([status, response]) => [`${op.operationId} ${status}`, op, status, response] as const),
  );

  it.each(cases)("ERR-2 %s: every example is named after its code, which belongs to this status", (_name, _op, status, response) => {
    expect(Object.keys((response.content as JsonObject) ?? {}).filter((type) => type !== "text/html")).not.toHaveLength(0);
    for (const [type, raw] of Object.entries((response.content as JsonObject) ?? {})) {
      const media = raw as JsonObject;
      const schemaName = String((media.schema as JsonObject).$ref ?? "").split("/").pop();
      const examples = Object.entries((media.examples as JsonObject) ?? {});
      if (type === "text/html") continue; // the page shown to the user on /oauth/authorize
      expect(examples.length, `${type} has named examples`).toBeGreaterThan(0);
      for (const [name, ex] of examples) {
        const value = deref<JsonObject>(ex).value as JsonObject;
        if (schemaName === "ErrorEnvelope") {
          const code = (value.error as JsonObject).code as string;
          expect(name).toBe(code);
          expect(statusOf(code), `${code} in a ${status} answer`).toBe(Number(status));
        } else {
          expect(schemaName).toBe("OAuthError");
          expect(name).toBe(value.error);
        }
      }
    }
  });

  it("ERR-2: every operation lists at least one error code under each of its error statuses", () => {
    let statuses = 0;
    for (const op of operations()) {
      for (const [status, codes] of errorCodesOf(op)) {
        const response = deref<JsonObject>((op.op.responses as JsonObject)[status]);
        if (!response.content) continue; // a webhook's refusals, answered by the application
        expect(codes.length, `${op.operationId} ${status}`).toBeGreaterThan(0);
        statuses++;
      }
    }
    expect(statuses).toBeGreaterThan(0);
  });
});
