// The run's options as one table: each row holds the flag, its environment variable, its
// help, its default, and how its text becomes a typed field of the library's options
// (`ConformanceOptions`, facts/given.ts: each row is checked against its field when it
// compiles). The command line's usage text and parser, the environment, the secrets to
// mask, the library's validation (`resolve`) and the defaults (`OPTION_DEFAULTS`) are all
// read from it. A bad value is a `Usage` error for the command line (one clear line, exit
// status 2) and a RangeError for the library, with the same words.
import { nearest } from "../../common/did-you-mean.ts";
import { operations, seedRules } from "../../contract/index.ts";
import { DEFAULTED, KEY_ROLES, SUITE_REDIRECT_URI, type ConformanceOptions, type KeyRole, type RunSettings } from "../facts/given.ts";
import { onlyMatches } from "../judge/results.ts";
import type { Secret } from "../target/secrets.ts";

export class Usage extends Error {}

/** What only the command line does with a flag (its reports, Prism, help). */
export interface CliOnly {
  prism: boolean;
  prismMock: boolean;
  json: boolean;
  junit: string;
  har: string;
  all: boolean;
  coverage: boolean;
  verbose: boolean;
  help: boolean;
  listen: string;
  judgeHar: string;
  duration: number;
  rewriteLinks: boolean;
  allowedHosts: string[];
}

/** What the command line asks for: the library's options as given, and the command line's own. */
export interface CliRequest {
  options: Partial<ConformanceOptions>;
  cli: Partial<CliOnly>;
}

/**
 * A kind of value: how a flag's text (or a repeated flag's texts) becomes the value, and
 * what is wrong with a value (`--flag takes ...`, or the whole sentence's tail).
 */
interface Kind<T> {
  parse(texts: string[]): T | undefined;
  /** What is wrong with a value (a text in `texts` for the command line, the value for the library), said after the option's name. */
  problem?(value: T, texts?: string[]): string | undefined;
}

type Value = unknown;

export interface OptionRow {
  flag: string;
  /** The value's name in the usage text (`KEY`); absent for a switch. `[=N]`: the value may be left out (`bare`). */
  arg?: string;
  /** The environment variable the value is read from when the flag is absent, as the usage text names it. */
  env?: string;
  /** The help, `{default}` standing for the default's text. */
  help: string;
  /** The value when the option is not given (filled in by `resolve`). */
  default?: Value;
  /** How the help says the default, when not as the value itself. */
  defaultText?: string;
  /** The value a bare `--flag` (without `=N`) stands for. */
  bare?: string;
  /** A credential: every output of the run writes it as its variable (`$HUB_API_KEY`), never in clear. */
  secret?: true;
  /** For a secret: the values a run was given through it, each with the variable that holds it. */
  secrets?(options: ConformanceOptions): Secret[];
  /** The flag may be given more than once (values from the environment come first). */
  multiple?: true;
  /** The values the environment gives (default: the variable `env` names). */
  fromEnv?(env: NodeJS.ProcessEnv): string[];
  /** Another flag it means nothing without, and what to say when that one is missing. */
  requires?: { flag: string; message: string };
  /** Where its value goes: a field of the library's options (`path`), or the command line's own. */
  to: { path: readonly string[] } | { cli: keyof CliOnly };
  kind: Kind<Value>;
}

// ---------------------------------------------------------------------------
// Kinds of values.

const one = (texts: string[]) => texts[texts.length - 1];

const text: Kind<string> = { parse: one };
const switched: Kind<boolean> = { parse: () => true };

/** A number of `what`, 0 or more (seconds, requests, ms). */
function count(what: string): Kind<number> {
  return {
    parse: (texts) => Number(one(texts)),
    problem: (v, texts) => (Number.isFinite(v) && v >= 0 ? undefined : `takes a number of ${what} (0 or more), got ${JSON.stringify(texts ? one(texts) : v)}`),
  };
}

/** A positive whole number of `what`. */
function positive(what: string): Kind<number> {
  return {
    parse: (texts) => Number(one(texts)),
    problem: (v, texts) => (Number.isSafeInteger(v) && v > 0 ? undefined : `takes a number of ${what} (a positive integer), got ${JSON.stringify(texts ? one(texts) : v)}`),
  };
}

