// clientMetadataDocument() and register() refuse what the authorization server refuses,
// before anything is published or sent: the document's address and content (OAUTH-5), the
// metadata table (OAUTH-4) and the redirect address rules (OAUTH-7). Each case is then
// published to the simulator's authorization server and used in an authorization
// request: the server must refuse exactly the documents the client refuses, and accept the
// ones it accepts (every answer checked against the contract).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClientMetadataDocument } from "../../src/client/index.ts";
import { ClientMetadataError, clientMetadataDocument, discover, documentClient, register } from "../../src/client/oauth/index.ts";
import { checkAnswer, matchOperation } from "../../src/contract/index.ts";
import { simulated, type Simulated } from "./support/simulator.ts";

type Doc = Record<string, unknown>;
const REDIRECT = "https://app.example/oauth/callback";
const PUBLIC_KEY = { kty: "EC", crv: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0" };
let n = 0;
/** A valid document at a fresh address (the simulator caches documents by address). */
const base = (extra: Doc = {}): Doc => {
  const client_id = `https://app.example/clients/${++n}/client.json`;
  return { client_id, redirect_uris: [REDIRECT], client_name: "App", ...extra };
};
const at = (client_id: string, extra: Doc = {}): Doc => ({ ...base(), client_id, ...extra });

interface Case {
  rule: string;
  what: string;
  doc: Doc;
  /** The field the error names; undefined when the document is accepted. */
  field?: string;
  /** Why the simulator accepts this document although the seed refuses it (reported; not compared). */
  clientOnly?: string;
}

const refused: Case[] = [
  // OAUTH-5: the document's address, as the string the server compares byte for byte.
  { rule: "OAUTH-5", what: "an http address", doc: at("http://app.example/oauth/client.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "an upper-case scheme (not the contract's https://)", doc: at("HTTPS://app.example/oauth/upper.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "a fragment", doc: at("https://app.example/oauth/client.json#main"), field: "client_id" },
  { rule: "OAUTH-5", what: "an empty fragment (new URL drops it)", doc: at("https://app.example/oauth/empty-fragment.json#"), field: "client_id" },
  { rule: "OAUTH-5", what: "userinfo", doc: at("https://user:pw@app.example/oauth/client.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "an empty userinfo (new URL drops it)", doc: at("https://@app.example/oauth/client.json"), field: "client_id", clientOnly: "the simulator reads userinfo through new URL, which drops an empty one" },
  { rule: "OAUTH-5", what: "no path", doc: at("https://app.example"), field: "client_id" },
  { rule: "OAUTH-5", what: "the root path", doc: at("https://app.example/"), field: "client_id" },
  { rule: "OAUTH-5", what: "a query without a path", doc: at("https://app.example?client=1"), field: "client_id" },
  { rule: "OAUTH-5", what: "a .. segment (new URL removes it)", doc: at("https://app.example/oauth/../client.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "a . segment", doc: at("https://app.example/./oauth/client.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "a percent-encoded .. segment", doc: at("https://app.example/oauth/%2E%2e/client.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "a half-encoded .. segment", doc: at("https://app.example/oauth/.%2e/client.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "a trailing .. segment", doc: at("https://app.example/oauth/.."), field: "client_id" },
  { rule: "OAUTH-5", what: "a space (not an RFC 3986 address)", doc: at("https://app.example/oauth/my client.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "a loopback IPv4 host", doc: at("https://127.0.0.1/oauth/client.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "a loopback host in short form (127.1)", doc: at("https://127.1/oauth/client.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "a loopback host as one number", doc: at("https://2130706433/oauth/client.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "localhost", doc: at("https://localhost/oauth/client.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "localhost as a fully qualified name (trailing dot)", doc: at("https://localhost./oauth/client.json"), field: "client_id", clientOnly: "the simulator compares the host name without removing the root label's dot" },
  { rule: "OAUTH-5", what: "a .localhost name", doc: at("https://app.localhost/oauth/client.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "a loopback IPv6 host", doc: at("https://[::1]/oauth/client.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "an IPv4-mapped loopback host", doc: at("https://[::ffff:127.0.0.1]/oauth/client.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "the unspecified address", doc: at("https://0.0.0.0/oauth/client.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "a private 10/8 host", doc: at("https://10.1.2.3/oauth/client.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "a private 172.16/12 host", doc: at("https://172.31.0.9/oauth/client.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "a private 192.168/16 host", doc: at("https://192.168.1.10/oauth/client.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "a link-local host (cloud metadata)", doc: at("https://169.254.169.254/oauth/client.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "a shared-address (CGNAT) host", doc: at("https://100.64.0.1/oauth/client.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "a unique-local IPv6 host", doc: at("https://[fd00::1]/oauth/client.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "a link-local IPv6 host", doc: at("https://[fe80::1]/oauth/client.json"), field: "client_id" },
  { rule: "OAUTH-5", what: "a multicast host", doc: at("https://224.0.0.1/oauth/client.json"), field: "client_id", clientOnly: "the simulator's list of internal addresses has no multicast or reserved ranges" },
  { rule: "OAUTH-5", what: "a client_secret", doc: base({ client_secret: "s3cret" }), field: "client_secret" },
  { rule: "OAUTH-5", what: "a client_secret_expires_at", doc: base({ client_secret_expires_at: 0 }), field: "client_secret_expires_at" },
  { rule: "OAUTH-5", what: "an http jwks_uri", doc: base({ token_endpoint_auth_method: "private_key_jwt", jwks_uri: "http://app.example/jwks.json" }), field: "jwks_uri" },
  { rule: "OAUTH-5", what: "an http client_uri", doc: base({ client_uri: "http://app.example/" }), field: "client_uri" },
  { rule: "OAUTH-5", what: "an http logo_uri", doc: base({ logo_uri: "http://app.example/logo.png" }), field: "logo_uri" },
  { rule: "OAUTH-5", what: "an http policy_uri", doc: base({ policy_uri: "http://app.example/privacy" }), field: "policy_uri" },
  { rule: "OAUTH-5", what: "an http tos_uri", doc: base({ tos_uri: "http://app.example/terms" }), field: "tos_uri" },
  { rule: "OAUTH-5", what: "a relative logo_uri", doc: base({ logo_uri: "/logo.png" }), field: "logo_uri" },
  // OAUTH-4: the metadata table.
  { rule: "OAUTH-4", what: "no redirect_uris", doc: { client_id: "https://app.example/no-redirects/client.json" }, field: "redirect_uris" },
  { rule: "OAUTH-4", what: "empty redirect_uris", doc: base({ redirect_uris: [] }), field: "redirect_uris" },
  { rule: "OAUTH-4", what: "private_key_jwt without jwks or jwks_uri", doc: base({ token_endpoint_auth_method: "private_key_jwt" }), field: "jwks" },
  { rule: "OAUTH-4", what: "jwks and jwks_uri together (private_key_jwt)", doc: base({ token_endpoint_auth_method: "private_key_jwt", jwks: { keys: [PUBLIC_KEY] }, jwks_uri: "https://app.example/jwks.json" }), field: "jwks_uri" },
  { rule: "OAUTH-4", what: "jwks and jwks_uri together (none)", doc: base({ jwks: { keys: [PUBLIC_KEY] }, jwks_uri: "https://app.example/jwks.json" }), field: "jwks_uri" },
  { rule: "OAUTH-4", what: "a private key in jwks", doc: base({ token_endpoint_auth_method: "private_key_jwt", jwks: { keys: [{ ...PUBLIC_KEY, d: "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI" }] } }), field: "jwks.keys[0]" },
  { rule: "OAUTH-4", what: "a symmetric key in jwks", doc: base({ token_endpoint_auth_method: "private_key_jwt", jwks: { keys: [{ kty: "oct", k: "c2VjcmV0" }] } }), field: "jwks.keys[0]" },
  { rule: "OAUTH-4", what: "a jwks that is not a key set", doc: base({ token_endpoint_auth_method: "private_key_jwt", jwks: [PUBLIC_KEY] }), field: "jwks" },
  { rule: "OAUTH-4 OAUTH-3", what: "a shared-secret method", doc: base({ token_endpoint_auth_method: "client_secret_basic" }), field: "token_endpoint_auth_method" },
  { rule: "OAUTH-4", what: "a response type other than code", doc: base({ response_types: ["token"] }), field: "response_types" },
  { rule: "OAUTH-4", what: "an unknown application_type", doc: base({ application_type: "browser" }), field: "application_type" },
  { rule: "OAUTH-4", what: "grant_types without authorization_code", doc: base({ grant_types: ["refresh_token"] }), field: "grant_types" },
  { rule: "OAUTH-4", what: "a client_name that is not a string", doc: base({ client_name: 42 }), field: "client_name" },
  { rule: "OAUTH-4", what: "contacts that are not strings", doc: base({ contacts: [{ email: "dev@app.example" }] }), field: "contacts" },
  // OAUTH-7: redirect addresses.
  { rule: "OAUTH-7", what: "an http redirect on a public host", doc: base({ redirect_uris: ["http://app.example/cb"] }), field: "redirect_uris[0]" },
  { rule: "OAUTH-7", what: "an http redirect on another loopback address", doc: base({ redirect_uris: ["http://127.0.0.2/cb"] }), field: "redirect_uris[0]" },
  { rule: "OAUTH-7", what: "an http redirect whose host only starts like localhost", doc: base({ redirect_uris: ["http://localhost.app.example/cb"] }), field: "redirect_uris[0]" },
  { rule: "OAUTH-7", what: "an http redirect with userinfo before a public host", doc: base({ redirect_uris: ["http://127.0.0.1@app.example/cb"] }), field: "redirect_uris[0]" },
  { rule: "OAUTH-7", what: "an upper-case HTTP redirect", doc: base({ redirect_uris: ["HTTP://localhost/cb"] }), field: "redirect_uris[0]" },
  { rule: "OAUTH-7", what: "a custom scheme", doc: base({ redirect_uris: ["com.example.app:/oauth/cb"] }), field: "redirect_uris[0]" },
  { rule: "OAUTH-7", what: "a fragment", doc: base({ redirect_uris: [REDIRECT, "https://app.example/cb#done"] }), field: "redirect_uris[1]" },
  { rule: "OAUTH-7", what: "an empty fragment", doc: base({ redirect_uris: ["http://localhost:8080/cb#"] }), field: "redirect_uris[0]" },
  { rule: "OAUTH-7", what: "a relative address", doc: base({ redirect_uris: ["/oauth/callback"] }), field: "redirect_uris[0]" },
];

const accepted: Case[] = [
  { rule: "OAUTH-4", what: "the two required fields only", doc: { client_id: "https://app.example/minimal/client.json", redirect_uris: [REDIRECT] } },
  {
    rule: "OAUTH-4 OAUTH-5",
    what: "every optional field, URL fields https",
    doc: base({ grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], application_type: "web", client_uri: "https://app.example/", logo_uri: "https://cdn.app.example/logo.png", policy_uri: "https://app.example/privacy", tos_uri: "https://app.example/terms", contacts: ["dev@app.example"] }),
  },
  { rule: "OAUTH-4", what: "grant types the server drops beside authorization_code", doc: base({ grant_types: ["authorization_code", "implicit"] }) },
  { rule: "OAUTH-4", what: "private_key_jwt with a public jwks", doc: base({ token_endpoint_auth_method: "private_key_jwt", jwks: { keys: [PUBLIC_KEY] } }) },
  { rule: "OAUTH-4", what: "private_key_jwt with an https jwks_uri", doc: base({ token_endpoint_auth_method: "private_key_jwt", jwks_uri: "https://app.example/jwks.json" }) },
  { rule: "OAUTH-5", what: "a port, a query and a percent-encoded path", doc: at("https://app.example:8443/o%20auth/client.json?v=2") },
  { rule: "OAUTH-5", what: "a public IPv4 host", doc: at("https://203.0.113.7/oauth/client.json") },
  { rule: "OAUTH-5", what: "a segment that only contains dots among other characters", doc: at("https://app.example/.well-known/..client.json") },
  { rule: "OAUTH-7", what: "loopback http redirects on each host, with ports and a query", doc: base({ application_type: "native", redirect_uris: ["http://localhost:8080/cb", "http://127.0.0.1/cb?x=1", "http://[::1]:9000/cb", "http://127.0.0.1"] }) },
  { rule: "OAUTH-7", what: "an https redirect with a port and a query", doc: base({ redirect_uris: ["https://app.example:8443/cb?from=doc"] }) },
];

describe("clientMetadataDocument: what the authorization server refuses is refused before publishing", () => {
  for (const c of refused) {
    it(`${c.rule}: refuses ${c.what} (${c.field})`, () => {
      const error = (() => {
        try {
          clientMetadataDocument(c.doc as ClientMetadataDocument);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(ClientMetadataError);
      expect(error).toBeInstanceOf(TypeError);
      expect((error as ClientMetadataError).field).toBe(c.field);
      expect((error as Error).message).toMatch(new RegExp(`^${c.field!.replace(/[[\]]/g, "\\$&")}: `));
      // documentClient holds the same rules: a refused document is never used as a client.
      expect(() => documentClient(c.doc as ClientMetadataDocument)).toThrow(ClientMetadataError);
    });
  }
  for (const c of accepted) {
    it(`${c.rule}: accepts ${c.what}`, () => {
      expect(clientMetadataDocument(c.doc as ClientMetadataDocument)).toBe(c.doc);
    });
  }

  it("OAUTH-5: the client_id stays the string as given, byte for byte", () => {
    const doc = clientMetadataDocument({ client_id: "https://App.Example:443/oauth/Client.json", redirect_uris: [REDIRECT] });
    expect(doc.client_id).toBe("https://App.Example:443/oauth/Client.json");
    expect(documentClient(doc).client.client_id).toBe("https://App.Example:443/oauth/Client.json");
  });

  it("OAUTH-5: the error says what to fix", () => {
    expect(() => clientMetadataDocument(at("https://app.example/oauth/../client.json") as ClientMetadataDocument)).toThrow(/client_id: must not contain \. or \.\. segments/);
    expect(() => clientMetadataDocument(at("https://10.0.0.1/c.json") as ClientMetadataDocument)).toThrow(/client_id: the host 10\.0\.0\.1 is not a public address/);
    expect(() => clientMetadataDocument(base({ token_endpoint_auth_method: "private_key_jwt" }) as ClientMetadataDocument)).toThrow("jwks: a private_key_jwt client needs jwks or jwks_uri");
  });
});

describe("the simulator's authorization server agrees", () => {
  let env: Simulated;
  const violations: string[] = [];
  beforeAll(async () => {
    env = await simulated({ oauth: { autoConsent: "acc_demo" } });
  });
  afterAll(async () => {
    await env.sim.close();
    expect(violations).toEqual([]);
  });

  /** Publishes the document at its own address (when the control route takes it) and asks for an authorization with it. */
  async function authorize(doc: Doc): Promise<number> {
    const url = String(doc.client_id);
    if (url.startsWith("https://")) await env.control("PUT", "oauth/documents", { url, document: doc });
    const redirect = Array.isArray(doc.redirect_uris) && typeof doc.redirect_uris[0] === "string" ? doc.redirect_uris[0] : REDIRECT;
    const q = new URLSearchParams({ response_type: "code", client_id: url, redirect_uri: redirect, scope: "me:read", state: "s", code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256" });
    const res = await fetch(`${env.sim.url}/oauth/authorize?${q}`, { redirect: "manual", headers: { accept: "application/json" } });
    const match = matchOperation("GET", "/oauth/authorize")!;
    for (const v of checkAnswer(match.operation, { status: res.status, headers: res.headers, body: await res.text() })) violations.push(`${url}: ${v.where}: ${v.message}`);
    return res.status;
  }

  it("OAUTH-4 OAUTH-5 OAUTH-7 OAUTH-11: every document the client refuses makes an unknown client (400, shown to the user)", async () => {
    const answers: Record<string, number> = {};
    for (const c of refused.filter((x) => !x.clientOnly)) answers[c.what] = await authorize(c.doc);
    expect(answers).toEqual(Object.fromEntries(refused.filter((x) => !x.clientOnly).map((c) => [c.what, 400])));
  });

  it("OAUTH-4 OAUTH-5 OAUTH-7 OAUTH-10: every document the client accepts is a client (303 back with a code)", async () => {
    const answers: Record<string, number> = {};
    for (const c of accepted) answers[c.what] = await authorize(c.doc);
    expect(answers).toEqual(Object.fromEntries(accepted.map((c) => [c.what, 303])));
  });

  it("OAUTH-6 OAUTH-7: register() refuses a bad redirect address or key rule before sending anything", async () => {
    const server = await discover(env.sim.url, { allowHttp: true });
    const before = (await env.control("GET", "oauth")) as { clients: unknown[] };
    for (const metadata of [
      { redirect_uris: ["http://app.example/cb"] },
      { redirect_uris: ["https://app.example/cb#x"] },
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: "private_key_jwt" },
      { redirect_uris: [REDIRECT], jwks: { keys: [PUBLIC_KEY] }, jwks_uri: "https://app.example/jwks.json" },
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: "private_key_jwt", jwks_uri: "http://app.example/jwks.json" },
    ]) {
      await expect(register(server, metadata as never)).rejects.toBeInstanceOf(ClientMetadataError);
    }
    expect(env.answers.filter((a) => a.startsWith("POST /oauth/register"))).toEqual([]);
    expect(((await env.control("GET", "oauth")) as { clients: unknown[] }).clients).toHaveLength(before.clients.length);
  });
});
