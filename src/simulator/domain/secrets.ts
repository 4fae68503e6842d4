// Secrets and their masks: what the request journal keeps instead of a credential
// (domain/journal.ts). Every credential the hub issues starts `gh<kind>_` (API keys `ghk_`,
// OAuth access and refresh tokens `gho_` and `ghr_`, codes `ghc_`, site sessions `ghs_`),
// so a mask names what it is (the key's id, the grant, the session) and never shows its
// value: `ghk_… (key_full)`. The rest is named by where it sits: an upload's signature,
// the fields and form fields that carry a client's own secrets, Authorization and
// cookies.
import type { HubState } from "../state/hub-state.ts";

/** A credential the hub issued, by its prefix: at least one character after it (a mask is `ghk_…`). */
const ISSUED = /\bgh[korcs]_[A-Za-z0-9_-]+/g;
/** The signature of an upload's storage address (it is the credential of that PUT). */
const SIGNATURE = /([?&]signature=)[^&#\s"'\\]+/g;
/** JSON fields whose string value is a secret of the client's or of the hub's. */
const SECRET_FIELDS = /("(?:secret|cookie|password|client_secret|client_assertion|code_verifier|access_token|refresh_token|id_token)"\s*:\s*")((?:[^"\\]|\\.)*)/g;
/** Form and query fields whose value is a secret (the OAuth routes' forms). */
const SECRET_FORM_FIELDS = /((?:^|[?&])(?:client_secret|client_assertion|code_verifier|code|token|refresh_token|password)=)([^&#\s]*)/g;

/** The name of an OAuth access token: its grant's. */
export function tokenName(grantId: string): string {
  return `token of grant ${grantId}`;
}

/** What a credential of the hub is, by its value: `key_full`, `token of grant grt_…`, `session ses_…`, or that it names none. */
export function secretName(state: HubState, value: string): string {
  switch (value.charCodeAt(2)) {
    case 107 /* k */:
      return state.keys.get(value)?.id ?? "unknown key";
    case 111 /* o */: {
      const token = state.oauth.access.get(value);
      return token ? tokenName(token.grant_id) : "unknown token";
    }
    case 114 /* r */: {
      const token = state.oauth.refresh.get(value);
      return token ? `refresh token of grant ${token.grant_id}` : "unknown refresh token";
    }
    case 99 /* c */: {
      const code = state.oauth.codes.get(value);
      return code ? `code of grant ${code.grant_id}` : "unknown code";
    }
    default: {
      const session = state.sessions.get(value);
      return session ? `session ${session.id}` : "unknown session";
    }
  }
}

/** The mask of a credential the hub issued. */
export function issuedMask(state: HubState, value: string): string {
  return maskOf(value.slice(0, 4), secretName(state, value));
}

/** A mask, from the credential's prefix (`ghk_`) and its name. */
export function maskOf(prefix: string, name: string): string {
  return `${prefix}… (${name})`;
}

/** The mask of an issued credential, to find it again (the curl line turns each into a shell variable); group 1 is its name. */
export const ISSUED_MASK = /\bgh[korcs]_… \(([^)]*)\)/g;

/** Whether `text` may hold a secret at all: most do not, and are kept as they are without the masks' scans. */
const MAY_HOLD = /gh[korcs]_|signature=|secret|cookie|password|assertion|verifier|token|code=/;

/** `text` with every secret it may carry masked. */
export function maskText(text: string, state: HubState): string {
  if (!MAY_HOLD.test(text)) return text;
  return text
    .replace(ISSUED, (value) => issuedMask(state, value))
    .replace(SIGNATURE, "$1…")
    .replace(SECRET_FIELDS, (_, field: string, value: string) => (value === "" || value.startsWith("gh") ? `${field}${value}` : `${field}…`))
    .replace(SECRET_FORM_FIELDS, (_, field: string, value: string) => (value === "" || value.startsWith("gh") ? `${field}${value}` : `${field}…`));
}

/** An Authorization value: the scheme, and the credential by what it is. */
export function maskAuthorization(value: string, state: HubState): string {
  const m = /^(\S+)([ \t]+)(\S*)/.exec(value);
  if (!m) return "…";
  const [, scheme, space, credential] = m;
  if (/^gh[korcs]_[A-Za-z0-9_-]+$/.test(credential!)) return `${scheme}${space}${issuedMask(state, credential!)}`;
  return `${scheme}${space}…`;
}

/** A Cookie or Set-Cookie value: names kept, values masked (a session's named). */
export function maskCookie(value: string, state: HubState): string {
  return value.replace(/(^|;\s*)([^=;\s]+)=([^;]*)/g, (whole, lead: string, name: string, v: string) => {
    // Set-Cookie attributes (Path, SameSite, Expires, ...) are not secrets.
    if (/^(path|domain|expires|max-age|samesite)$/i.test(name)) return whole;
    return `${lead}${name}=${/^ghs_[A-Za-z0-9_-]+$/.test(v) ? issuedMask(state, v) : "…"}`;
  });
}

/**
 * A copy of `headers`, one string per name, with credentials masked (`authorization`: the
 * mask of Authorization when the caller knows it already); with `all`, every value is
 * masked as text too (answers that may carry a secret: a `Location` with a code).
 */
export function maskedHeaders(headers: Readonly<Record<string, string | string[] | undefined>>, state: HubState, all: boolean, authorization?: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = textOf(headers[name]);
    if (value !== undefined) out[name] = all ? maskText(value, state) : value;
  }
  // Set again after the copy, from the values as given (one pass over the names, none compared on the way).
  if (out.authorization !== undefined) out.authorization = authorization ?? maskAuthorization(textOf(headers.authorization)!, state);
  if (out["proxy-authorization"] !== undefined) out["proxy-authorization"] = maskAuthorization(textOf(headers["proxy-authorization"])!, state);
  // A browser's Referer is the page's address, which may carry an OAuth code it was sent back with.
  if (!all && out.referer !== undefined) out.referer = maskText(out.referer, state);
  if (out.cookie !== undefined) out.cookie = maskCookie(textOf(headers.cookie)!, state);
  if (out["set-cookie"] !== undefined) out["set-cookie"] = maskCookie(textOf(headers["set-cookie"])!, state);
  return out;
}

function textOf(value: string | string[] | undefined): string | undefined {
  return value === undefined || typeof value === "string" ? value : value.join(", ");
}