const integer: Kind<number> = {
  parse: (texts) => Number(one(texts)),
  problem: (v, texts) => (Number.isSafeInteger(v) ? undefined : `takes an integer, got ${JSON.stringify(texts ? one(texts) : v)}`),
};

const percentage: Kind<number> = {
  parse: (texts) => Number(one(texts)),
  problem: (v, texts) => (Number.isFinite(v) && v >= 0 && v <= 100 ? undefined : `takes a percentage of the rules (0 to 100), got ${JSON.stringify(texts ? one(texts) : v)}`),
};

/** Comma-separated names, each of which must select something (`selects`), said with the closest known ones. */
function names(selects: (name: string) => boolean, known: () => readonly string[], what: string): Kind<string[]> {
  return {
    parse: (texts) => one(texts)!.split(",").map((s) => s.trim()).filter(Boolean),
    problem: (list) => unknownNames(list, selects, known(), what),
  };
}

/**
 * What is wrong with a selection by name (`--only` rule ids or prefixes, `--operations`
 * operationIds): the names that select nothing, each with the closest known ones; undefined
 * when every name selects something.
 */
function unknownNames(given: readonly string[], selects: (name: string) => boolean, known: readonly string[], what: string): string | undefined {
  const unknown = given.filter((name) => !selects(name));
  if (unknown.length === 0) return undefined;
  const each = unknown.map((name) => {
    const near = nearest(name, known);
    return `${name} (${near.length > 0 ? `closest: ${near.join(", ")}` : "nothing close"})`;
  });
  return `${what}: ${each.join("; ")}`;
}

const ruleIds = () => seedRules().map((r) => r.id);
const onlyKind = names((o) => ruleIds().some((id) => onlyMatches(id, [o])), () => [...new Set(ruleIds().map((id) => id.replace(/-[^-]*$/, "")))].concat(ruleIds()), "names no rule id or prefix");
const operationIds = () => operations().map((o) => o.operationId);
const operationsKind = names((id) => operationIds().includes(id), operationIds, "names no operation of the contract");

/** `read-only` -> `HUB_KEY_READ_ONLY`. */
export function keyVariable(role: string): string {
  return `HUB_KEY_${role.toUpperCase().replace(/-/g, "_")}`;
}

/** The environment variable of the `i`-th (0-based) key with fewer scopes: `HUB_SCOPED_KEY_1`, ... */
export function scopedKeyVariable(i: number): string {
  return `HUB_SCOPED_KEY_${i + 1}`;
}

const ROLES = Object.keys(KEY_ROLES).join(", ");

/** `ROLE=KEY` pairs, repeatable. */
const roleKeys: Kind<Partial<Record<KeyRole, string>>> = {
  parse(texts) {
    const keys: Partial<Record<KeyRole, string>> = {};
    for (const pair of texts) {
      const eq = pair.indexOf("=");
      const role = pair.slice(0, eq) as KeyRole;
      // Only the role is repeated: the value may be a key given in the wrong place.
      if (eq <= 0 || !(role in KEY_ROLES)) throw new Usage(`--key takes ROLE=KEY with ROLE one of ${ROLES}; got ${eq > 0 ? JSON.stringify(pair.slice(0, eq)) : "no ROLE="}`);
      keys[role] = pair.slice(eq + 1);
    }
    return keys;
  },
};

const texts: Kind<string[]> = { parse: (list) => list };

// ---------------------------------------------------------------------------
// The rows. Each is made by `field` (a field of ConformanceOptions), `inside` (a field of
// one of its objects) or `cli` (the command line's own), which check at compile time that
// the kind's value is the field's type.

type Fields = ConformanceOptions;
type Objects = "session" | "oauth" | "generate";
type Text = Omit<OptionRow, "to" | "kind" | "default"> & { default?: never };

function field<F extends keyof Fields>(name: F, kind: Kind<NonNullable<Fields[F]>>, row: Omit<Text, "default"> & { default?: NonNullable<Fields[F]> }): OptionRow {
  return { ...row, to: { path: [name] }, kind: kind as Kind<Value> };
}

function inside<F extends Objects, S extends keyof NonNullable<Fields[F]>>(name: F, sub: S, kind: Kind<NonNullable<NonNullable<Fields[F]>[S]>>, row: Text): OptionRow {
  return { ...row, to: { path: [name, sub as string] }, kind: kind as Kind<Value> };
}

