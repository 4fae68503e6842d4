// Serves a static folder (the reference docs another part of the project builds) at
// /docs. Read on each request so a docs build made while the simulator runs shows up.
import { readFileSync, statSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".yaml": "application/yaml; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
  ".map": "application/json; charset=utf-8",
};

export interface StaticFile {
  contentType: string;
  bytes: Buffer;
}

/** The file for a path under /docs, or undefined (missing folder, missing file, escape attempt). */
export function docsFile(root: string, urlPath: string): StaticFile | undefined {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath.replace(/^\/docs\/?/, ""));
  } catch {
    return undefined;
  }
  if (rel.includes("\0")) return undefined;
  const base = normalize(root);
  let target = normalize(join(base, rel));
  if (target !== base && !target.startsWith(base.endsWith(sep) ? base : base + sep)) return undefined;
  try {
    if (statSync(target).isDirectory()) target = join(target, "index.html");
    return { contentType: TYPES[extname(target).toLowerCase()] ?? "application/octet-stream", bytes: readFileSync(target) };
  } catch {
    return undefined;
  }
}
