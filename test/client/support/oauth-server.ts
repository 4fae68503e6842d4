// A fake authorization server for the OAuth tests: discovery, registration, an
// authorization endpoint that consents at once (303 with code, state, iss), the token
// route with PKCE checks and refresh rotation (reuse revokes the grant, except a repeat
// right after an exchange: `invalid_grant`, grant kept), revocation, and `/v1/me`
// guarded by the access token. Answers are checked against the contract.
import { createHash, randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { checkAnswer, matchOperation } from "../../../src/contract/index.ts";
import { account, answer, refuse, serve, type Recorded, type TestServer } from "./server.ts";

interface Grant {
  clientId: string;
  scope: string;
  revoked: boolean;
  latestRefresh: string;
  /** When the latest refresh token was issued by a refresh (ms). */
  rotatedAt: number;
}

export interface FakeAuthServer {
  server: TestServer;
  url: string;
  tokenRequests: URLSearchParams[];
  grants: Grant[];
  /** Delay the token route's answers (ms), to hold a refresh in flight. */
  tokenDelay: number;
  /** Access tokens that `/v1/me` refuses with `invalid_token`. */
  rejectedAccess: Set<string>;
  expiresIn: number;
}

const b64url = (b: Buffer) => b.toString("base64url");

export async function fakeAuthServer(options: { parallelWindowMs?: number } = {}): Promise<FakeAuthServer> {
  const codes = new Map<string, { clientId: string; redirectUri: string; challenge: string; scope: string; resource: string }>();
  const refresh = new Map<string, Grant>();
  const access = new Map<string, Grant>();
  const used = new Set<string>();
  const state: FakeAuthServer = { server: undefined as never, url: "", tokenRequests: [], grants: [], tokenDelay: 0, rejectedAccess: new Set(), expiresIn: 3600 };
  const window = options.parallelWindowMs ?? 2_000;

  const issue = (grant: Grant, res: ServerResponse) => {
    const at = `at_${b64url(randomBytes(9))}`;
    const rt = `rt_${b64url(randomBytes(9))}`;
    access.set(at, grant);
    refresh.set(rt, grant);
    grant.latestRefresh = rt;
    grant.rotatedAt = Date.now();
    const reply = { access_token: at, token_type: "Bearer", expires_in: state.expiresIn, refresh_token: rt, scope: grant.scope };
    setTimeout(() => answer(res, 200, reply), state.tokenDelay);
  };
  const oauthError = (res: ServerResponse, status: number, error: string) => answer(res, status, { error, error_description: error });

  const server = await serve((req, res) => {
    const base = state.url;
    if (req.path === "/.well-known/oauth-authorization-server") {
      return answer(res, 200, {
        issuer: base,
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/oauth/token`,
        revocation_endpoint: `${base}/oauth/revoke`,
        registration_endpoint: `${base}/oauth/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none", "private_key_jwt"],
        scopes_supported: ["me:read", "generations:read", "generations:write"],
        client_id_metadata_document_supported: true,
      });
    }
    if (req.path === "/.well-known/oauth-protected-resource/v1") {
      return answer(res, 200, { resource: `${base}/v1`, authorization_servers: [base], scopes_supported: ["me:read", "generations:read"], bearer_methods_supported: ["header"] });
    }
    if (req.path === "/oauth/register") {
      const body = JSON.parse(req.body) as Record<string, unknown>;
      return answer(res, 201, {
        ...body,
        token_endpoint_auth_method: body.token_endpoint_auth_method ?? "none",
        grant_types: body.grant_types ?? ["authorization_code", "refresh_token"],
        response_types: ["code"],
        // A client whose redirect addresses are all loopback http: is treated as native.
        application_type: body.application_type ?? ((body.redirect_uris as string[]).every((u) => u.startsWith("http://127.0.0.1")) ? "native" : "web"),
        client_id: `client_${b64url(randomBytes(6))}`,
        client_id_issued_at: Math.floor(Date.now() / 1000),
      });
    }
    if (req.path === "/oauth/authorize") {
      const q = req.url.searchParams;
      const target = new URL(q.get("redirect_uri")!);
      if (q.get("code_challenge_method") !== "S256" || !q.get("code_challenge")) {
        target.search = new URLSearchParams({ error: "invalid_request", error_description: "PKCE S256 required", state: q.get("state") ?? "", iss: base }).toString();
      } else {
        const code = `code_${b64url(randomBytes(9))}`;
        codes.set(code, { clientId: q.get("client_id")!, redirectUri: q.get("redirect_uri")!, challenge: q.get("code_challenge")!, scope: q.get("scope")!, resource: q.get("resource") ?? "" });
        target.search = new URLSearchParams({ code, state: q.get("state") ?? "", iss: base }).toString();
      }
      return raw(req, res, 303, { Location: target.toString() });
    }
    if (req.path === "/oauth/token") {
      const form = new URLSearchParams(req.body);
      state.tokenRequests.push(form);
      if (form.get("grant_type") === "authorization_code") {
        const code = codes.get(form.get("code") ?? "");
        codes.delete(form.get("code") ?? "");
        const challenge = b64url(createHash("sha256").update(form.get("code_verifier") ?? "").digest());
        if (!code || code.redirectUri !== form.get("redirect_uri") || code.challenge !== challenge || code.clientId !== form.get("client_id")) return oauthError(res, 400, "invalid_grant");
        if (code.resource !== `${base}/v1` || form.get("resource") !== `${base}/v1`) return oauthError(res, 400, "invalid_grant");
        const grant: Grant = { clientId: code.clientId, scope: code.scope, revoked: false, latestRefresh: "", rotatedAt: 0 };
        state.grants.push(grant);
        return issue(grant, res);
      }
      if (form.get("grant_type") === "refresh_token") {
        const token = form.get("refresh_token") ?? "";
        const grant = refresh.get(token);
        if (!grant || grant.revoked) return oauthError(res, 400, "invalid_grant");
        if (used.has(token)) {
          // A repeat right after an exchange (parallel refresh): the loser gets invalid_grant, the grant stays.
          if (Date.now() - grant.rotatedAt > window) grant.revoked = true;
          return oauthError(res, 400, "invalid_grant");
        }
        used.add(token);
        return issue(grant, res);
      }
      return oauthError(res, 400, "unsupported_grant_type");
    }
    if (req.path === "/oauth/revoke") {
      const form = new URLSearchParams(req.body);
      state.tokenRequests.push(form);
      access.delete(form.get("token") ?? "");
      return raw(req, res, 200, {});
    }
    if (req.path === "/v1/me") {
      const token = String(req.headers.authorization ?? "").replace(/^Bearer /, "");
      const grant = access.get(token);
      if (!grant || grant.revoked || state.rejectedAccess.has(token)) {
        return refuse(res, "invalid_token", { headers: { "WWW-Authenticate": `Bearer error="invalid_token", resource_metadata="${base}/.well-known/oauth-protected-resource/v1"` } });
      }
      return answer(res, 200, account());
    }
    refuse(res, "not_found");
  });
  state.server = server;
  state.url = server.url;
  return state;
}

function raw(req: Recorded, res: ServerResponse, status: number, headers: Record<string, string>) {
  const r = res as ServerResponse & { hubViolations: string[] };
  const matched = matchOperation(req.method, req.path);
  if (!matched) r.hubViolations.push(`${req.method} ${req.path} is not an operation`);
  else for (const v of checkAnswer(matched.operation, { status, headers, body: "" })) r.hubViolations.push(`${v.where}: ${v.message}`);
  res.writeHead(status, headers).end();
}