function cli<K extends keyof CliOnly>(name: K, kind: Kind<CliOnly[K]>, row: Text): OptionRow {
  return { ...row, to: { cli: name }, kind: kind as Kind<Value> };
}

const given = (value: string | undefined, variable: string): Secret[] => (value ? [{ value, variable }] : []);

export const OPTIONS: readonly OptionRow[] = [
  field("baseUrl", text, { flag: "base-url", arg: "URL", env: "HUB_BASE_URL", help: "server address (no /v1)" }),
  field("apiKey", text, { flag: "api-key", arg: "KEY", env: "HUB_API_KEY", secret: true, help: "main API key (every scope)", secrets: (o) => given(o.apiKey, "HUB_API_KEY") }),
  field("otherApiKey", text, { flag: "other-api-key", arg: "KEY", env: "HUB_OTHER_API_KEY", secret: true, help: "a key of a second account (cross-account)", secrets: (o) => given(o.otherApiKey, "HUB_OTHER_API_KEY") }),
  field("keys", roleKeys, {
    flag: "key", arg: "ROLE=KEY", env: "HUB_KEY_<ROLE>", secret: true, multiple: true,
    help: `an extra key for one refusal (repeatable); roles: ${ROLES}`,
    fromEnv: (env) => Object.keys(KEY_ROLES).filter((role) => env[keyVariable(role)]).map((role) => `${role}=${env[keyVariable(role)]}`),
    secrets: (o) => Object.entries(o.keys ?? {}).flatMap(([role, key]) => given(key, keyVariable(role))),
  }),
  field("scopedKeys", texts, {
    flag: "scoped-key", arg: "KEY", env: "HUB_SCOPED_KEY_1, _2, ...", secret: true, multiple: true,
    help: "a key of the main account with fewer scopes (repeatable): every route needing a scope it lacks must answer 403 insufficient_scope",
    fromEnv(env) {
      const keys: string[] = [];
      for (let i = 0; env[scopedKeyVariable(i)]; i++) keys.push(env[scopedKeyVariable(i)]!);
      return keys;
    },
    secrets: (o) => (o.scopedKeys ?? []).flatMap((key, i) => given(key, scopedKeyVariable(i))),
  }),
  field("allowWrites", switched, { flag: "allow-writes", env: "HUB_ALLOW_WRITES=1", help: "allow requests that change state (no credits)" }),
  field("allowSpend", switched, { flag: "allow-spend", env: "HUB_ALLOW_SPEND=1", help: "allow submits that cost credits (and writes)" }),
  inside("session", "cookie", text, { flag: "session-cookie", arg: "VALUE", env: "HUB_SESSION_COOKIE", secret: true, help: "a site session: the Cookie header value", secrets: (o) => given(o.session?.cookie, "HUB_SESSION_COOKIE") }),
  inside("session", "origin", text, { flag: "origin", arg: "ORIGIN", env: "HUB_SESSION_ORIGIN", help: "an Origin the server allows for that session", requires: { flag: "session-cookie", message: "--origin is the Origin allowed for a site session: give --session-cookie too" } }),
  field("oauthToken", text, { flag: "oauth-token", arg: "TOKEN", env: "HUB_OAUTH_TOKEN", secret: true, help: "an OAuth access token of a user", secrets: (o) => given(o.oauthToken, "HUB_OAUTH_TOKEN") }),
  inside("oauth", "autoConsent", switched, { flag: "oauth-auto-consent", env: "HUB_OAUTH_AUTO_CONSENT=1", help: "declare that the server consents at once at /oauth/authorize (a test deployment): run the code flow" }),
  inside("oauth", "clientId", text, { flag: "oauth-client-id", arg: "ID", env: "HUB_OAUTH_CLIENT_ID", help: "a public client to use in the code flow", requires: { flag: "oauth-redirect-uri", message: "--oauth-client-id needs --oauth-redirect-uri (a redirect address registered for that client)" } }),
  inside("oauth", "redirectUri", text, { flag: "oauth-redirect-uri", arg: "URI", env: "HUB_OAUTH_REDIRECT_URI", help: `its redirect address (default for the suite's own clients: ${SUITE_REDIRECT_URI})` }),
  inside("oauth", "clientDocument", text, { flag: "oauth-client-document", arg: "URL", env: "HUB_OAUTH_CLIENT_DOCUMENT", help: "an https address where a client ID metadata document listing the redirect address is published" }),
  cli("prism", switched, { flag: "prism", help: "also send every request through prism proxy and report its violations" }),
  field("staticMock", switched, { flag: "static-mock", help: "the target is a static mock: only checks a mock can meet" }),
  cli("prismMock", switched, { flag: "prism-mock", help: "start prism mock on the document and run against it (implies --static-mock)" }),
  inside("generate", "perOperation", positive("requests per operation"), { flag: "generate", arg: "[=N]", bare: "100", help: "also send N generated requests per operation (default {bare}): valid inputs at every edge of the contract's schemas and inputs with one fault each, judged by the API's rules, findings shrunk" }),
  inside("generate", "seed", integer, { flag: "seed", arg: "INT", help: "the seed of the generated requests (the same seed sends the same requests; default a random one, printed)", requires: { flag: "generate", message: "--seed and --operations choose generated requests: give --generate too" } }),
  inside("generate", "operations", operationsKind, { flag: "operations", arg: "IDS", help: "generate for these operationIds only (comma-separated)", requires: { flag: "generate", message: "--seed and --operations choose generated requests: give --generate too" } }),
  field("only", onlyKind, { flag: "only", arg: "IDS", help: "comma-separated rule ids or prefixes (e.g. PAGE,EVT-9): only their checks run (with those that learn what they need) and only they are reported" }),
  field("minCoverage", percentage, { flag: "min-coverage", arg: "PERCENT", help: "fail the run when fewer rules than that were exercised" }),
  cli("json", switched, { flag: "json", help: "print the report as JSON instead of the table" }),
  cli("junit", text, { flag: "junit", arg: "FILE", help: "also write a JUnit XML report" }),
  cli("har", text, { flag: "har", arg: "FILE", help: "also write the exchanges failures cite as a HAR 1.2 file (secrets masked)" }),
  cli("all", switched, { flag: "all", help: "list every rule in the table, n/a ones included" }),
  cli("coverage", switched, { flag: "coverage", help: "add the table of statuses by operation (declared vs seen)" }),
  field("quick", switched, { flag: "quick", help: "skip the heartbeat check (it waits up to 18 s in real time)" }),
  field("reserve", count("requests"), { flag: "reserve", arg: "N", default: 5, help: "requests to leave in every rate window (default {default})" }),
  field("maxWaitSeconds", count("seconds"), { flag: "max-wait", arg: "SECONDS", default: 120, help: "most seconds to wait in total, for rate windows and the rules that take time (default {default})" }),
  field("settleSeconds", count("seconds"), { flag: "settle-seconds", arg: "S", default: 300, help: "most seconds to wait for a generation to finish (default {default})" }),
  field("requestTimeoutMs", count("milliseconds"), { flag: "timeout", arg: "MS", default: 30_000, help: "per-request timeout (default {default})" }),
  field("maxAnswerBytes", positive("bytes"), {
    flag: "max-answer-bytes", arg: "BYTES", default: 16 * 1024 * 1024, defaultText: `${16 * 1024 * 1024}, 16 MiB`,
    help: 'most bytes of one answer (or of one event-stream frame) read (default {default}); a larger one fails its rule as "answer too large"',
  }),
  cli("verbose", switched, { flag: "verbose", help: "print every request (on stderr)" }),
  // Passive mode: judge traffic the suite did not send (run/passive/).
  cli("listen", text, { flag: "listen", arg: "PORT", help: "passive mode: a proxy on this port of 127.0.0.1 (HOST:PORT for another address) in front of --base-url; it judges every answer of the traffic through it and sends no request of its own; reports when stopped (SIGINT, SIGTERM, --duration, or the end of `-- COMMAND`, which it runs with the proxy up)" }),
  cli("judgeHar", text, { flag: "judge-har", arg: "FILE", help: "passive mode: judge a recorded HAR 1.2 file (a browser's export, Playwright's recordHar); --base-url, if given, names the API's address in it" }),
  cli("duration", count("seconds"), { flag: "duration", arg: "SECONDS", help: "with --listen: stop after that many seconds", requires: { flag: "listen", message: "--duration is how long the passive proxy listens: give --listen too" } }),
  cli("rewriteLinks", switched, { flag: "rewrite-links", help: "with --listen: send the server its own Host (a server behind another name) and rewrite its absolute links in answers to the proxy's address", requires: { flag: "listen", message: "--rewrite-links changes what the passive proxy forwards: give --listen too" } }),
  cli("allowedHosts", { parse: (texts) => one(texts)!.split(",").map((h) => h.trim()).filter(Boolean) }, { flag: "allowed-hosts", arg: "NAMES", help: "with --listen: Host names the proxy answers besides localhost, *.localhost and IP addresses (comma-separated; `.example.com` for a domain, `*` for any); others get 403 (DNS rebinding)", requires: { flag: "listen", message: "--allowed-hosts names the hosts the passive proxy answers: give --listen too" } }),
  cli("help", switched, { flag: "help", help: "this text" }),
];

