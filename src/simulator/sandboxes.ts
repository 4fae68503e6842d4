// The sandboxes of a simulator server: each a Hub of its own (its own state and clock,
// faults and rate windows, OAuth server, event streams and journal), made from a scenario,
// so the tests of a parallel suite sharing one simulator never see each other. The
// default hub (`main`) is the one every request reaches that names no sandbox: it behaves
// as a simulator without sandboxes does.
//
// Which hub answers a request (`route`, the front door's `sandbox` step), in this order:
//   1. a key minted in a sandbox (`Bearer ghk_sbx_…`, state/sandbox-keys.ts) names its
//      sandbox by itself;
//   2. otherwise a hint: the base path `/sandboxes/{id}/…` (also the RFC 8414 and RFC 9728
//      discovery paths `/.well-known/oauth-authorization-server/sandboxes/{id}` and
//      `/.well-known/oauth-protected-resource/sandboxes/{id}/v1`), else the header
//      `Hub-Sandbox`, else the cookie `hub_sandbox`; the first present is the hint;
//   3. otherwise the default hub.
// Refused in the API's envelope, never answered by another hub: a sandbox key with the
// hint of another sandbox (401 invalid_api_key), a hint naming a sandbox that never was
// (404 not_found) or that ended, deleted or idle too long (410 gone), a key of a sandbox
// that is no more (401 invalid_api_key).
import { bearerToken } from "./domain/credentials.ts";
import { refuse, type Refusal } from "./domain/refusal.ts";
import { cookieValue } from "./domain/sessions.ts";
import { Hub, type HubOptions } from "./hub.ts";
import type { SimRequest, SimResponse } from "./pipeline/exchange.ts";
import type { SandboxDirectory, SandboxView } from "./pipeline/services.ts";
import { sandboxKeysOf, sandboxOfKey, SANDBOX_ID, type SandboxKeys } from "./state/sandbox-keys.ts";
import type { ScenarioFile } from "./state/scenario/format.ts";
import { ScenarioError } from "./state/scenario/read.ts";
import { isoTime, randomToken } from "./state/util.ts";

/** The routing header and cookie (the base path is `/sandboxes/{id}`). */
export const SANDBOX_HEADER = "hub-sandbox";
export const SANDBOX_COOKIE = "hub_sandbox";
export const SANDBOX_PATH = "/sandboxes/";

const AS_DISCOVERY = "/.well-known/oauth-authorization-server/sandboxes/";
const RS_DISCOVERY = "/.well-known/oauth-protected-resource/sandboxes/";

