// The control interface as typed async methods, for a hub in this process or a simulator
// reached over HTTP. Each method sends its request through the hub's own control routes
// under /_sim/ (handlers/control/), so an ability has one implementation whichever way it
// is reached: HTTP, these methods, or `control.request` for a route without a method here.
// Only the transport differs: the hub's `handle` in process, `fetch` over HTTP.
import type { GenerationRecord } from "../../../generated/types.ts";
import type { FaultView } from "../domain/faults.ts";
import type { Outcome } from "../domain/outcomes.ts";
import type { SessionStore } from "../domain/sessions.ts";
import type { RequestExchange, RequestSummary } from "../handlers/control/inspector/views.ts";
import type { Hub } from "../hub.ts";
import { refuse } from "../domain/refusal.ts";
import type { SandboxView } from "../pipeline/services.ts";
import type { Account, ApiKey } from "../state/accounts.ts";
import type { FaultSpec } from "../state/faults.ts";
import type { Scenario, ScenarioFile } from "../state/scenario/format.ts";
import { toResponse } from "./exchange.ts";

/** The simulated clock: `now` as an ISO time, `now_ms` since the epoch, `speed` in simulated seconds per real second (0: frozen). */
export interface ClockView {
  now: string;
  now_ms: number;
  speed: number;
}

/** A key as the control interface shows it: with its secret, its expiry as an ISO time, and whether it has expired. */
export type ControlKey = Omit<ApiKey, "expires_at"> & { expires_at: string | null; expired: boolean };

/** A generation as the control interface shows it: the API's record plus its owner, charge and planned moves. */
export type ControlGeneration = GenerationRecord & {
  account_id: string;
  deleted: boolean;
  charged_cc: number;
  next_at: string | null;
  planned: { status: string; after_seconds: number; reason?: string; late?: true }[];
};

export interface ControlState {
  /** The name of the scenario in force: one loaded since the last reset, else the starting one. */
  scenario: string;
  /** The name of the scenario a reset goes back to: the handlers' `scenario` option (`demo` by default). */
  starting_scenario: string;
  clock: ClockView;
  api_enabled: boolean;
  accounts: Account[];
  keys: ControlKey[];
  open_streams: number;
}

/** The outcomes a generation can be forced into (`[sim:...]` markers name the same). */
export type ForcedOutcome = Outcome["kind"];

export interface NewKey {
  /** Default `acc_demo`. */
  account_id?: string;
  /** Default: every scope. */
  scopes?: string[];
  /** Negative: already expired. Default: no expiry. */
  expires_in_seconds?: number;
  purpose?: string;
}

export interface KeyChanges {
  scopes?: string[];
  revoked?: boolean;
  spend_limit_cc?: number | null;
}

export interface AccountChanges {
  /** A plan id (paid), or `"free"`/`null` (no paid plan). */
  plan?: string | null;
  balance_cc?: number;
  api_access?: boolean;
  suspended?: boolean;
  terms_accepted?: boolean;
  early_access?: boolean;
}

export type SessionView = ReturnType<SessionStore["view"]>;

/** A scenario by its name and description. */
export interface ScenarioSummary {
  name: string;
  description: string;
}

/** A scenario just loaded: its name, description and the keys it holds (with secrets). */
export interface LoadedScenario extends ScenarioSummary {
  keys: { secret: string; id: string; account_id: string; purpose?: string }[];
}

export type { RequestExchange, RequestSummary } from "../handlers/control/inspector/views.ts";

/** A sandbox as `GET /_sim/sandboxes` shows it: its id, keys, times, and `base_url`, the address that reaches it by its base path. */
export type SandboxInfo = SandboxView & { base_url: string };

/** A sandbox just made (`control.createSandbox()`): what the control interface answered, and a control bound to it. */
export interface SandboxHandle extends SandboxInfo {
  /** The sandbox's control interface (`/sandboxes/{id}/_sim/…`): every method of HubControl, on this sandbox only. */
  control: HubControl;
}