/** The row of a flag. */
export function optionRow(flag: string): OptionRow {
  const row = OPTIONS.find((o) => o.flag === flag);
  if (!row) throw new Error(`no option --${flag}`);
  return row;
}

/** The defaults of the options that have one (what `resolve` fills in), by field. */
export const OPTION_DEFAULTS = defaultsOf() as Readonly<Pick<RunSettings, (typeof DEFAULTED)[number]>>;

function defaultsOf(): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const o of OPTIONS) if (o.default !== undefined && "path" in o.to) out[o.to.path.join(".")] = o.default;
  const missing = DEFAULTED.filter((f) => !(f in out));
  if (missing.length > 0 || Object.keys(out).length !== DEFAULTED.length) throw new Error(`the option table's defaults (${Object.keys(out).join(", ")}) are not the settings every run has (${DEFAULTED.join(", ")})`);
  return out;
}

/** Requests per operation with a bare `--generate`. */
export const DEFAULT_GENERATED = Number(optionRow("generate").bare);

/** How the help says a row's default. */
function defaultText(o: OptionRow): string {
  return o.defaultText ?? String(o.default);
}

/** A row's help with its default (or its bare value) written in. */
export function helpOf(o: OptionRow): string {
  return o.help.replace("{default}", defaultText(o)).replace("{bare}", o.bare ?? "");
}

