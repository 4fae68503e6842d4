// What every check is given: the target, the results, what earlier checks found, and
// small helpers for the checks' recurring shapes (an expected refusal, a route the
// server does not offer).
import { statusOf } from "../../contract/index.ts";
import type { Target } from "../target/target.ts";
import type { KeyRole, RunSettings } from "./given.ts";
import type { Results } from "../judge/results.ts";
import type { EventStream } from "../target/stream.ts";
import type { GeneratedReport } from "./generated.ts";
import type { AnswersSeen } from "../judge/answer-checks/index.ts";
import { errorCodeOf, type Exchange, type RequestSpec, type Cited } from "../target/exchange.ts";

export interface Shared {
  whoami?: Record<string, any>;
  me?: Record<string, any>;
  models: Record<string, any>[];
  /** The caller's generation records (first page of up to 100, newest first). */
  own: Record<string, any>[];
  /** The other account's generation records, when a second key was given. */
  other: Record<string, any>[];
  /** The other key belongs to another account (whoami says so). */
  otherIsOtherAccount: boolean;
  /** Bodies the server prices (200 from the estimate), cheapest first. */
  priced: { body: Record<string, unknown>; price_cc: number; model: Record<string, any> }[];
  /** Generations the spending checks created. */
  created: Record<string, any>[];
  /** Files this run uploaded (written once each): the reference, how, and the asset when seen. */
  uploads: Upload[];
  /** OAuth grants the run obtained (each has its own rate window: its requests get their own label). */
  oauthGrants: number;
  /** A public OAuth client the suite registered (or was given), for the token checks. */
  oauthClient?: { clientId: string; redirectUri: string; registered: boolean };
  /** The issuer of the authorization-server metadata (discovery). */
  issuer?: string;
  /** The `resource` of the protected-resource metadata (discovery): what tokens are for. */
  resource?: string;
  /** The main account's balance before the spending checks submitted anything. */
  balanceBeforeSpend?: number;
  /** The stream opened early to see a heartbeat by the end of the run. */
  heartbeat?: { stream?: EventStream; skip?: string };
  /** What the generated inputs sent and found (`--generate`). */
  generated?: GeneratedReport;
  /** Objects the run made go (revoked, cancelled, deleted): every route must answer them as gone. */
  gone: GoneObject[];
  /** The generation of the properties across calls, once final: its status and result files (a deletion takes it). */
  settled?: { id: string; status: string; outputs: string[] };
  /** The numbers of `limits.submissions` an accepted submit moves by one, and which way (learnt by the properties across calls). */
  submitCounter?: Map<string, 1 | -1>;
}

/** An object the run made go, for the sweep of every route that takes its id. */
export interface GoneObject {
  /** `generations`, `library/folders` (the kinds of stateful/routes.ts). */
  kind: string;
  id: string;
  /** The rule that says it is gone (`REP-3` for a moderation report, `LIB-5` for a folder delete). */
  rule: string;
  /** How it went: `a moderation report`. */
  why: string;
  /** Its result files, as the record gave them. */
  outputs?: string[];
  /** Bodies to send to routes that take one, by operationId (the object's own, so that only its absence can refuse them). */
  bodies?: Record<string, unknown>;
}

export interface Upload {
  reference: string;
  via: "direct" | "proxy";
  /** The library asset the file became (found at the head of the asset list). */
  assetId?: string;
  bytes: Uint8Array;
}

export interface Check {
  name: string;
  /** The seed rules this check observes (for `--only` and for the reasons of a skip). */
  rules: readonly string[];
  needs?: {
    writes?: boolean;
    spend?: boolean;
    other?: boolean;
    /** False when a static mock can meet the check (default true: needs a real server). */
    stateful?: boolean;
    /** Runs only with generated inputs (`--generate`); otherwise left out silently. */
    generate?: boolean;
  };
  run(c: CheckContext): Promise<void>;
}

export class CheckContext {
  readonly shared: Shared = { models: [], own: [], other: [], otherIsOtherAccount: false, priced: [], created: [], uploads: [], oauthGrants: 0, gone: [] };

  constructor(
    /** What the run was given (`options`) and resolved from it (defaults, the seed, the flags' effects). */
    readonly settings: RunSettings,
    /** The server: every request goes through it. */
    readonly target: Target,
    readonly results: Results,
    /** What the answers of the run showed so far (windows, Russian wording, statuses). */
    readonly seen: AnswersSeen,
  ) {}

  get apiKey(): string {
    return this.settings.options.apiKey;
  }

  get otherKey(): string | undefined {
    return this.settings.options.otherApiKey;
  }

  role(role: KeyRole): string | undefined {
    return this.settings.options.keys?.[role];
  }

  request(spec: RequestSpec): Promise<Exchange> {
    return this.target.request(spec);
  }

  get(path: string, rule: string, extra: Partial<RequestSpec> = {}): Promise<Exchange> {
    return this.target.request({ ...extra, method: "GET", path, rule });
  }

  post(path: string, json: unknown, rule: string, extra: Partial<RequestSpec> = {}): Promise<Exchange> {
    return this.target.request({ ...extra, method: "POST", path, json, rule });
  }

  /** The main account's balance in centi-credits (`credits.main_cc` of `GET /v1/me`). */
  async balance(rule: string): Promise<number | undefined> {
    const me = await this.get("/v1/me", rule);
    const v = me.json?.credits?.main_cc;
    return typeof v === "number" ? v : undefined;
  }

  /** Lets time pass on the target: moves its clock when the caller controls it, else sleeps. */
  wait(seconds: number): Promise<void> {
    return this.target.elapse(seconds);
  }

  /**
   * The answer is the refusal `code` with the status of the error-code table; records
   * pass or fail on `rule`. `what` says what was asked.
   */
  refusal(ex: Exchange, code: string, rule: string, what: string): boolean {
    const got = errorCodeOf(ex.json);
    const ok = ex.status === statusOf(code) && got === code;
    return this.results.expect(ok, rule, `${what}: expected ${statusOf(code)} ${code}, got ${ex.status}${got ? ` ${got}` : ""}`, ex.cite);
  }

  /**
   * The server does not offer this route now (503 `service_unavailable`): the rules are
   * not applicable in this run. Says whether that is the case.
   */
  unavailable(ex: Exchange, rules: readonly string[]): boolean {
    if (ex.status !== 503 || errorCodeOf(ex.json) !== "service_unavailable") return false;
    for (const rule of rules) this.results.skip(rule, `${ex.method} ${ex.path.split("?")[0]} answered 503 service_unavailable (not offered by this server now)`);
    return true;
  }

  skip(rules: readonly string[], reason: string): void {
    for (const rule of rules) this.results.skip(rule, reason);
  }

  fail(rule: string, message: string, ex?: { cite: Cited }): void {
    this.results.fail(rule, message, ex?.cite);
  }

  pass(rule: string, note?: string): void {
    this.results.pass(rule, note);
  }

  expect(ok: boolean, rule: string, message: string, ex?: { cite: Cited }): boolean {
    return this.results.expect(ok, rule, message, ex?.cite);
  }

  note(rule: string, text: string): void {
    this.results.note(rule, text);
  }

  log(line: string): void {
    this.settings.options.log?.(line);
  }
}
