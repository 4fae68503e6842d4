// The OAuth authorization server's records, in `state.oauth` so a reset forgets them:
// clients (registered, or read from a client ID metadata document), published documents
// (the simulator does not reach the network), pending consents, codes, grants, tokens,
// used assertion ids and the registration counters.

/** Lifetimes and limits the seed does not show: simulator options with these defaults. */
export interface OAuthOptions {
  /** Access token lifetime, simulated seconds (default 3600). */
  accessTokenSeconds?: number;
  /** An unused refresh token expires after this many simulated seconds (default 30 days). */
  refreshTokenSeconds?: number;
  /** Absolute lifetime of a grant; rotation does not extend it (default 90 days). */
  grantSeconds?: number;
  /** Authorization code lifetime (default 60 s). */
  codeSeconds?: number;
  /** How long a consent screen can still be answered (default 600 s). */
  consentSeconds?: number;
  /** A used refresh token presented again within this many seconds of its rotation is a parallel refresh: `invalid_grant`, the grant stays (default 10 s). */
  parallelRefreshSeconds?: number;
  /** Dynamic registrations per caller address per window (default 30). */
  registrationPerIp?: number;
  /** Dynamic registrations in total per window (default 300). */
  registrationTotal?: number;
  /** Length of the registration window, simulated seconds (default 600). */
  registrationWindowSeconds?: number;
  /** Bounds of the metadata document cache, simulated seconds (defaults 60 and 86400; 300 without caching headers). */
  documentCacheMinSeconds?: number;
  documentCacheMaxSeconds?: number;
  documentCacheDefaultSeconds?: number;
  /**
   * Test and scripting convenience: `GET /oauth/authorize` consents at once as this
   * account (no sign-in, no screen, every requested scope), as if the user had clicked
   * Allow. Off by default; also switchable through `POST /_sim/oauth/auto-consent`.
   */
  autoConsent?: string | null;
}

export const OAUTH_DEFAULTS = {
  accessTokenSeconds: 3600,
  refreshTokenSeconds: 30 * 86_400,
  grantSeconds: 90 * 86_400,
  codeSeconds: 60,
  consentSeconds: 600,
  parallelRefreshSeconds: 10,
  registrationPerIp: 30,
  registrationTotal: 300,
  registrationWindowSeconds: 600,
  documentCacheMinSeconds: 60,
  documentCacheMaxSeconds: 86_400,
  documentCacheDefaultSeconds: 300,
} as const;

export type ResolvedOAuthOptions = { -readonly [K in keyof typeof OAUTH_DEFAULTS]: number } & { autoConsent: string | null };

export function resolveOptions(options: OAuthOptions = {}): ResolvedOAuthOptions {
  const out = { ...OAUTH_DEFAULTS, autoConsent: options.autoConsent ?? null } as ResolvedOAuthOptions;
  for (const key of Object.keys(OAUTH_DEFAULTS) as (keyof typeof OAUTH_DEFAULTS)[]) {
    const v = options[key];
    if (typeof v === "number" && Number.isFinite(v) && v >= 0) out[key] = v;
  }
  return out;
}

export interface Jwks {
  keys: Record<string, unknown>[];
}

export interface ClientRecord {
  client_id: string;
  source: "registered" | "document";
  client_name?: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: "none" | "private_key_jwt";
  application_type: "web" | "native";
  /** Asked for consent every time; loopback ports may vary. Explicitly native, or every redirect is loopback http. */
  native: boolean;
  jwks?: Jwks;
  jwks_uri?: string;
  /** Unix seconds (registered clients). */
  client_id_issued_at?: number;
  /** Simulated ms until which a document's copy is used (documents). */
  cached_until?: number;
}

/** A document "published" at an https address (PUT /_sim/oauth/documents): what a fetch of it would answer. */
export interface Published {
  url: string;
  status: number;
  body: string;
  content_type: string;
  cache_control: string | null;
  /** The `Expires` header (an HTTP date), read when `cache_control` has no max-age. */
  expires: string | null;
  location: string | null;
}

export interface Pending {
  id: string;
  client_id: string;
  account_id: string;
  redirect_uri: string;
  scopes: string[];
  state: string | null;
  code_challenge: string;
  resource: string;
  issuer: string;
  expires_at: number;
}

export interface Code {
  code: string;
  client_id: string;
  grant_id: string;
  redirect_uri: string;
  scopes: string[];
  code_challenge: string;
  resource: string;
  expires_at: number;
  used: boolean;
}

export interface Grant {
  id: string;
  client_id: string;
  account_id: string;
  scopes: string[];
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
  revoked_reason: string | null;
  /** Monthly spend limit in centi-credits (402 grant_spend_limit_reached); null: none. */
  spend_limit_cc: number | null;
  /** Spent before what the simulator counts from its generations (set through the control interface). */
  spent_base_cc: number;
}

/** What an access token and a refresh token both record of their grant. */
interface IssuedToken {
  token: string;
  grant_id: string;
  client_id: string;
  scopes: string[];
  /** `{base_url}/v1`: the only resource the token is valid for. */
  resource: string;
  expires_at: number;
  revoked: boolean;
}

export type AccessToken = IssuedToken;

export interface RefreshToken extends IssuedToken {
  /** When it was exchanged (rotated); null while it is the latest. */
  used_at: number | null;
}

export interface Counter {
  start: number;
  count: number;
}

export interface OAuthState {
  clients: Map<string, ClientRecord>;
  documents: Map<string, Published>;
  pending: Map<string, Pending>;
  codes: Map<string, Code>;
  grants: Map<string, Grant>;
  access: Map<string, AccessToken>;
  refresh: Map<string, RefreshToken>;
  /** `<client_id> <jti>` of client assertions seen, with their expiry (real ms). */
  jtis: Map<string, number>;
  registrations: { byIp: Map<string, Counter>; total: Counter | null };
  autoConsent: string | null;
}

export function emptyOAuth(options: ResolvedOAuthOptions): OAuthState {
  return {
    clients: new Map(),
    documents: new Map(),
    pending: new Map(),
    codes: new Map(),
    grants: new Map(),
    access: new Map(),
    refresh: new Map(),
    jtis: new Map(),
    registrations: { byIp: new Map(), total: null },
    autoConsent: options.autoConsent,
  };
}
