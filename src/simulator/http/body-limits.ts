// Request body limits every adapter applies before the hub sees a body (node:http in
// server.ts, Mock Service Worker in msw/): no Node or framework import, so the browser
// adapter can share them.
import { operationById } from "../../contract/document.ts";
import { UPLOAD_CEILING } from "../domain/library.ts";
import { STORAGE_PREFIX } from "../handlers/storage.ts";

/** Largest request body by default; above it the answer is 413 `request_too_large`. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** The PUT routes that carry an upload's file itself (as route patterns, `*` for the rest of a path). */
export const UPLOAD_ROUTES: readonly string[] = [`${STORAGE_PREFIX}*`, operationById("completeUpload").path];

/** The body limit of one request: an upload's PUT may carry up to the ticket's ceiling (40 MiB), above the JSON limit. */
export function bodyLimitOf(method: string, path: string, bodyLimit: number): number {
  if (method !== "PUT") return bodyLimit;
  const upload = UPLOAD_ROUTES.some((route) => (route.endsWith("*") ? path.startsWith(route.slice(0, -1)) : path === route));
  return upload ? Math.max(bodyLimit, UPLOAD_CEILING) : bodyLimit;
}

/** The message of a 413 `request_too_large` for a body above `limit`. */
export function tooLargeMessage(limit: number): string {
  return `The body is larger than ${limit} bytes.`;
}