/** Which rows of the request journal to answer (`GET /_sim/requests`); every field narrows, none: the newest 100. */
export interface RequestFilter {
  /** Status classes (`"4xx"`) or statuses (`404`; `0`: no answer, a dropped connection). */
  status?: string | number | readonly (string | number)[];
  /** The operationId (`"submitGeneration"`), the control route (`"POST /_sim/clock/advance"`), or a path prefix (`"/v1/library"`). */
  route?: string;
  /** A credential's id (`"key_full"`, a grant's, a session's), its account, or a part of its label; `"none"`: requests without one. */
  credential?: string;
  /** Text anywhere in the row, the request or the answer (bodies masked). */
  text?: string;
  /** The request id (`X-Request-Id`). */
  requestId?: string;
  /** Only rows recorded after this journal number (`seq`): what happened since a row you have seen. */
  after?: number;
  /** At most this many rows (default 100, 1 to 10,000). */
  limit?: number;
}

/** The query of `GET /_sim/requests` for a filter. */
export function requestQuery(filter: RequestFilter): string {
  const query = new URLSearchParams();
  const statuses = filter.status === undefined ? [] : Array.isArray(filter.status) ? filter.status : [filter.status];
  if (statuses.length > 0) query.set("status", statuses.join(","));
  for (const [name, value] of [["route", filter.route], ["credential", filter.credential], ["q", filter.text], ["request_id", filter.requestId], ["after", filter.after], ["limit", filter.limit]] as const) {
    if (value !== undefined) query.set(name, String(value));
  }
  const text = query.toString();
  return text === "" ? "requests" : `requests?${text}`;
}

/** A control request the hub refused: `status` and the API's error envelope in `body`. */
export class ControlError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(method: string, path: string, status: number, body: unknown) {
    const error = (body as { error?: { code?: string; message?: string } } | null)?.error;
    super(`${method} /_sim/${path} answered ${status}${error ? ` ${error.code}: ${error.message}` : ""}`);
    this.name = "ControlError";
    this.status = status;
    this.body = body;
  }
}

const id = (value: string) => encodeURIComponent(value);

/** One control request as a transport sends it: `path` is the part after `/_sim/`. */
export interface ControlCall {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array;
}

/** How a `HubControl` reaches the control routes: answers one request with a Response. */
export type ControlTransport = (call: ControlCall) => Promise<Response>;

/**
 * Through an in-process hub's own `handle` (what the MSW handlers and `startSimulator` use);
 * with `sandbox`, through the simulator's routing to that sandbox's hub (its base path).
 */
export function inProcessTransport(hub: Hub, baseUrl: string, sandbox?: string): ControlTransport {
  return (call) => {
    const path = `/_sim/${call.path}`;
    const req = { method: call.method, url: sandbox === undefined ? path : `/sandboxes/${encodeURIComponent(sandbox)}${path}`, headers: call.headers, body: call.body, baseUrl };
    if (sandbox === undefined) return toResponse(hub, req, hub.handle(req), new AbortController().signal);
    const answer = hub.sandboxes
      ? hub.sandboxes.handle(req)
      : hub.refused(req, refuse("not_found", { message: `No sandbox ${sandbox}: sandboxes belong to a simulator server (generation-hub mock, startSimulator()), and this hub was made alone (new Hub(), the Mock Service Worker handlers).` }), "sandbox");
    return toResponse(hub, req, answer, new AbortController().signal);
  };
}

export interface HttpControlOptions {
  /** The fetch to send with (default the global one, looked up at each call so test doubles installed later are used). */
  fetch?: typeof fetch;
  /** Headers sent with every control request (besides the JSON content type). */
  headers?: Record<string, string>;
  /** The sandbox whose control interface to reach (`/sandboxes/{id}/_sim/…`); default: the simulator's default hub. */
  sandbox?: string;
}

/**
 * Over HTTP to a running simulator at `baseUrl` (`http://127.0.0.1:4010`): what a test
 * runner in another process, or the conformance suite, uses. No Origin is sent, so the
 * control interface's guard (loopback Host, no foreign Origin, JSON only) admits it.
 */
export function httpTransport(baseUrl: string, options: HttpControlOptions = {}): ControlTransport {
  const root = baseUrl.replace(/\/+$/, "");
  const base = options.sandbox === undefined ? root : `${root}/sandboxes/${encodeURIComponent(options.sandbox)}`;
  return (call) => (options.fetch ?? globalThis.fetch)(`${base}/_sim/${call.path}`, { method: call.method, headers: { ...options.headers, ...call.headers }, body: call.body as Uint8Array<ArrayBuffer> | undefined });
}

