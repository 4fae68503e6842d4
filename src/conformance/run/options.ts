// The command line's options, each described once (flag, environment variable, help,
// whether it is a secret, and where its value goes), as the simulator's SETTINGS table
// does: the usage text, the parser, the environment and the masking of secrets are all
// read from OPTIONS. Kept apart from cli.ts, which runs on import, so that they can be
// tested in-process. A bad value is a `Usage` error: one clear line and exit status 2.
import { operations } from "../../contract/index.ts";
import type { Secret } from "../target/secrets.ts";
import { DEFAULT_MAX_ANSWER_BYTES, KEY_ROLES, keyVariable, scopedKeyVariable, SUITE_REDIRECT_URI, unknownNames, unknownRules, type ConformanceOptions, type KeyRole } from "../facts/given.ts";

export class Usage extends Error {}

/** What the command line asks for: the run's options, how it reports, and what it starts. */
export interface CliRequest {
  /** What the suite is given (the library's options, before the CLI fills in the simulator's). */
  options: Partial<ConformanceOptions> & { keys: Partial<Record<KeyRole, string>>; scopedKeys: string[]; oauth: NonNullable<ConformanceOptions["oauth"]> };
  /** `--session-cookie` and `--origin`, made into `options.session` once both are read. */
  cookie?: string;
  origin?: string;
  /** `--generate[=N]`, `--seed`, `--operations`, made into `options.generate` once all are read. */
  generate?: string;
  seed?: string;
  operations?: string;
  prism?: boolean;
  prismMock?: boolean;
  output: { json?: boolean; junit?: string; har?: string; all?: boolean; coverage?: boolean; verbose?: boolean };
  help?: boolean;
}

type Value = string | boolean | string[];

export interface CliOption {
  flag: string;
  /** The value's name in the usage text (`KEY`); absent for a switch. */
  arg?: string;
  /** The environment variable the value is read from when the flag is absent, as the usage text names it. */
  env?: string;
  help: string;
  /** A credential: every output of the run writes it as its variable (`$HUB_API_KEY`), never in clear. */
  secret?: true;
  /** The flag may be given more than once (values from the environment come first). */
  multiple?: true;
  /** The values the environment gives (default: the variable `env` names). */
  fromEnv?(env: NodeJS.ProcessEnv): string[];
  /** Puts the value where it goes (and refuses a bad one with `Usage`). */
  apply(request: CliRequest, value: Value): void;
  /** For a secret: the values a run was given through it, each with the variable that holds it. */
  secrets?(options: ConformanceOptions): Secret[];
}

export function num(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Usage(`--${flag} must be a non-negative number, got ${JSON.stringify(value)}`);
  return n;
}

/** `--min-coverage PERCENT`. */
export function coverageFloor(value: string | undefined): number | undefined {
  const floor = num(value, "min-coverage");
  if (floor !== undefined && floor > 100) throw new Usage(`--min-coverage is a percentage of the rules, 0 to 100; got ${floor}`);
  return floor;
}

/** Requests per operation with a bare `--generate`. */
export const DEFAULT_GENERATED = 100;

/** `--generate[=N]`, `--seed`, `--operations` as the library takes them. */
export function generateOption(count: string | undefined, seed: string | undefined, list: string | undefined): ConformanceOptions["generate"] {
  if (count === undefined) {
    if (seed !== undefined || list !== undefined) throw new Usage("--seed and --operations choose generated requests: give --generate too");
    return undefined;
  }
  const perOperation = count === "" ? DEFAULT_GENERATED : Number(count);
  if (!Number.isInteger(perOperation) || perOperation <= 0) throw new Usage(`--generate takes a number of requests per operation (a positive integer): --generate=${count}`);
  const parsedSeed = seed === undefined ? undefined : Number(seed);
  if (parsedSeed !== undefined && !Number.isSafeInteger(parsedSeed)) throw new Usage(`--seed takes an integer, got ${JSON.stringify(seed)}`);
  const operationIds = list?.split(",").map((x) => x.trim()).filter(Boolean);
  const ids = operations().map((o) => o.operationId);
  const unknown = operationIds && unknownNames(operationIds, (id) => ids.includes(id), ids, "--operations names no operation of the contract");
  if (unknown) throw new Usage(unknown);
  return { perOperation, ...(parsedSeed !== undefined ? { seed: parsedSeed } : {}), ...(operationIds ? { operations: operationIds } : {}) };
}

