// Redocly plugin: this API's conventions as lint rules (see redocly.yaml).
// Rules report on the node at fault so a finding points at the source file.

// snake_case, where the neutral vendor words `vendorA`/`vendorB` count as words
// (the seed puts them in identifiers such as `vendorA_model`).
const SNAKE = /^(?:[a-z0-9]+|vendor[AB])(?:_(?:[a-z0-9]+|vendor[AB]))*$/;

const isError = (code) => /^[45](\d\d|XX)$/.test(code);

/** Property names of every schema are snake_case. */
function SnakeCaseProperties() {
  return {
    Schema: {
      enter(schema, ctx) {
        if (!schema || typeof schema.properties !== "object") return;
        for (const name of Object.keys(schema.properties)) {
          if (!SNAKE.test(name)) {
            ctx.report({
              message: `Property \`${name}\` is not snake_case.`,
              location: ctx.location.child(["properties", name]).key(),
            });
          }
        }
      },
    },
  };
}

/** Query and path parameter names are snake_case (headers keep their HTTP spelling). */
function SnakeCaseParameters() {
  return {
    Parameter: {
      enter(param, ctx) {
        if ((param.in === "query" || param.in === "path") && !SNAKE.test(param.name)) {
          ctx.report({ message: `Parameter \`${param.name}\` is not snake_case.`, location: ctx.location.child("name") });
        }
      },
    },
  };
}

/** Every operation under /v1 declares its own security requirement. */
function V1Security() {
  let path; // the key of the path item being visited (its path template)
  return {
    PathItem: {
      enter(_item, ctx) {
        path = typeof ctx.key === "string" ? ctx.key : undefined;
      },
    },
    Operation: {
      enter(op, ctx) {
        if (!path || !path.startsWith("/v1/")) return;
        if (!Array.isArray(op.security) || op.security.length === 0) {
          ctx.report({ message: `Operation \`${op.operationId ?? path}\` under /v1 must declare \`security\`.`, location: ctx.location.key() });
        }
      },
    },
  };
}

/** Every operation answers at least one 4xx and one 5xx. */
function ErrorStatuses() {
  return {
    Operation: {
      enter(op, ctx) {
        const codes = Object.keys(op.responses ?? {});
        for (const klass of ["4", "5"]) {
          if (!codes.some((c) => c.startsWith(klass))) {
            ctx.report({ message: `Operation \`${op.operationId}\` lists no ${klass}xx answer.`, location: ctx.location.child("responses").key() });
          }
        }
      },
    },
  };
}

/**
 * Error answers use the error envelope. The OAuth protocol routes answer in the
 * OAuth error form where their RFCs say so, and the browser-facing authorization
 * route may also answer an HTML page; both are declared by `x-error-form`.
 */
function ErrorEnvelope() {
  return {
    Response: {
      enter(response, ctx) {
        const status = ctx.key;
        if (typeof status !== "string" || !isError(status) || !response.content) return;
        const allowed = new Set(["ErrorEnvelope", ...(response["x-error-form"] ?? [])]);
        for (const [type, media] of Object.entries(response.content)) {
          const name = refName(media.schema);
          if (type === "text/html" && allowed.has("html")) continue;
          if (!name || !allowed.has(name)) {
            ctx.report({
              message: `Error answer ${status} (${type}) must use the error envelope${allowed.size > 1 ? ` or ${[...allowed].slice(1).join(", ")}` : ""}.`,
              location: ctx.location.child(["content", type]),
            });
          }
        }
      },
    },
  };
}

/** Every response body has an example, unless its shape is a gap of the seed. */
function ResponseExamples() {
  return {
    Response: {
      enter(response, ctx) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          if (media["x-not-shown"]) continue;
          const has = media.example !== undefined || (media.examples && Object.keys(media.examples).length > 0);
          if (!has) {
            ctx.report({ message: `Response ${ctx.key} (${type}) has no example.`, location: ctx.location.child(["content", type]) });
          }
        }
      },
    },
  };
}

/**
 * Every object schema with `properties` says whether it is open or closed: requests close
 * themselves (`additionalProperties: false`), records and fragments say `true`. Left unsaid,
 * JSON Schema leaves it open, but strict tools (Redocly Respect validates answers with
 * unevaluated properties refused by default) read it as closed and fail a conforming answer.
 */
function ExplicitAdditionalProperties() {
  return {
    Schema: {
      enter(schema, ctx) {
        if (!schema || typeof schema.properties !== "object" || schema.properties === null) return;
        if ("additionalProperties" in schema || "unevaluatedProperties" in schema) return;
        ctx.report({
          message: "Say whether this object is open (`additionalProperties: true`, a record or a fragment) or closed (`false`, a request).",
          location: ctx.location.child("properties").key(),
        });
      },
    },
  };
}

// Keywords whose value is one subschema, a map of them, or a list of them (JSON Schema
// 2020-12). `additionalProperties` and `unevaluatedProperties` are left out: `false` and
// `true` there are how every tool reads a closed or an open object.
const ONE_SUBSCHEMA = ["items", "contains", "propertyNames", "if", "then", "else", "not", "unevaluatedItems", "contentSchema"];
const SUBSCHEMA_MAPS = ["properties", "patternProperties", "$defs", "dependentSchemas"];
const SUBSCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];

/**
 * No boolean subschemas: write `{}` for `true` and `{"not": {}}` for `false`. They mean the
 * same in 2020-12, but code generators crash on the boolean form (orval: "Cannot use 'in'
 * operator to search for '$ref' in true"; openapi-zod-client: "Schema is required").
 */
function NoBooleanSubschemas() {
  const report = (ctx, path, value) =>
    ctx.report({
      message: `Boolean subschema \`${value}\`: write \`${value ? "{}" : '{"not": {}}'}\` (generators crash on the boolean form).`,
      location: ctx.location.child(path),
    });
  return {
    Schema: {
      enter(schema, ctx) {
        if (!schema || typeof schema !== "object") return;
        for (const key of ONE_SUBSCHEMA) if (typeof schema[key] === "boolean") report(ctx, [key], schema[key]);
        for (const key of SUBSCHEMA_MAPS) {
          for (const [name, sub] of Object.entries(schema[key] ?? {})) if (typeof sub === "boolean") report(ctx, [key, name], sub);
        }
        for (const key of SUBSCHEMA_LISTS) {
          if (Array.isArray(schema[key])) schema[key].forEach((sub, i) => typeof sub === "boolean" && report(ctx, [key, i], sub));
        }
      },
    },
  };
}

function refName(schema) {
  const ref = schema?.$ref;
  if (!ref) return undefined;
  return ref.split("/").pop().replace(/\.json$/, "");
}

export default function hubRules() {
  return {
    id: "hub",
    rules: {
      oas3: {
        "snake-case-properties": SnakeCaseProperties,
        "snake-case-parameters": SnakeCaseParameters,
        "v1-security": V1Security,
        "error-statuses": ErrorStatuses,
        "error-envelope": ErrorEnvelope,
        "response-examples": ResponseExamples,
        "explicit-additional-properties": ExplicitAdditionalProperties,
        "no-boolean-subschemas": NoBooleanSubschemas,
      },
    },
  };
}