/**
 * The abilities of `/_sim/` for code that holds the hub: reset, the clock, the API
 * switch, keys, accounts, generations, sessions, subscriptions and more. Every method
 * resolves with the control route's JSON answer and rejects with `ControlError` when the
 * route refuses (an unknown id, a bad value).
 */
export class HubControl {
  readonly #send: ControlTransport;
  /** The transport to a sandbox of the same simulator (by id); undefined: this transport reaches no other. */
  readonly #bind: ((sandbox: string) => ControlTransport) | undefined;
  /** The sandbox this control is bound to (`sbx_…`), or undefined for the default hub. */
  readonly sandboxId: string | undefined;

  /**
   * An in-process hub's control (`new HubControl(hub, baseUrl)`), or any transport's; with
   * `bind`, the transport to one of the simulator's sandboxes (what `sandbox(id)` uses).
   */
  constructor(hub: Hub, baseUrl: string);
  constructor(transport: ControlTransport, bind?: (sandbox: string) => ControlTransport, sandboxId?: string);
  constructor(source: Hub | ControlTransport, second?: string | ((sandbox: string) => ControlTransport), sandboxId?: string) {
    if (typeof source === "function") {
      this.#send = source;
      this.#bind = typeof second === "function" ? second : undefined;
    } else {
      const baseUrl = typeof second === "string" ? second : "http://127.0.0.1:4010";
      this.#send = inProcessTransport(source, baseUrl);
      this.#bind = (sandbox) => inProcessTransport(source, baseUrl, sandbox);
    }
    this.sandboxId = sandboxId;
  }

  /**
   * The control of a simulator running at `baseUrl` (another process, or `generation-hub
   * mock`), over HTTP; with `options.sandbox`, of that sandbox (`/sandboxes/{id}/_sim/…`).
   */
  static overHttp(baseUrl: string, options: HttpControlOptions = {}): HubControl {
    const { sandbox, ...rest } = options;
    return new HubControl(httpTransport(baseUrl, options), (id) => httpTransport(baseUrl, { ...rest, sandbox: id }), sandbox);
  }

  /** The control of one sandbox of the same simulator: every method, on that sandbox's hub only. */
  sandbox(id: string): HubControl {
    if (!this.#bind) throw new TypeError("This control's transport reaches one hub only; make it with HubControl.overHttp(url) or new HubControl(hub, baseUrl) to reach sandboxes.");
    return new HubControl(this.#bind(id), this.#bind, id);
  }

  /**
   * A new sandbox (`POST /_sim/sandboxes`) from a scenario (a shipped name or a file; the
   * simulator's starting scenario by default): its id, `base_url`, `api_key` (every scope)
   * and `keys` (its copy of each scenario key by role, `keys.full`, ...), and a control
   * bound to it. Rejects with ControlError 503 when the simulator holds `--max-sandboxes`.
   */
  async createSandbox(options: { scenario?: string | ScenarioFile } = {}): Promise<SandboxHandle> {
    const made = await this.request<SandboxInfo>("POST", "sandboxes", options.scenario === undefined ? {} : { scenario: options.scenario });
    return { ...made, control: this.sandbox(made.id) };
  }

  /** The simulator's live sandboxes. */
  async sandboxes(): Promise<SandboxInfo[]> {
    return (await this.request<{ data: SandboxInfo[] }>("GET", "sandboxes")).data;
  }

  /** Ends a sandbox: its open streams end, its keys stop working, its base path answers 410. */
  deleteSandbox(id: string): Promise<SandboxInfo & { deleted: true }> {
    return this.request("DELETE", `sandboxes/${encodeURIComponent(id)}`);
  }

  /**
   * Any control route: `path` is the part after `/_sim/` (`"clock/advance"`; a leading
   * `/_sim/` is accepted), `body` is sent as JSON. Resolves with the parsed answer.
   */
  async request<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const rest = path.replace(/^\/?(_sim\/)?/, "");
    const verb = method.toUpperCase();
    const response = await this.#send({
      method: verb,
      path: rest,
      // JSON, also for a POST without a body: the control interface takes nothing else.
      headers: verb === "GET" ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : new TextEncoder().encode(JSON.stringify(body)),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      // Not the control interface answering (a server without /_sim/, or a proxy's page).
      throw new ControlError(verb, rest, response.status, undefined);
    }
    if (!response.ok) throw new ControlError(verb, rest, response.status, parsed);
    return parsed as T;
  }