/** A bare `--generate` (no value) is `--generate=` for parseArgs, which needs one. */
export function withGenerateValue(argv: string[]): string[] {
  return argv.map((a) => (a === "--generate" ? "--generate=" : a));
}

const text = (v: Value) => String(v);
const list = (v: Value) => (Array.isArray(v) ? v : [String(v)]);
const given = (value: string | undefined, variable: string): Secret[] => (value ? [{ value, variable }] : []);

export const OPTIONS: readonly CliOption[] = [
  { flag: "base-url", arg: "URL", env: "HUB_BASE_URL", help: "server address (no /v1)", apply: (r, v) => (r.options.baseUrl = text(v)) },
  { flag: "api-key", arg: "KEY", env: "HUB_API_KEY", secret: true, help: "main API key (every scope)", apply: (r, v) => (r.options.apiKey = text(v)), secrets: (o) => given(o.apiKey, "HUB_API_KEY") },
  { flag: "other-api-key", arg: "KEY", env: "HUB_OTHER_API_KEY", secret: true, help: "a key of a second account (cross-account)", apply: (r, v) => (r.options.otherApiKey = text(v)), secrets: (o) => given(o.otherApiKey, "HUB_OTHER_API_KEY") },
  {
    flag: "key", arg: "ROLE=KEY", env: "HUB_KEY_<ROLE>", secret: true, multiple: true,
    help: `an extra key for one refusal (repeatable); roles: ${Object.keys(KEY_ROLES).join(", ")}`,
    fromEnv: (env) => Object.keys(KEY_ROLES).filter((role) => env[keyVariable(role)]).map((role) => `${role}=${env[keyVariable(role)]}`),
    apply(r, v) {
      for (const pair of list(v)) {
        const eq = pair.indexOf("=");
        const role = pair.slice(0, eq) as KeyRole;
        // Only the role is repeated: the value may be a key given in the wrong place.
        if (eq <= 0 || !(role in KEY_ROLES)) throw new Usage(`--key takes ROLE=KEY with ROLE one of ${Object.keys(KEY_ROLES).join(", ")}; got ${eq > 0 ? JSON.stringify(pair.slice(0, eq)) : "no ROLE="}`);
        r.options.keys[role] = pair.slice(eq + 1);
      }
    },
    secrets: (o) => Object.entries(o.keys ?? {}).flatMap(([role, key]) => given(key, keyVariable(role))),
  },
  {
    flag: "scoped-key", arg: "KEY", env: "HUB_SCOPED_KEY_1, _2, ...", secret: true, multiple: true,
    help: "a key of the main account with fewer scopes (repeatable): every route needing a scope it lacks must answer 403 insufficient_scope",
    fromEnv(env) {
      const keys: string[] = [];
      for (let i = 0; env[scopedKeyVariable(i)]; i++) keys.push(env[scopedKeyVariable(i)]!);
      return keys;
    },
    apply: (r, v) => r.options.scopedKeys.push(...list(v)),
    secrets: (o) => (o.scopedKeys ?? []).flatMap((key, i) => given(key, scopedKeyVariable(i))),
  },
  { flag: "allow-writes", env: "HUB_ALLOW_WRITES=1", help: "allow requests that change state (no credits)", apply: (r, v) => (r.options.allowWrites = Boolean(v)) },
  { flag: "allow-spend", env: "HUB_ALLOW_SPEND=1", help: "allow submits that cost credits (and writes)", apply: (r, v) => (r.options.allowSpend = Boolean(v)) },
  { flag: "session-cookie", arg: "VALUE", env: "HUB_SESSION_COOKIE", secret: true, help: "a site session: the Cookie header value", apply: (r, v) => (r.cookie = text(v)), secrets: (o) => given(o.session?.cookie, "HUB_SESSION_COOKIE") },
  { flag: "origin", arg: "ORIGIN", env: "HUB_SESSION_ORIGIN", help: "an Origin the server allows for that session", apply: (r, v) => (r.origin = text(v)) },
  { flag: "oauth-token", arg: "TOKEN", env: "HUB_OAUTH_TOKEN", secret: true, help: "an OAuth access token of a user", apply: (r, v) => (r.options.oauthToken = text(v)), secrets: (o) => given(o.oauthToken, "HUB_OAUTH_TOKEN") },
  { flag: "oauth-auto-consent", env: "HUB_OAUTH_AUTO_CONSENT=1", help: "declare that the server consents at once at /oauth/authorize (a test deployment): run the code flow", apply: (r, v) => (r.options.oauth.autoConsent = Boolean(v)) },
  { flag: "oauth-client-id", arg: "ID", env: "HUB_OAUTH_CLIENT_ID", help: "a public client to use in the code flow", apply: (r, v) => (r.options.oauth.clientId = text(v)) },
  { flag: "oauth-redirect-uri", arg: "URI", env: "HUB_OAUTH_REDIRECT_URI", help: `its redirect address (default for the suite's own clients: ${SUITE_REDIRECT_URI})`, apply: (r, v) => (r.options.oauth.redirectUri = text(v)) },
  { flag: "oauth-client-document", arg: "URL", env: "HUB_OAUTH_CLIENT_DOCUMENT", help: "an https address where a client ID metadata document listing the redirect address is published", apply: (r, v) => (r.options.oauth.clientDocument = text(v)) },
  { flag: "prism", help: "also send every request through prism proxy and report its violations", apply: (r, v) => (r.prism = Boolean(v)) },
  { flag: "static-mock", help: "the target is a static mock: only checks a mock can meet", apply: (r, v) => (r.options.staticMock = Boolean(v)) },
  { flag: "prism-mock", help: "start prism mock on the document and run against it (implies --static-mock)", apply: (r, v) => (r.prismMock = Boolean(v)) },
  { flag: "generate", arg: "[=N]", help: `also send N generated requests per operation (default ${DEFAULT_GENERATED}): valid inputs at every edge of the contract's schemas and inputs with one fault each, judged by the API's rules, findings shrunk`, apply: (r, v) => (r.generate = text(v)) },
  { flag: "seed", arg: "INT", help: "the seed of the generated requests (the same seed sends the same requests; default a random one, printed)", apply: (r, v) => (r.seed = text(v)) },
  { flag: "operations", arg: "IDS", help: "generate for these operationIds only (comma-separated)", apply: (r, v) => (r.operations = text(v)) },
  {
    flag: "only", arg: "IDS", help: "comma-separated rule ids or prefixes (e.g. PAGE,EVT-9): only their checks run and only they are reported",
    apply(r, v) {
      const only = text(v).split(",").map((s) => s.trim()).filter(Boolean);
      const unknown = unknownRules(only);
      if (unknown) throw new Usage(unknown);
      r.options.only = only;
    },
  },
  { flag: "min-coverage", arg: "PERCENT", help: "fail the run when fewer rules than that were exercised", apply: (r, v) => (r.options.minCoverage = coverageFloor(text(v))) },
  { flag: "json", help: "print the report as JSON instead of the table", apply: (r, v) => (r.output.json = Boolean(v)) },
  { flag: "junit", arg: "FILE", help: "also write a JUnit XML report", apply: (r, v) => (r.output.junit = text(v)) },
  { flag: "har", arg: "FILE", help: "also write the exchanges failures cite as a HAR 1.2 file (secrets masked)", apply: (r, v) => (r.output.har = text(v)) },
  { flag: "all", help: "list every rule in the table, n/a ones included", apply: (r, v) => (r.output.all = Boolean(v)) },
  { flag: "coverage", help: "add the table of statuses by operation (declared vs seen)", apply: (r, v) => (r.output.coverage = Boolean(v)) },
  { flag: "quick", help: "skip the heartbeat check (it waits up to 18 s)", apply: (r, v) => (r.options.quick = Boolean(v)) },
  { flag: "reserve", arg: "N", help: "requests to leave in every rate window (default 5)", apply: (r, v) => (r.options.reserve = num(text(v), "reserve")) },
  { flag: "max-wait", arg: "SECONDS", help: "most seconds to wait for rate windows in total (default 120)", apply: (r, v) => (r.options.maxWaitSeconds = num(text(v), "max-wait")) },
  { flag: "settle-seconds", arg: "S", help: "most seconds to wait for a generation to finish (default 300)", apply: (r, v) => (r.options.settleSeconds = num(text(v), "settle-seconds")) },
  { flag: "timeout", arg: "MS", help: "per-request timeout (default 30000)", apply: (r, v) => (r.options.requestTimeoutMs = num(text(v), "timeout")) },
  {
    flag: "max-answer-bytes", arg: "BYTES", help: `most bytes of one answer (or of one event-stream frame) read and kept (default ${DEFAULT_MAX_ANSWER_BYTES}, 16 MiB); a larger one fails its rule as "answer too large"`,
    apply(r, v) {
      const bytes = num(text(v), "max-answer-bytes");
      if (!Number.isSafeInteger(bytes) || bytes! <= 0) throw new Usage(`--max-answer-bytes takes a number of bytes (a positive integer), got ${JSON.stringify(text(v))}`);
      r.options.maxAnswerBytes = bytes;
    },
  },
  { flag: "verbose", help: "print every request (on stderr)", apply: (r, v) => (r.output.verbose = Boolean(v)) },
  { flag: "help", help: "this text", apply: (r, v) => (r.help = Boolean(v)) },
];