// ---------------------------------------------------------------------------
// The command line.

/** A switch given in the environment: `1`, `true` or `yes`. */
function envSwitch(value: string | undefined): boolean {
  return value === "1" || value === "true" || value === "yes";
}

/** The variable a simple option reads (`HUB_ALLOW_WRITES=1` names `HUB_ALLOW_WRITES`). */
function variableOf(option: OptionRow): string | undefined {
  return option.env && /^[A-Z_0-9]+(=1)?$/.test(option.env) ? option.env.replace(/=1$/, "") : undefined;
}

/** The options as parseArgs takes them. */
export function parseArgsOptions(): Record<string, { type: "string" | "boolean"; multiple?: boolean }> {
  return Object.fromEntries(OPTIONS.map((o) => [o.flag, { type: o.arg === undefined ? "boolean" : "string", ...(o.multiple ? { multiple: true } : {}) }]));
}

/** A bare `--flag` whose value may be left out (`--generate`) is `--flag=` for parseArgs, which needs one. */
export function withBareValues(argv: string[]): string[] {
  const bare = OPTIONS.filter((o) => o.bare !== undefined).map((o) => `--${o.flag}`);
  return argv.map((a) => (bare.includes(a) ? `${a}=` : a));
}

/** Puts `value` at `path` of `target`, making the objects on the way. */
function place(target: Record<string, any>, path: readonly string[], value: Value): void {
  let node = target;
  for (const key of path.slice(0, -1)) node = node[key] ??= {};
  node[path[path.length - 1]!] = value;
}

/** The value at `path` of `source`, if any. */
function at(source: Record<string, any>, path: readonly string[]): Value {
  let node: any = source;
  for (const key of path) node = node?.[key];
  return node;
}

/**
 * Reads the flags parseArgs gave and the environment into a request: a flag wins over its
 * variable; repeated values add to the environment's. A bad value, or a flag without the
 * one it needs, is a `Usage` error.
 */
