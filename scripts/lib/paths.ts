// Where things live, so scripts and tests agree on one layout.
import { fileURLToPath } from "node:url";
import { dirname, resolve } from "node:path";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const at = (...parts: string[]) => resolve(root, ...parts);

export const sources = {
  openapi: at("openapi/openapi.yaml"),
  schemas: at("schemas"),
  errorCodes: at("schemas/common/ErrorCode.json"),
  errorExamples: at("openapi/common/error-examples.yaml"),
  seed: resolve(root, "../shared/seed/generation-hub-public-api.md"),
};

export const outputs = {
  bundleYaml: at("generated/openapi.yaml"),
  bundleJson: at("generated/openapi.json"),
  types: at("generated/types.ts"),
  traceability: at("generated/traceability.md"),
};

/**
 * The consumer matrix's own package: other repositories' generators and validators, pinned,
 * with the Node 24 they need (`npm run consumers:install`; test/consumers/ runs them).
 */
export const consumers = {
  root: at("consumers"),
  runtime: at("consumers/runtime"),
  /** The Node 24 binary the tools run on. */
  node: at("consumers/runtime/node_modules/.bin/node"),
  /** Where the tests generate, inside the package so its modules resolve (git-ignored). */
  work: at("consumers/.work"),
};
