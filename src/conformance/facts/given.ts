// What a run is given: the server, its keys, and what it may do there (the library's
// input). Every option a command-line flag sets is a row of the option table
// (run/options.ts), which holds its flag, variable, help, default and parse, and is
// checked against these fields when it compiles; a default is written there only.
import type { ServerControl } from "../target/control.ts";

/**
 * Extra keys, each reaching one rung of the refusal ladder or one refusal of a submit.
 * Only the rungs whose keys are given are exercised; the report names the others.
 */
export const KEY_ROLES = {
  expired: { code: "api_key_expired", help: "an expired key" },
  revoked: { code: "api_key_revoked", help: "a revoked key" },
  "no-api-access": { code: "api_access_not_granted", help: "a key of an account without public API access" },
  suspended: { code: "account_suspended", help: "a key of a suspended account" },
  terms: { code: "legal_consent_required", help: "a key of an account that has not accepted the current terms" },
  "read-only": { code: "insufficient_scope", help: "a key without generations:write (read scopes only)" },
  free: { code: "payment_required", help: "a key of an account without an active paid plan" },
  "spend-capped": { code: "key_spend_limit_reached", help: "a key whose monthly spend limit is reached" },
  "oauth-invalid": { code: "invalid_token", help: "an unusable OAuth access token (unknown, expired or revoked)" },
} as const;

export type KeyRole = keyof typeof KEY_ROLES;

/**
 * The redirect address of the clients the suite registers (a native client's loopback
 * address; the suite never listens there: it reads the 303's Location). A client ID
 * metadata document given with `--oauth-client-document` lists it, unless
 * `--oauth-redirect-uri` names another.
 */
export const SUITE_REDIRECT_URI = "http://127.0.0.1:8976/conformance/callback";

export interface ConformanceOptions {
  /** The server, e.g. `https://api.example.com` (no trailing `/v1`). */
  baseUrl: string;
  /** The main API key (every scope, active paid plan for the spending checks). */
  apiKey: string;
  /** A key of a second account, for the cross-account checks. */
  otherApiKey?: string;
  keys?: Partial<Record<KeyRole, string>>;
  /**
   * More keys of the main account with fewer scopes (what each holds is read from
   * `GET /v1/whoami`): every route that needs a scope one lacks must refuse it with 403
   * `insufficient_scope`.
   */
  scopedKeys?: string[];
  /**
   * A site session (the seed shows neither the cookie's name nor how it is obtained, so
   * the caller brings one): the `Cookie` header value, and an `Origin` the server allows
   * on mutating requests over it. Checks AUTH-3; with writes, the subscription actions.
   */
  session?: { cookie: string; origin?: string };
  /** An OAuth access token of a user (any scopes): checks what a token may do on `/v1`. */
  oauthToken?: string;
  /**
   * The OAuth code flow without a browser. `autoConsent`: the caller declares that the
   * server consents at once at `GET /oauth/authorize` (a test deployment: every
   * authorization request is a new consent granting every requested scope, answered by
   * the 303 with a code). `clientId` and `redirectUri`: a public (`none`) client to use
   * instead of registering one (with writes the suite registers its own). `clientDocument`:
   * the https address of a client ID metadata document the caller published, listing
   * `redirectUri` (default `SUITE_REDIRECT_URI`) among its `redirect_uris`.
   */
  oauth?: { autoConsent?: boolean; clientId?: string; redirectUri?: string; clientDocument?: string };
  /** Allow requests that change state without spending credits (reports, refused submits, ...). */
  allowWrites?: boolean;
  /** Allow submits that cost credits (implies allowWrites). */
  allowSpend?: boolean;
  /** The target is a static mock of the document (e.g. `prism mock`): behaviour checks do not apply. */
  staticMock?: boolean;
  /** Send requests through this address (a `prism proxy` in front of the server); streams go direct. */
  viaUrl?: string;
  /** Requests to leave in every rate window: below it the suite waits for the reset (`--reserve`; its default is the option table's, `OPTION_DEFAULTS.reserve`). */
  reserve?: number;
  /**
   * Most seconds the suite may wait in total, for rate windows (their resets, waited for or
   * moved past) and the rules that take time (what is waited in real time, not a clock
   * moved) (`--max-wait`; default `OPTION_DEFAULTS.maxWaitSeconds`).
   */
  maxWaitSeconds?: number;
  /** Most seconds to wait for a submitted generation to finish (`--settle-seconds`; default `OPTION_DEFAULTS.settleSeconds`). */
  settleSeconds?: number;
  /** Per-request timeout in ms (`--timeout`; default `OPTION_DEFAULTS.requestTimeoutMs`). */
  requestTimeoutMs?: number;
  /**
   * Most bytes of one answer the suite reads (`--max-answer-bytes`; default
   * `OPTION_DEFAULTS.maxAnswerBytes`, 16 MiB); a larger answer
   * is not read further and fails the rule its request exercised ("answer too large"). For
   * an event stream, the most bytes of one frame.
   */
  maxAnswerBytes?: number;
  /** Skip the checks that wait in real time (the heartbeat: up to 15 s + slack). */
  quick?: boolean;
  /**
   * A floor for the share of seed rules the run exercises (pass or fail), in percent: a
   * run under it fails (`report.coverage.rules.met` false, exit status 1).
   */
  minCoverage?: number;
  /**
   * Generated inputs: `perOperation` requests for each operation of the contract, built
   * from its schemas with `seed` (the same seed sends the same requests; default a random
   * one, reported), for `operations` only when given (operationIds).
   */
  generate?: { perOperation: number; seed?: number; operations?: string[] };
  /** Only these rule ids (or id prefixes such as `PAGE`); default all. */
  only?: string[];
  /**
   * What the caller can do to the server that the seed shows no public route for (cancel
   * and delete a generation, make and revoke a key, move its clock): the sequences that
   * need it run with it (`simulatorControl(baseUrl)` for the simulator), and are `n/a`
   * without it. With `advanceClock`, the suite moves the server's clock instead of
   * sleeping (for rate windows, generations to finish, and the rules that take time);
   * without it, it waits in real time within `maxWaitSeconds`.
   */
  control?: ServerControl;
  /** Progress lines (verbose output). */
  log?: (line: string) => void;
  /**
   * What a long wait is for (a rate window's reset, generations to finish, the heartbeat),
   * said when it starts and every 15 s while it lasts: the CLI prints these on stderr
   * always. Only waits in real time are said (not clock moves: `control.advanceClock`).
   */
  progress?: (line: string) => void;
}

/** The options every run has a value of: given, or the option table's default. */
export const DEFAULTED = ["reserve", "maxWaitSeconds", "settleSeconds", "requestTimeoutMs", "maxAnswerBytes"] as const;

/** What a run was given (`options`) and what follows from it: defaults filled in, the seed chosen, what the flags allow. */
export interface RunSettings extends Required<Pick<ConformanceOptions, (typeof DEFAULTED)[number]>> {
  options: ConformanceOptions;
  baseUrl: string;
  writes: boolean;
  spend: boolean;
  staticMock: boolean;
  /** `generate` with its seed chosen. */
  generate?: { perOperation: number; seed: number; operations?: string[] };
}
