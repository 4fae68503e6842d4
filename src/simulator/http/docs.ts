// Serves a static folder (the reference docs another part of the project builds) at
// /docs. Read on each request so a docs build made while the simulator runs shows up.
import { createHash } from "node:crypto";
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

/** The policy of every file under /docs; an HTML page adds the hashes of its own inline scripts. */
const POLICY = [
  "default-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
];

const INLINE_SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;

/** `script-src` naming the hash of every inline script of `html`: the page runs those and its own files, nothing injected. */
function scriptSource(html: string): string {
  const hashes = new Set<string>();
  for (const [, attributes, text] of html.matchAll(INLINE_SCRIPT)) {
    if (/\ssrc\s*=/i.test(attributes!)) continue;
    hashes.add(`'sha256-${createHash("sha256").update(text!, "utf8").digest("base64")}'`);
  }
  return ["script-src 'self'", ...hashes].join(" ");
}

// A page's policy, by path, until its bytes change (the reference page is megabytes of script).
const policies = new Map<string, { bytes: Buffer; policy: string }>();

/**
 * The headers every file under /docs is served with (also by the docs tests' server, so
 * the pages are checked in a browser under them): never sniffed as another type, never
 * framed, and a page may run only its own scripts.
 */
export function docsHeaders(path: string, file: StaticFile): Record<string, string> {
  const headers: Record<string, string> = { "content-type": file.contentType, "cache-control": "no-cache", "x-content-type-options": "nosniff" };
  if (!file.contentType.startsWith("text/html")) {
    headers["content-security-policy"] = [...POLICY, "script-src 'self'"].join("; ");
    return headers;
  }
  let known = policies.get(path);
  if (!known || !known.bytes.equals(file.bytes)) {
    known = { bytes: file.bytes, policy: [...POLICY, scriptSource(file.bytes.toString("utf8"))].join("; ") };
    if (policies.size > 100) policies.clear();
    policies.set(path, known);
  }
  headers["content-security-policy"] = known.policy;
  return headers;
}
