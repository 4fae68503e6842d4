// JSON helpers over any copy of the document (the contract's own `deref` always reads the
// shared bundle; the docs build works on a copy and must resolve inside it).
import type { Json, JsonObject } from "../contract/document.ts";

/** The object at a path of keys, or undefined. */
export function at(doc: JsonObject, path: string[]): JsonObject | undefined {
  let node: Json | undefined = doc;
  for (const key of path) {
    if (!node || typeof node !== "object") return undefined;
    node = Array.isArray(node) ? node[Number(key)] : (node as Record<string, Json>)[key];
  }
  return node && typeof node === "object" && !Array.isArray(node) ? (node as JsonObject) : undefined;
}

/** Resolves a local `$ref` inside `doc`. */
export function derefIn(doc: JsonObject, node: Json | undefined): JsonObject {
  let current = node;
  for (let k = 0; k < 20 && current && typeof current === "object" && !Array.isArray(current) && typeof current.$ref === "string"; k++) {
    const ref = current.$ref as string;
    if (!ref.startsWith("#/")) throw new Error(`Only local refs are supported: ${ref}`);
    current = at(doc, ref.slice(2).split("/").map((s) => decodeURIComponent(s).replace(/~1/g, "/").replace(/~0/g, "~")));
  }
  return current as JsonObject;
}