export interface SandboxLimits {
  /** Sandboxes alive at once; one more is refused (503 service_unavailable). */
  max: number;
  /** Real seconds without a request (and without an open event stream) after which a sandbox ends. */
  idleSeconds: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { max: 50, idleSeconds: 900 };

/** Sandboxes that ended, remembered (the newest) so a hint naming one says so (410) instead of "never was". */
const ENDED_REMEMBERED = 1000;

interface Sandbox {
  readonly id: string;
  readonly hub: Hub;
  readonly handed: SandboxKeys;
  readonly createdAt: number;
  lastUsed: number;
}

/** A request routed to a sandbox: its hub, and the path and base path when it came by the base path. */
export interface Routed {
  hub: Hub;
  /** The path and query after the base path (the raw URL's when the request came by a header, a cookie or a key). */
  url: string | undefined;
  basePath: string | undefined;
}

/** A request the routing refuses, and the hub whose journal records it. */
export interface RouteRefused {
  refusal: Refusal;
  hub: Hub;
}

/** Where a request goes: undefined for the default hub, a sandbox, or a refusal. */
export type Route = undefined | Routed | RouteRefused;

export function isRouteRefused(route: Routed | RouteRefused): route is RouteRefused {
  return "refusal" in route;
}

type Hint = { id: string; by: "base path" | "header" | "cookie"; url?: string; basePath?: string };

/** The hint of a path: `/sandboxes/{id}/…`, and the discovery paths' forms for an issuer or resource under it. */
function pathHint(path: string, url: string): Hint | undefined {
  if (path.startsWith(SANDBOX_PATH)) {
    const end = path.indexOf("/", SANDBOX_PATH.length);
    const id = end < 0 ? path.slice(SANDBOX_PATH.length) : path.slice(SANDBOX_PATH.length, end);
    const basePath = SANDBOX_PATH + id;
    const rest = url.slice(basePath.length);
    return { id, by: "base path", basePath, url: rest === "" || rest.charCodeAt(0) === 63 ? `/${rest}` : rest };
  }
  if (path.charCodeAt(1) !== 46 || !path.startsWith("/.well-known/oauth-")) return undefined;
  const query = url.slice(path.length);
  // RFC 8414: the issuer `{origin}/sandboxes/{id}` has its metadata at this path with the issuer's path appended.
  if (path.startsWith(AS_DISCOVERY)) {
    const id = path.slice(AS_DISCOVERY.length);
    return { id, by: "base path", basePath: SANDBOX_PATH + id, url: `/.well-known/oauth-authorization-server${query}` };
  }
  // RFC 9728: the resource `{origin}/sandboxes/{id}/v1` likewise.
  if (path.startsWith(RS_DISCOVERY)) {
    const rest = path.slice(RS_DISCOVERY.length);
    const slash = rest.indexOf("/");
    const id = slash < 0 ? rest : rest.slice(0, slash);
    return { id, by: "base path", basePath: SANDBOX_PATH + id, url: `/.well-known/oauth-protected-resource${slash < 0 ? "" : rest.slice(slash)}${query}` };
  }
  return undefined;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

const WHERE = { "base path": "its base path /sandboxes/{id}", header: "the Hub-Sandbox header", cookie: "the hub_sandbox cookie" } as const;

export class Sandboxes implements SandboxDirectory {
  /** The default hub: every request that names no sandbox. */
  readonly main: Hub;
  readonly limits: SandboxLimits;
  readonly #options: HubOptions;
  readonly #live = new Map<string, Sandbox>();
  /** Why each of the newest ended sandboxes ended, by id. */
  readonly #ended = new Map<string, string>();
  /** Ends idle sandboxes while there are any (a request naming one also ends it on the spot: route). */
  #sweep: ReturnType<typeof setInterval> | undefined;

  /**
   * The default hub made from `options`, and no sandbox yet. Throws RangeError for a limit
   * that is not a whole number of at least 1 (and what `new Hub(options)` throws). With
   * `main`, that hub made alone is the default one: it manages no sandbox, so a request
   * naming one is refused (a server in front of a hub made alone).
   */
  constructor(options: HubOptions = {}, limits: Partial<SandboxLimits> = {}, main?: Hub) {
    this.limits = { ...DEFAULT_SANDBOX_LIMITS, ...limits };
    for (const [name, value] of Object.entries(this.limits)) {
      if (!Number.isInteger(value) || value < 1) throw new RangeError(`sandboxes: ${name} must be a whole number of at least 1, got ${JSON.stringify(value)}`);
    }
    this.#options = options;
    this.main = main ?? new Hub(options, { sandboxes: this });
  }

  /** A front for a hub made alone: no sandbox is ever made, a request naming one is refused. */
  static alone(hub: Hub): Sandboxes {
    return new Sandboxes(hub.options, {}, hub);
  }

  /** Sandboxes alive now. */
  get size(): number {
    return this.#live.size;
  }

  /** A sandbox's hub by id (undefined when there is none). */
  hubOf(id: string): Hub | undefined {
    return this.#live.get(id)?.hub;
  }

  create(scenario: string | ScenarioFile | undefined): SandboxView | Refusal {
    const now = Date.now();
    this.#expire(now);
    if (this.#live.size >= this.limits.max) {
      const next = this.#nextExpiry(now);
      const wait = next === undefined ? "none is idle now" : `the next idle one ends in ${Math.ceil((next - now) / 1000)} s`;
      return refuse("service_unavailable", {
        message: `This simulator holds ${this.#live.size} sandboxes, its limit (--max-sandboxes, SIM_MAX_SANDBOXES, maxSandboxes): delete one you are done with (DELETE /_sim/sandboxes/{id}; the test fixtures delete theirs after each test), wait for an idle one to end (${wait}), or start the simulator with a higher --max-sandboxes.`,
        ...(next === undefined ? {} : { retryAfter: Math.max(1, Math.ceil((next - now) / 1000)) }),
      });
    }
    let id: string;
    do id = `sbx_${randomToken(12).toLowerCase()}`;
    while (this.#live.has(id) || this.#ended.has(id));
    let hub: Hub;
    try {
      // The server's options (clock, windows, retention, faults, ...) with the sandbox's scenario:
      // the server's starting one unless another is named.
      hub = new Hub(scenario === undefined ? this.#options : { ...this.#options, scenario }, { sandbox: id, sandboxes: this });
    } catch (error) {
      if (error instanceof ScenarioError) return refuse("invalid_request", { details: [...error.details].map((d) => ({ ...d, field: d.field ? `scenario.${d.field}` : "scenario" })) });
      throw error;
    }
    const sandbox: Sandbox = { id, hub, handed: sandboxKeysOf(hub.startingScenario, id).handed, createdAt: now, lastUsed: now };
    this.#live.set(id, sandbox);
    if (this.#sweep === undefined) {
      this.#sweep = setInterval(() => this.#expire(Date.now()), Math.min(60, Math.max(1, this.limits.idleSeconds / 4)) * 1000);
      // Never what keeps the process alive (Node's timers; a browser's are numbers).
      (this.#sweep as { unref?: () => void }).unref?.();
    }
    return this.#view(sandbox);
  }

  list(): SandboxView[] {
    this.#expire(Date.now());
    return [...this.#live.values()].map((s) => this.#view(s));
  }

  find(id: string): SandboxView | Refusal {
    const sandbox = this.#alive(id, Date.now());
    return sandbox ? this.#view(sandbox) : this.#missing(id, "");
  }

  remove(id: string): SandboxView | Refusal {
    const sandbox = this.#alive(id, Date.now());
    if (!sandbox) return this.#missing(id, "");
    const view = this.#view(sandbox);
    this.#end(sandbox, "was deleted");
    return view;
  }

  /**
   * Which hub answers a request (the front door's `sandbox` step): undefined for the
   * default hub (no allocation on that path), a sandbox's hub (with the path after its base
   * path), or the refusal. `path` is the URL's path, `url` the path and query.
   */
  route(path: string, url: string, authorization: string | string[] | undefined, header: string | string[] | undefined, cookie: string | string[] | undefined): Route {
    const auth = typeof authorization === "string" && authorization.includes("ghk_sbx_") ? keySandbox(authorization) : undefined;
    let hint = pathHint(path, url);
    if (hint === undefined) {
      const given = single(header)?.trim();
      if (given) hint = { id: given, by: "header" };
      else if (cookie !== undefined) {
        const jar = Array.isArray(cookie) ? cookie.join("; ") : cookie;
        const value = jar.includes(SANDBOX_COOKIE) ? cookieValue(jar, SANDBOX_COOKIE) : undefined;
        if (value) hint = { id: value, by: "cookie" };
      }
    }
    if (auth === undefined && hint === undefined) return undefined;
    const now = Date.now();
    if (hint === undefined) {
      const sandbox = this.#alive(auth!, now);
      if (!sandbox) return { hub: this.main, refusal: this.#keyOfNone(auth!) };
      sandbox.lastUsed = now;
      return { hub: sandbox.hub, url: undefined, basePath: undefined };
    }
    const sandbox = this.#alive(hint.id, now);
    if (auth !== undefined && auth !== hint.id) {
      const message = `The API key belongs to sandbox ${auth}, but the request names sandbox ${clip(hint.id)} by ${WHERE[hint.by]}: a sandbox's key works in its own sandbox only, and is never answered by another. Send it without that hint, or with ${auth}'s; or use the key ${clip(hint.id)} handed out (or a demo key, valid in every sandbox).`;
      return { hub: sandbox?.hub ?? this.#alive(auth, now)?.hub ?? this.main, refusal: refuse("invalid_api_key", { message, headers: { "www-authenticate": 'Bearer error="invalid_token"' } }) };
    }
    if (!sandbox) return { hub: this.main, refusal: this.#missing(hint.id, ` (named by ${WHERE[hint.by]})`) };
    sandbox.lastUsed = now;
    return { hub: sandbox.hub, url: hint.url, basePath: hint.basePath };
  }

  /** Answers a request as routed here, without the server's own steps (the in-process control transports). */
  handle(req: SimRequest): SimResponse {
    const q = req.url.indexOf("?");
    const route = this.route(q < 0 ? req.url : req.url.slice(0, q), req.url, req.headers.authorization, req.headers[SANDBOX_HEADER], req.headers.cookie);
    if (route === undefined) return this.main.handle(req);
    if (isRouteRefused(route)) return route.hub.refused(req, route.refusal, "sandbox");
    return route.hub.handle(route.url === undefined ? req : { ...req, url: route.url, basePath: route.basePath });
  }

  /** Ends every sandbox and the default hub (server shutdown). */
  shutdown(): void {
    clearInterval(this.#sweep);
    this.#sweep = undefined;
    for (const sandbox of [...this.#live.values()]) this.#end(sandbox, "ended with the simulator");
    this.main.shutdown();
  }

  /** The sandbox `id` while it lives; one idle too long ends here (the sweep may not have come by yet). */
  #alive(id: string, now: number): Sandbox | undefined {
    const sandbox = this.#live.get(id);
    if (sandbox && this.#idle(sandbox, now)) {
      this.#end(sandbox, `ended after ${this.limits.idleSeconds} s without a request`);
      return undefined;
    }
    return sandbox;
  }

  #idle(sandbox: Sandbox, now: number): boolean {
    return now - sandbox.lastUsed >= this.limits.idleSeconds * 1000 && sandbox.hub.events.openStreams.size === 0;
  }

  #expire(now: number): void {
    for (const sandbox of [...this.#live.values()]) if (this.#idle(sandbox, now)) this.#end(sandbox, `ended after ${this.limits.idleSeconds} s without a request`);
  }

  /** When the next sandbox would end if nothing used it (undefined: each has an open stream). */
  #nextExpiry(now: number): number | undefined {
    let next: number | undefined;
    for (const s of this.#live.values()) {
      if (s.hub.events.openStreams.size > 0) continue;
      const at = Math.max(now, s.lastUsed + this.limits.idleSeconds * 1000);
      if (next === undefined || at < next) next = at;
    }
    return next;
  }

  #end(sandbox: Sandbox, why: string): void {
    this.#live.delete(sandbox.id);
    if (this.#live.size === 0) {
      clearInterval(this.#sweep);
      this.#sweep = undefined;
    }
    sandbox.hub.shutdown();
    this.#ended.set(sandbox.id, why);
    if (this.#ended.size > ENDED_REMEMBERED) this.#ended.delete(this.#ended.keys().next().value!);
  }

  /** 404 for a sandbox that never was (or a value that is no sandbox id), 410 for one that ended. */
  #missing(id: string, named: string): Refusal {
    const ended = this.#ended.get(id);
    const create = "Create one with POST /_sim/sandboxes (the test fixtures do, per test or per worker)";
    if (ended !== undefined) return refuse("gone", { message: `Sandbox ${id}${named} ${ended}: its state and keys are gone. ${create}; a request without a sandbox hint reaches the default hub.` });
    const what = SANDBOX_ID.test(id) ? `No sandbox ${id}${named} exists on this simulator (a simulator's sandboxes end with it)` : `${JSON.stringify(clip(id))}${named} is not a sandbox id (sbx_ and 12 letters and digits)`;
    return refuse("not_found", { message: `${what}. ${create}; a request without a sandbox hint reaches the default hub.` });
  }

  /** The key's sandbox is no more (or never was): the key is unknown, as a key of no hub. */
  #keyOfNone(id: string): Refusal {
    const ended = this.#ended.get(id);
    const why = ended === undefined ? "does not exist on this simulator" : ended;
    return refuse("invalid_api_key", { message: `The API key belongs to sandbox ${id}, which ${why}: its keys work no more. Create a sandbox (POST /_sim/sandboxes) and use its keys, or a demo key.`, headers: { "www-authenticate": 'Bearer error="invalid_token"' } });
  }

  #view(s: Sandbox): SandboxView {
    return {
      id: s.id,
      scenario: s.hub.startingScenario.name,
      created_at: isoTime(s.createdAt),
      last_used_at: isoTime(s.lastUsed),
      expires_at: isoTime(s.lastUsed + this.limits.idleSeconds * 1000),
      open_streams: s.hub.events.openStreams.size,
      api_key: s.handed.apiKey,
      keys: { ...s.handed.keys },
    };
  }
}

/** The sandbox a `Bearer ghk_sbx_…` credential names. */
function keySandbox(authorization: string): string | undefined {
  const token = bearerToken(authorization);
  return token === undefined ? undefined : sandboxOfKey(token);
}

/** A caller's value, short enough for a message. */
function clip(value: string): string {
  return value.length > 60 ? `${value.slice(0, 60)}…` : value;
}
