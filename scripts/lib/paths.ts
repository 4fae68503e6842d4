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