export function readRequest(values: Record<string, string | boolean | (string | boolean)[] | undefined>, env: NodeJS.ProcessEnv): CliRequest {
  const request: CliRequest = { options: {}, cli: {} };
  const givenFlags = new Set<string>();
  for (const option of OPTIONS) {
    const variable = variableOf(option);
    const fromEnv = option.fromEnv ? option.fromEnv(env) : variable && env[variable] ? [env[variable]!] : [];
    const flag = values[option.flag];
    let list: string[];
    if (option.multiple) list = [...fromEnv, ...((flag as string[] | undefined) ?? [])].map(String);
    else if (option.arg === undefined) list = Boolean(flag) || envSwitch(variable ? env[variable] : undefined) ? ["1"] : [];
    else {
      const one = (flag as string | undefined) ?? fromEnv[0];
      list = one === undefined ? [] : [one === "" && option.bare !== undefined ? option.bare : one];
    }
    if (list.length === 0) continue;
    givenFlags.add(option.flag);
    const value = option.kind.parse(list);
    const problem = option.kind.problem?.(value as never, list);
    if (problem) throw new Usage(`--${option.flag} ${problem}`);
    if ("path" in option.to) place(request.options as Record<string, any>, option.to.path, value);
    else (request.cli as Record<string, Value>)[option.to.cli] = value;
  }
  for (const option of OPTIONS) if (option.requires && givenFlags.has(option.flag) && !givenFlags.has(option.requires.flag)) throw new Usage(option.requires.message);
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
    const words = wrap(helpOf(o), o.env ? HELP : WIDE);
    const first = flag.length < FLAG ? flag.padEnd(FLAG) : `${flag}\n${" ".repeat(FLAG)}`;
    lines.push(`${first}${o.env ? `${words[0]!.padEnd(HELP)}  ${o.env}` : words[0]}`);
    for (const more of words.slice(1)) lines.push(`${" ".repeat(FLAG)}${more}`);
  }
  return [
    `Usage: ${program} [options]`,
    `       ${program} --listen PORT --base-url URL [options] [-- COMMAND ...]`,
    `       ${program} --judge-har FILE [options]`,
    "",
    "Runs the conformance suite against a server and prints one row per rule of the",
    "API's requirements (its id and wording): pass, fail (with the request id and the",
    "reason) or n/a.",
    "Without --base-url it starts the simulator and uses its demo keys. Secrets",
    "(keys, cookies, tokens) are written as their variables in every output.",
    "Passive mode (--listen, --judge-har) judges traffic it did not send (a client's,",
    "a recorded HAR file) with the same checks, and sends no request of its own.",
    "",
    ...lines,
  ].join("\n");
}

function wrap(words: string, width: number): string[] {
  const out: string[] = [];
  let line = "";
  for (const word of words.split(" ")) {
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...out, line];
}

// ---------------------------------------------------------------------------
// The library.

/**
 * What a run was given and what follows from it: every option the table checks, checked
 * (a RangeError naming the field and its flag); the defaults filled in; the seed of the
 * generated inputs chosen; what the flags allow.
 */
export function resolve(o: ConformanceOptions): RunSettings {
  for (const option of OPTIONS) {
    if (!("path" in option.to) || !option.kind.problem) continue;
    const value = at(o as unknown as Record<string, any>, option.to.path);
    if (value === undefined) continue;
    const problem = option.kind.problem(value as never);
    if (problem) throw new RangeError(`${option.to.path.join(".")} (--${option.flag}) ${problem}`);
  }
  return {
    options: o,
    baseUrl: o.baseUrl.replace(/\/+$/, "").replace(/\/v1$/, ""),
    writes: Boolean(o.allowWrites || o.allowSpend),
    spend: Boolean(o.allowSpend),
    staticMock: Boolean(o.staticMock),
    ...(o.generate ? { generate: { ...o.generate, seed: o.generate.seed ?? Math.floor(Math.random() * 2 ** 31) } } : {}),
    ...OPTION_DEFAULTS,
    ...definedOf(o, DEFAULTED),
  };
}

/** The fields of `o` among `fields` that are given (not undefined). */
function definedOf<K extends keyof ConformanceOptions>(o: ConformanceOptions, fields: readonly K[]): Partial<Pick<ConformanceOptions, K>> {
  return Object.fromEntries(fields.filter((f) => o[f] !== undefined).map((f) => [f, o[f]])) as Partial<Pick<ConformanceOptions, K>>;
}
