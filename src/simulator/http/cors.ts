// Which routes `--cors` opens: the ones a browser app calls across origins. The API
// (`/v1`), the storage PUT of an upload ticket, and the OAuth routes a browser-based
// client calls itself: discovery, the token route, revocation (RFC 7009 §5 asks for CORS
// where browser-based clients revoke, as a single-page app does when it signs out) and
// registration (a public client that registers itself from the browser; the seed limits
// it per address, and it needs no credential, so CORS gives a page nothing it could not
// do anyway). Never the control interface (`/_sim/`), the site's pages and forms
// (`/site/`), the authorization page (`/oauth/authorize`, a navigation, never fetched),
// nor the docs.
import { operationById } from "../../contract/document.ts";
import { STORAGE_PREFIX } from "../handlers/storage.ts";

const OAUTH_ROUTES: ReadonlySet<string> = new Set(
  ["readAuthorizationServerMetadata", "readProtectedResourceMetadata", "exchangeToken", "revokeToken", "registerClient"].map((id) => operationById(id).path),
);

/** Whether `--cors` opens `path` (a path without its query). */
export function corsOpens(path: string): boolean {
  return path === "/v1" || path.startsWith("/v1/") || path.startsWith(STORAGE_PREFIX) || OAUTH_ROUTES.has(path);
}