  /** The scenario in force and the starting one, the clock, API switch, accounts, keys (with secrets) and the number of open streams. */
  state(): Promise<ControlState> {
    return this.request("GET", "state");
  }

  /**
   * Back to the start, as the handlers were created: their `scenario` (a scenario loaded
   * since is gone), their faults, their clock speed; open streams end, earlier event ids
   * and cursors become unknown. In `beforeEach`, every test starts alike.
   */
  reset(): Promise<{ reset: true; clock: ClockView }> {
    return this.request("POST", "reset");
  }

  /** The shipped scenarios, the name of the one in force (`loaded`) and of the one a reset goes back to (`starting`). */
  scenarios(): Promise<{ data: ScenarioSummary[]; loaded: string; starting: string }> {
    return this.request("GET", "scenarios");
  }

  /**
   * Puts a shipped scenario (by name) or a scenario file in force until the next reset,
   * which goes back to the starting one: the state is made anew from it, as a reset makes
   * it (the clock goes on as it was). Rejects with ControlError (400, each field at fault
   * named) when the file is not valid, and changes nothing then.
   */
  loadScenario(scenario: string | ScenarioFile): Promise<LoadedScenario> {
    return this.request("POST", "scenario", typeof scenario === "string" ? { name: scenario } : scenario);
  }

  /** The current state as a scenario file (the loaded scenario's name and description unless given). */
  exportScenario(header: { name?: string; description?: string } = {}): Promise<Scenario> {
    const query = new URLSearchParams(Object.entries(header).filter((e): e is [string, string] => e[1] !== undefined)).toString();
    return this.request("GET", query === "" ? "scenario" : `scenario?${query}`);
  }

  clock(): Promise<ClockView> {
    return this.request("GET", "clock");
  }

  /** Simulated seconds per real second, 0 to 10 000 (0 freezes the clock). */
  setClockSpeed(speed: number): Promise<ClockView> {
    return this.request("POST", "clock", { speed });
  }

  /** Moves the clock forward, running every transition that falls due, in order. */
  advance(seconds: number): Promise<ClockView> {
    return this.request("POST", "clock/advance", { seconds });
  }

  /** Switches the public API off (`503 api_disabled` on every `/v1` path) or on. */
  setApiEnabled(enabled: boolean): Promise<{ api_enabled: boolean }> {
    return this.request("POST", "api", { enabled });
  }

  async keys(): Promise<ControlKey[]> {
    return (await this.request<{ data: ControlKey[] }>("GET", "keys")).data;
  }

  /** A new key (its secret in `secret`). */
  createKey(key: NewKey = {}): Promise<ControlKey> {
    return this.request("POST", "keys", key);
  }

  /** Revokes a key (by secret or id): `401 api_key_revoked` from then on, and its open streams end. */
  revokeKey(key: string): Promise<ControlKey> {
    return this.request("POST", `keys/${id(key)}/revoke`);
  }

  /** Expires a key (by secret or id) now: `401 api_key_expired`, and its open streams end. */
  expireKey(key: string): Promise<ControlKey> {
    return this.request("POST", `keys/${id(key)}/expire`);
  }

  updateKey(key: string, changes: KeyChanges): Promise<ControlKey> {
    return this.request("PATCH", `keys/${id(key)}`, changes);
  }

  account(accountId: string): Promise<Account> {
    return this.request("GET", `accounts/${id(accountId)}`);
  }

  /** Changes an account; a new balance leaves a ledger row of the difference. */
  updateAccount(accountId: string, changes: AccountChanges): Promise<Account> {
    return this.request("PATCH", `accounts/${id(accountId)}`, changes);
  }

  /** A paid plan by id, or `"free"`/`null` for none. */
  setPlan(accountId: string, plan: string | null): Promise<Account> {
    return this.updateAccount(accountId, { plan });
  }

  setBalance(accountId: string, balanceCc: number): Promise<Account> {
    return this.updateAccount(accountId, { balance_cc: balanceCc });
  }

  generation(generationId: string): Promise<ControlGeneration> {
    return this.request("GET", `generations/${id(generationId)}`);
  }

  /** Replaces the rest of a generation's life; on a `FAILED` one `done` is a late result. */
  forceOutcome(generationId: string, outcome: ForcedOutcome, reason?: string): Promise<ControlGeneration> {
    return this.request("POST", `generations/${id(generationId)}/outcome`, reason === undefined ? { outcome } : { outcome, reason });
  }