/** A switch given in the environment: `1`, `true` or `yes`. */
function envSwitch(value: string | undefined): boolean {
  return value === "1" || value === "true" || value === "yes";
}

/** The variable a simple option reads (`HUB_ALLOW_WRITES=1` names `HUB_ALLOW_WRITES`). */
function variableOf(option: CliOption): string | undefined {
  return option.env && /^[A-Z_0-9]+(=1)?$/.test(option.env) ? option.env.replace(/=1$/, "") : undefined;
}

/** The options as parseArgs takes them. */
export function parseArgsOptions(): Record<string, { type: "string" | "boolean"; multiple?: boolean }> {
  return Object.fromEntries(OPTIONS.map((o) => [o.flag, { type: o.arg === undefined ? "boolean" : "string", ...(o.multiple ? { multiple: true } : {}) }]));
}

/** Reads the flags parseArgs gave and the environment into a request: a flag wins over its variable; repeated values add to the environment's. */
export function readRequest(values: Record<string, string | boolean | (string | boolean)[] | undefined>, env: NodeJS.ProcessEnv): CliRequest {
  const request: CliRequest = { options: { keys: {}, scopedKeys: [], oauth: {} }, output: {} };
  for (const option of OPTIONS) {
    const variable = variableOf(option);
    const fromEnv = option.fromEnv ? option.fromEnv(env) : variable && env[variable] ? [env[variable]!] : [];
    const flag = values[option.flag];
    let value: Value | undefined;
    if (option.multiple) value = [...fromEnv, ...((flag as string[] | undefined) ?? [])].map(String);
    else if (option.arg === undefined) value = Boolean(flag) || envSwitch(variable ? env[variable] : undefined);
    else value = (flag as string | undefined) ?? fromEnv[0];
    if (value === undefined || (Array.isArray(value) && value.length === 0) || value === false) continue;
    option.apply(request, value);
  }
  return request;
}

