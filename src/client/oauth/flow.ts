// OAuth 2.1 for applications, on oauth4webapi: discovery (RFC 8414, RFC 9728), a
// client_id (client ID metadata document, or dynamic registration, RFC 7591), the PKCE
// authorization URL, the code exchange and revocation. Only the authorization-code
// flow with PKCE (S256) and refresh tokens exists on this server.
import * as oauth from "oauth4webapi";
import type { ClientMetadataDocument, ClientRegistrationRequest, Scope } from "../../../generated/types.ts";
import { checkClientMetadata, checkMetadataDocument } from "./metadata.ts";

export type OAuthFetch = (url: string, init: RequestInit) => Promise<Response>;

export interface OAuthHttpOptions {
  /** The fetch to use; by default `globalThis.fetch`, looked up on every call. */
  fetch?: OAuthFetch;
  /** Allow `http:` addresses (a local simulator only; never in production). */
  allowHttp?: boolean;
}

/** What discovery found: the authorization server and the protected resource `{base_url}/v1`. */
export interface HubOAuthServer {
  as: oauth.AuthorizationServer;
  /** The protected resource metadata of `{base_url}/v1`. */
  resource: oauth.ResourceServer;
  /** `{base_url}/v1`, the `resource` tokens are for. */
  resourceId: string;
  http: HttpOptionsInternal;
}

/** A fetch that serves every request oauth4webapi makes (GET discovery, POST token, ...). */
type AnyCustomFetch = (url: string, options: { method: string; headers: Record<string, string>; body?: unknown; redirect: "manual"; signal?: AbortSignal }) => Promise<Response>;

export type HttpOptionsInternal = {
  [oauth.customFetch]: AnyCustomFetch;
  [oauth.allowInsecureRequests]?: boolean;
};

/** A client as oauth4webapi knows it, plus how it authenticates at the token route. */
export interface HubOAuthClient {
  client: oauth.Client;
  auth: oauth.ClientAuth;
}

export function httpOptions(options: OAuthHttpOptions = {}): HttpOptionsInternal {
  const f = options.fetch;
  return {
    [oauth.customFetch]: (url, init) => (f ?? ((u: string, i: RequestInit) => globalThis.fetch(u, i)))(url, init as RequestInit),
    ...(options.allowHttp ? { [oauth.allowInsecureRequests]: true } : {}),
  };
}

/** Reads `/.well-known/oauth-authorization-server` and `/.well-known/oauth-protected-resource/v1`. */
export async function discover(baseUrl: string, options: OAuthHttpOptions = {}): Promise<HubOAuthServer> {
  const http = httpOptions(options);
  const issuer = new URL(baseUrl);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...http, algorithm: "oauth2" }));
  const resourceUrl = new URL(`${baseUrl.replace(/\/+$/, "")}/v1`);
  const resource = await oauth.processResourceDiscoveryResponse(resourceUrl, await oauth.resourceDiscoveryRequest(resourceUrl, http));
  return { as, resource, resourceId: resource.resource, http };
}

/**
 * The client ID metadata document to publish at `doc.client_id` (the preferred way to
 * get a client_id), returned unchanged once it keeps every rule the authorization server
 * checks: the address (https, a host that is not loopback or internal, a path without
 * `.`/`..` segments, no fragment or userinfo, all on the string as given, which is the
 * client_id byte for byte), no client secret, every URL field https, the redirect
 * address rules, and `jwks` or `jwks_uri` (never both; one for `private_key_jwt`).
 * Throws `ClientMetadataError` naming the field.
 */
export function clientMetadataDocument(doc: ClientMetadataDocument): ClientMetadataDocument {
  checkMetadataDocument(doc as unknown as Record<string, unknown>);
  return doc;
}

/** A client identified by its metadata document address (a public `none` client unless a key is given). */
export function documentClient(doc: ClientMetadataDocument, privateKey?: CryptoKey): HubOAuthClient {
  checkMetadataDocument(doc as unknown as Record<string, unknown>);
  return clientOf({ client_id: doc.client_id, token_endpoint_auth_method: doc.token_endpoint_auth_method ?? "none" }, privateKey);
}