  /** Cancels a `QUEUED` or `PENDING` generation (needs a paid plan): `FAILED`, deleted, refunded. */
  cancelGeneration(generationId: string): Promise<ControlGeneration> {
    return this.request("POST", `generations/${id(generationId)}/cancel`);
  }

  /** Deletes a generation: its status stays, `deleted: true`, then 404. */
  deleteGeneration(generationId: string): Promise<ControlGeneration> {
    return this.request("DELETE", `generations/${id(generationId)}`);
  }

  /** Posts an answer of support to the account's thread (unread until the thread is read). */
  postSupportAnswer(accountId: string, text: string): Promise<Record<string, unknown>> {
    return this.request("POST", `accounts/${id(accountId)}/support`, { text });
  }

  /** Makes an https URL readable in requests as a file of that type and size (the simulator reaches no network). */
  registerRemoteFile(file: { url: string; content_type?: string; width?: number; height?: number }): Promise<Record<string, unknown>> {
    return this.request("POST", "remote-files", file);
  }

  /** Starts a site session as the account (no sign-in form); `cookie` is the Cookie header value. */
  startSession(accountId = "acc_demo"): Promise<SessionView> {
    return this.request("POST", "sessions", { account_id: accountId });
  }

  /** Ends a session (by id or cookie value); its open streams get `terminated`. */
  endSession(session: string): Promise<SessionView & { ended: boolean }> {
    return this.request("DELETE", `sessions/${id(session)}`);
  }

  /** Changes the subscription and what the payment provider knows (see "Subscription actions" in the simulator guide). */
  updateSubscription(accountId: string, changes: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.request("PATCH", `subscriptions/${id(accountId)}`, changes);
  }

  /** Consents to every OAuth authorization request as this account (`null`: off). */
  setAutoConsent(accountId: string | null): Promise<Record<string, unknown>> {
    return this.request("POST", "oauth/auto-consent", { account_id: accountId });
  }

  /** The user revokes an OAuth application's grant: at once, with every token. */
  revokeGrant(grantId: string): Promise<Record<string, unknown>> {
    return this.request("POST", `oauth/grants/${id(grantId)}/revoke`);
  }

  /** The faults in force, with what remains of their counts and how often they acted. */
  async faults(): Promise<FaultView[]> {
    return (await this.request<{ data: FaultView[] }>("GET", "faults")).data;
  }

  /**
   * Puts a fault in force (after the others): `{ kind: "service_unavailable", route:
   * "readAccount", count: 2 }`. Rejects with ControlError (400, the fields at fault named)
   * when it is not valid. A reset takes it out again.
   */
  async addFault(fault: FaultSpec): Promise<FaultView> {
    return (await this.request<{ data: FaultView[] }>("POST", "faults", fault)).data[0]!;
  }

  /** Puts several faults in force, all or none (fields at fault named `faults.<index>.…`). */
  async addFaults(faults: readonly FaultSpec[]): Promise<FaultView[]> {
    return (await this.request<{ data: FaultView[] }>("POST", "faults", { faults })).data;
  }

  /** Takes one fault out of force (ControlError 404 when none has this id). */
  removeFault(faultId: string): Promise<FaultView> {
    return this.request("DELETE", `faults/${id(faultId)}`);
  }

  /** Takes every fault out of force; resolves with how many there were. */
  async clearFaults(): Promise<number> {
    return (await this.request<{ cleared: number }>("DELETE", "faults")).cleared;
  }

  /**
   * The request journal's rows, newest first: what the app sent and what the hub answered,
   * with the refusal's reason in words; credentials by id, never by value. A reset empties
   * the journal (the reset is then its first row).
   */
  async requests(filter: RequestFilter = {}): Promise<RequestSummary[]> {
    return (await this.request<{ data: RequestSummary[] }>("GET", requestQuery(filter))).data;
  }

  /** One whole exchange of the journal by its `seq`: both sides masked, a stream's latest frames, a curl line that sends it again. */
  exchange(seq: number): Promise<RequestExchange> {
    return this.request("GET", `requests/${seq}`);
  }

  /** Forgets every row of the journal. */
  async clearRequests(): Promise<void> {
    await this.request("DELETE", "requests");
  }
}