/** The secrets a run was given, from the options the table marks secret, each with the variable that holds it. */
export function secretsOf(options: ConformanceOptions): Secret[] {
  return OPTIONS.flatMap((o) => (o.secret && o.secrets ? o.secrets(options) : []));
}

/** The usage text: one line per option (its help wrapped beside it), its variable at the end of the first. */
export function usageOf(program: string): string {
  const FLAG = 26;
  const HELP = 46;
  const WIDE = 72;
  const lines: string[] = [];
  for (const o of OPTIONS) {
    const flag = `  --${o.flag}${o.arg === undefined ? "" : o.arg.startsWith("[") ? o.arg : ` ${o.arg}`}`;
    const words = wrap(o.help, o.env ? HELP : WIDE);
    const first = flag.length < FLAG ? flag.padEnd(FLAG) : `${flag}\n${" ".repeat(FLAG)}`;
    lines.push(`${first}${o.env ? `${words[0]!.padEnd(HELP)}  ${o.env}` : words[0]}`);
    for (const more of words.slice(1)) lines.push(`${" ".repeat(FLAG)}${more}`);
  }
  return [
    `Usage: ${program} [options]`,
    "",
    "Runs the conformance suite against a server and prints one row per rule of the",
    "API's requirements (its id and wording): pass, fail (with the request id and the",
    "reason) or n/a.",
    "Without --base-url it starts the simulator and uses its demo keys. Secrets",
    "(keys, cookies, tokens) are written as their variables in every output.",
    "",
    ...lines,
  ].join("\n");
}

function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...out, line];
}