/** Registers a client through `POST /oauth/register` (RFC 7591); no client secret is ever issued. */
export async function register(server: HubOAuthServer, metadata: ClientRegistrationRequest, privateKey?: CryptoKey): Promise<HubOAuthClient> {
  checkClientMetadata(metadata as unknown as Record<string, unknown>);
  const response = await oauth.dynamicClientRegistrationRequest(server.as, metadata as Partial<oauth.Client>, server.http);
  const client = await oauth.processDynamicClientRegistrationResponse(response);
  return clientOf(client, privateKey);
}

function clientOf(client: oauth.Client, privateKey?: CryptoKey): HubOAuthClient {
  if (client.token_endpoint_auth_method === "private_key_jwt") {
    if (!privateKey) throw new TypeError("A private_key_jwt client needs its private key");
    return { client, auth: oauth.PrivateKeyJwt(privateKey) };
  }
  return { client, auth: oauth.None() };
}

export interface AuthorizationRequest {
  /** Send the user's browser here. */
  url: URL;
  /** Keep until the callback: the PKCE verifier and the state. */
  codeVerifier: string;
  state: string;
  redirectUri: string;
}

/** The authorization URL with PKCE (S256), `state` and `resource`. */
export async function authorizationUrl(
  server: HubOAuthServer,
  client: HubOAuthClient,
  options: { redirectUri: string; scope: readonly Scope[] | string; state?: string },
): Promise<AuthorizationRequest> {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = options.state ?? oauth.generateRandomState();
  const url = new URL(server.as.authorization_endpoint!);
  const scope = typeof options.scope === "string" ? options.scope : options.scope.join(" ");
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: client.client.client_id,
    redirect_uri: options.redirectUri,
    scope,
    resource: server.resourceId,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
  }).toString();
  return { url, codeVerifier, state, redirectUri: options.redirectUri };
}

/** The tokens of a grant, as the token store keeps them. */
export interface TokenSet {
  access_token: string;
  refresh_token?: string;
  /** Epoch milliseconds when the access token expires (from `expires_in`). */
  expires_at?: number;
  /** What the user really granted (space-separated). */
  scope?: string;
  token_type: string;
}

export function toTokenSet(reply: oauth.TokenEndpointResponse, previous?: TokenSet, now = Date.now()): TokenSet {
  return {
    access_token: reply.access_token,
    refresh_token: reply.refresh_token ?? previous?.refresh_token,
    expires_at: reply.expires_in !== undefined ? now + reply.expires_in * 1000 : undefined,
    scope: reply.scope ?? previous?.scope,
    token_type: reply.token_type,
  };
}

/**
 * Exchanges the code of the callback (`callbackUrl` as the browser arrived at it) for
 * tokens: checks `state` and `iss`, sends the PKCE verifier and the resource.
 */
export async function exchangeCode(server: HubOAuthServer, client: HubOAuthClient, request: AuthorizationRequest, callbackUrl: URL | string): Promise<TokenSet> {
  const params = oauth.validateAuthResponse(server.as, client.client, new URL(callbackUrl), request.state);
  const response = await oauth.authorizationCodeGrantRequest(server.as, client.client, client.auth, params, request.redirectUri, request.codeVerifier, {
    ...server.http,
    additionalParameters: { resource: server.resourceId },
  });
  return toTokenSet(await oauth.processAuthorizationCodeResponse(server.as, client.client, response));
}

/** Revokes one token (RFC 7009); the grant remains. */
export async function revoke(server: HubOAuthServer, client: HubOAuthClient, token: string, hint?: "refresh_token" | "access_token"): Promise<void> {
  const response = await oauth.revocationRequest(server.as, client.client, client.auth, token, {
    ...server.http,
    ...(hint ? { additionalParameters: { token_type_hint: hint } } : {}),
  });
  await oauth.processRevocationResponse(response);
}
