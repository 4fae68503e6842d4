// Helpers for the site side of the simulator (session cookie, subscription actions,
// OAuth): requests that do not follow redirects, with every answer of a contract
// operation checked by checkAnswer, the 303 of the authorization checked against its
// redirect query schema, and the small flows the tests repeat (sign in, register,
// authorize, consent, exchange).
import { createHash, randomBytes } from "node:crypto";
import { expect } from "vitest";
import { checkAnswer, matchOperation, schemaValidator, validatorAt } from "../../../src/contract/index.ts";
import type { Sim } from "./harness.ts";

export interface SiteReply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
  location: string | null;
}

export interface SiteOptions {
  headers?: Record<string, string>;
  /** A JSON body. */
  json?: unknown;
  /** A form body (application/x-www-form-urlencoded). */
  form?: Record<string, string> | [string, string][];
  /** Sent as is. */
  raw?: string;
  /** Known departures from the contract this answer may show (exact messages). */
  expectViolations?: string[];
}

const envelopeValid = schemaValidator("ErrorEnvelope");
const redirectQueryValid = validatorAt("#/paths/~1oauth~1authorize/get/responses/303/x-redirect-query");

/** One request, redirects not followed; the answer is checked against the contract. */
export async function site(sim: Sim, method: string, path: string, options: SiteOptions = {}): Promise<SiteReply> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers["content-type"] ??= "application/json";
  } else if (options.form !== undefined) {
    body = new URLSearchParams(options.form as Record<string, string>).toString();
    headers["content-type"] ??= "application/x-www-form-urlencoded";
  } else if (options.raw !== undefined) body = options.raw;
  const url = sim.url + path;
  const res = await fetch(url, { method, headers, body, redirect: "manual" });
  const text = await res.text();
  const match = matchOperation(method, new URL(url).pathname);
  if (match) {
    const violations = checkAnswer(match.operation, { status: res.status, headers: res.headers, body: text }).map((v) => v.message);
    expect(violations, `${method} ${path} -> ${res.status}: ${text.slice(0, 300)}`).toEqual(options.expectViolations ?? []);
    if (match.operation.operationId === "authorize" && res.status === 303) {
      const query = Object.fromEntries(new URL(res.headers.get("location")!).searchParams);
      expect(redirectQueryValid(query), `redirect query ${JSON.stringify(query)}`).toBe(true);
    }
  } else if (res.status >= 400 && (res.headers.get("content-type") ?? "").includes("json")) {
    expect(envelopeValid(JSON.parse(text)), `${method} ${path}: ${text}`).toBe(true);
  }
  let json: unknown;
  if ((res.headers.get("content-type") ?? "").includes("json") && text) json = JSON.parse(text);
  return { status: res.status, headers: res.headers, text, json, location: res.headers.get("location") };
}

/** Signs in through POST /site/sign-in; answers the Cookie header value. */
export async function signIn(sim: Sim, accountId = "acc_demo"): Promise<string> {
  const r = await site(sim, "POST", "/site/sign-in", { json: { account_id: accountId } });
  expect(r.status).toBe(200);
  return r.json.cookie as string;
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export const REDIRECT = "http://127.0.0.1:53682/callback";
export const WEB_REDIRECT = "https://app.example/oauth/callback";

export async function register(sim: Sim, metadata: Record<string, unknown>): Promise<SiteReply> {
  return site(sim, "POST", "/oauth/register", { json: metadata });
}

export async function registered(sim: Sim, metadata: Record<string, unknown> = {}): Promise<string> {
  const r = await register(sim, { redirect_uris: [REDIRECT], client_name: "Test app", ...metadata });
  expect(r.status, r.text).toBe(201);
  return r.json.client_id as string;
}

export interface AuthorizeParams {
  client_id: string;
  redirect_uri?: string;
  scope?: string;
  state?: string;
  resource?: string;
  challenge?: string;
  method?: string;
  response_type?: string;
}

export function authorizePath(p: AuthorizeParams): string {
  const q = new URLSearchParams({
    response_type: p.response_type ?? "code",
    client_id: p.client_id,
    redirect_uri: p.redirect_uri ?? REDIRECT,
    scope: p.scope ?? "me:read generations:read",
    state: p.state ?? "st-1",
    code_challenge: p.challenge ?? pkce().challenge,
    code_challenge_method: p.method ?? "S256",
  });
  if (p.resource !== undefined) q.set("resource", p.resource);
  return `/oauth/authorize?${q}`;
}

export async function authorize(sim: Sim, p: AuthorizeParams, cookie?: string, accept?: string): Promise<SiteReply> {
  const headers: Record<string, string> = {};
  if (cookie) headers.cookie = cookie;
  if (accept) headers.accept = accept;
  return site(sim, "GET", authorizePath(p), { headers });
}

/** The query of a 303 back to the application. */
export function callbackOf(r: SiteReply): Record<string, string> {
  expect(r.status, r.text).toBe(303);
  return Object.fromEntries(new URL(r.location!).searchParams);
}

export function consentIdOf(html: string): string {
  const m = /name="consent_id" value="([^"]+)"/.exec(html);
  expect(m, "a consent form").not.toBeNull();
  return m![1]!;
}

/** Answers the consent screen (as the form would post it). */
export async function consent(sim: Sim, cookie: string, html: string, decision: "allow" | "deny", scopes?: string[]): Promise<SiteReply> {
  const checked = scopes ?? [...html.matchAll(/name="scope" value="([^"]+)" checked/g)].map((m) => m[1]!);
  const form: [string, string][] = [["consent_id", consentIdOf(html)], ["decision", decision], ...checked.map((s): [string, string] => ["scope", s])];
  return site(sim, "POST", "/site/oauth/consent", { headers: { cookie }, form });
}

export async function token(sim: Sim, form: Record<string, string>, expectViolations?: string[]): Promise<SiteReply> {
  return site(sim, "POST", "/oauth/token", { form, expectViolations });
}

/** Registration, auto-consent as the account, code exchange: the token reply. */
export async function tokensFor(sim: Sim, options: { accountId?: string; scope?: string; metadata?: Record<string, unknown> } = {}): Promise<{ clientId: string; reply: any }> {
  const clientId = await registered(sim, options.metadata);
  await sim.control("POST", "oauth/auto-consent", { account_id: options.accountId ?? "acc_demo" });
  const { verifier, challenge } = pkce();
  const cb = callbackOf(await authorize(sim, { client_id: clientId, challenge, scope: options.scope ?? "me:read generations:read generations:write models:read" }));
  await sim.control("POST", "oauth/auto-consent", { account_id: null });
  const r = await token(sim, { grant_type: "authorization_code", code: cb.code!, redirect_uri: REDIRECT, code_verifier: verifier, client_id: clientId });
  expect(r.status, r.text).toBe(200);
  return { clientId, reply: r.json };
}
