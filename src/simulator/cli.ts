// The simulator's command line (`npm start` here, `generation-hub mock` from the dev-tools
// package): the hub simulator on 127.0.0.1:4010 until stopped. Every option is a flag and
// an environment variable (flags win); `--help` lists them.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { closest } from "../common/did-you-mean.ts";
import { isLoopbackHost } from "../common/loopback.ts";
import { DEFAULT_DOCS_DIR, FaultError, ScenarioError, shippedNames, startSimulator, type FaultSpec, type FaultView, type ScenarioFile, type SimulatorOptions } from "./index.ts";
import { readFaults } from "./state/faults.ts";
import { scaledTiming } from "./state/options.ts";
import { readScenario, scenarioFrom } from "./state/scenario/read.ts";

/** How the command is started (for the usage text), and how it gets the docs it serves. */
export interface MockCommand {
  /** The command as the user types it, e.g. `npm start --` or `generation-hub mock`. */
  program: string;
  /**
   * Builds the reference docs into `dir` when they are missing or stale; resolves true when
   * it built. Absent: the docs are shipped ready (the dev-tools package).
   */
  buildDocs?: (dir: string) => Promise<boolean>;
}

interface Setting {
  flag: string;
  env: string;
  kind: "string" | "number" | "boolean";
  /** A count: a whole number of at least 1. */
  count?: true;
  help: string;
  apply: (o: SimulatorOptions, v: string | number | boolean) => void;
}

/** A problem of the command line, told in one line (a flag, a value, a scenario or fault that is not valid). */
class OneLineProblem extends Error {}

/**
 * parseArgs' refusals in one line each, with where the options are listed: an unknown flag
 * with the known one closest to it (the whole usage text buried the problem).
 */
function argumentProblem(error: Error & { code?: string }, program: string): OneLineProblem {
  const given = /'([^']+)'/.exec(error.message)?.[1] ?? "";
  const listed = `(${program} --help lists every option)`;
  switch (error.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION": {
      const guess = closest(given.replace(/^-+/, ""), ["help", ...SETTINGS.map((s) => s.flag)]);
      return new OneLineProblem(`unknown option ${given}${guess ? `; did you mean --${guess}?` : ""} ${listed}`);
    }
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return new OneLineProblem(`unexpected argument ${JSON.stringify(given)}: every option is a flag, --name value ${listed}`);
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return new OneLineProblem(`${/does not take/.test(error.message) ? `${given} is a switch and takes no value` : `${given.split(" ")[0]} needs a value`} ${listed}`);
    default:
      return new OneLineProblem(`${error.message} ${listed}`);
  }
}

/**
 * `--scenario`: a shipped name, or a file (a path with a slash, or ending in .json),
 * read and checked here so a fault is one line before anything starts.
 */
function scenarioOption(value: string): string | ScenarioFile {
  const label = `--scenario ${value} (SIM_SCENARIO)`;
  const fail = (why: string): never => {
    throw new OneLineProblem(`${label}: ${why}`.replace(/\s*\n\s*/g, " "));
  };
  const isFile = /\.json$/i.test(value) || /[\\/]/.test(value);
  try {
    if (!isFile) {
      if (!shippedNames.includes(value)) fail(`no shipped scenario has this name (shipped: ${shippedNames.join(", ")}; a file's path ends in .json)`);
      scenarioFrom(value);
      return value;
    }
    let text = "";
    try {
      text = readFileSync(value, "utf8");
    } catch (error) {
      fail(`the file cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      fail(`the file is not JSON (${(error as Error).message})`);
    }
    readScenario(parsed);
    return parsed as ScenarioFile;
  } catch (error) {
    if (error instanceof ScenarioError) fail(`not a valid scenario: ${error.message}`);
    throw error;
  }
}

/** A `key=value` word's value: a number, a boolean, or the text. */
function wordValue(text: string): string | number | boolean {
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text === "true" ? true : text === "false" ? false : text;
}

/**
 * `--faults`: JSON (one fault or a list), a file of it (a path ending in .json), or words:
 * `kind=service_unavailable route=readAccount count=2; kind=latency latency_ms=300`
 * (`;` between faults). Read and checked here, as the hub would, so a fault is one line.
 */
function faultsOption(value: string): FaultSpec[] {
  const fail = (why: string): never => {
    throw new OneLineProblem(`--faults (SIM_FAULTS): ${why}`.replace(/\s*\n\s*/g, " "));
  };
  const text = value.trim();
  let given: unknown;
  if (text.startsWith("[") || text.startsWith("{") || /\.json$/i.test(text)) {
    let json = text;
    if (!text.startsWith("[") && !text.startsWith("{")) {
      try {
        json = readFileSync(text, "utf8");
      } catch (error) {
        fail(`the file ${text} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      }
    }
    try {
      given = JSON.parse(json);
    } catch (error) {
      fail(`not JSON (${(error as Error).message})`);
    }
  } else {
    const faults = text.split(";").map((s) => s.trim()).filter(Boolean).map((spec) =>
      Object.fromEntries(spec.split(/\s+/).map((word) => {
        const eq = word.indexOf("=");
        if (eq <= 0) fail(`${JSON.stringify(word)} is not key=value (for example: kind=service_unavailable route=readAccount count=2)`);
        return [word.slice(0, eq), wordValue(word.slice(eq + 1))];
      })),
    );
    given = faults.length === 1 ? faults[0] : faults;
  }
  try {
    readFaults(given, Array.isArray(given) ? "faults" : "");
  } catch (error) {
    if (error instanceof FaultError) fail(`not a valid fault: ${error.message}`);
    throw error;
  }
  return (Array.isArray(given) ? given : [given]) as FaultSpec[];
}

const limits = (o: SimulatorOptions) => (o.rateLimits ??= {});
const session = (o: SimulatorOptions) => (o.session ??= {});
const oauthOf = (o: SimulatorOptions) => (o.oauth ??= {});
const retention = (o: SimulatorOptions) => (o.retention ??= {});

/** Every option of the command line, once: its flag, environment variable and help (`--help` prints them). */
export const SETTINGS: readonly Setting[] = [
  { flag: "host", env: "SIM_HOST", kind: "string", help: "address to listen on (default 127.0.0.1); another (0.0.0.0, a network address) serves the API to the network, with /_sim/ off unless --expose-control", apply: (o, v) => (o.host = v as string) },
  { flag: "allowed-hosts", env: "SIM_ALLOWED_HOSTS", kind: "string", help: "Host names answered besides localhost, *.localhost, IP addresses and --host, comma-separated: `.example.com` for a domain and its subdomains, `*` for any (default: none; other names get 403, a DNS rebinding guard)", apply: (o, v) => (o.allowedHosts = String(v).split(",").map((s) => s.trim()).filter(Boolean)) },
  { flag: "expose-control", env: "SIM_EXPOSE_CONTROL", kind: "boolean", help: "serve the control interface /_sim/ on a --host other than loopback too (it hands out every key's secret; default off)", apply: (o, v) => (o.exposeControl = v as boolean) },
  { flag: "port", env: "SIM_PORT", kind: "number", help: "port (default 4010; 0 picks a free one)", apply: (o, v) => (o.port = v as number) },
  { flag: "scenario", env: "SIM_SCENARIO", kind: "string", help: `the starting state, and what reset goes back to: a shipped scenario (${shippedNames.join(", ")}) or a scenario file (.json); default demo`, apply: (o, v) => (o.scenario = scenarioOption(String(v))) },
  { flag: "clock-speed", env: "SIM_CLOCK_SPEED", kind: "number", help: "simulated seconds per real second (default 1; 0 freezes the clock)", apply: (o, v) => (o.clockSpeed = v as number) },
  {
    flag: "timing-scale", env: "SIM_TIMING_SCALE", kind: "number", help: "multiplies the time a generation spends in each state (default 1: a video takes about 10 s; 0.1: about 1 s, for CI), the clock's speed unchanged", apply: (o, v) => {
      if (!((v as number) > 0)) throw new Error(`--timing-scale (SIM_TIMING_SCALE) is a number above 0, got ${v}`);
      o.timing = scaledTiming(v as number);
    },
  },
  { flag: "cors", env: "SIM_CORS", kind: "string", help: "open CORS for local work on /v1, storage uploads and the OAuth routes a browser app calls (never /_sim/ or /site/): \"*\" for any origin or a comma-separated list of origins (default closed)", apply: (o, v) => (o.cors = v === "*" || v === "true" ? true : String(v).split(",").map((s) => s.trim()).filter(Boolean)) },
  { flag: "body-limit", env: "SIM_BODY_LIMIT", kind: "number", help: "largest request body in bytes (default 1048576); above it 413 request_too_large", apply: (o, v) => (o.bodyLimit = v as number) },
  { flag: "window-seconds", env: "SIM_WINDOW_SECONDS", kind: "number", help: "length of the request and submit windows (default 60)", apply: (o, v) => (limits(o).windowSeconds = v as number) },
  { flag: "key-quota", env: "SIM_KEY_QUOTA", kind: "number", help: "requests per window per key, policy `default` (default 300)", apply: (o, v) => (limits(o).keyQuota = v as number) },
  { flag: "account-quota", env: "SIM_ACCOUNT_QUOTA", kind: "number", help: "requests per window per account, policy `account` (default 900)", apply: (o, v) => (limits(o).accountQuota = v as number) },
  { flag: "submit-quota", env: "SIM_SUBMIT_QUOTA", kind: "number", help: "accepted submits per window per account (default 60)", apply: (o, v) => (limits(o).submitQuota = v as number) },
  { flag: "concurrency", env: "SIM_CONCURRENCY", kind: "number", help: "generations in progress at once per account (default 8)", apply: (o, v) => (limits(o).concurrency = v as number) },
  { flag: "heartbeat-seconds", env: "SIM_HEARTBEAT_SECONDS", kind: "number", help: "event stream heartbeat interval in real seconds (default 15)", apply: (o, v) => (o.heartbeatSeconds = v as number) },
  { flag: "max-streams-per-key", env: "SIM_MAX_STREAMS_PER_KEY", kind: "number", help: "open event streams per key (default 10)", apply: (o, v) => (o.maxStreamsPerKey = v as number) },
  { flag: "public-url", env: "SIM_PUBLIC_URL", kind: "string", help: "base address for links in records (default: the address the caller used)", apply: (o, v) => (o.publicUrl = v as string) },
  { flag: "docs-dir", env: "SIM_DOCS_DIR", kind: "string", help: "folder served at /docs (default: the contract's reference docs, which come with the simulator)", apply: (o, v) => (o.docsDir = v as string) },
  { flag: "no-demo-data", env: "SIM_NO_DEMO_DATA", kind: "boolean", help: "start from the demo scenario without its records (finished generations, library folders and image, support welcome); ignored with --scenario", apply: (o, v) => (o.demoData = !v) },
  { flag: "folder-limit", env: "SIM_FOLDER_LIMIT", kind: "number", help: "library folders per account (default 50); one more answers 409 folder_limit_reached", apply: (o, v) => (o.folderLimit = v as number) },
  { flag: "upload-lifetime-days", env: "SIM_UPLOAD_LIFETIME_DAYS", kind: "number", help: "life of an uploaded file in simulated days, the asset's expires_at (default 30)", apply: (o, v) => (o.uploadLifetimeDays = v as number) },
  { flag: "retain-generations", env: "SIM_RETAIN_GENERATIONS", kind: "number", count: true, help: "generations kept per account, the newest (default 10000); an older one answers 404 like a missing one", apply: (o, v) => (retention(o).generations = v as number) },
  { flag: "idempotency-seconds", env: "SIM_IDEMPOTENCY_SECONDS", kind: "number", count: true, help: "simulated seconds an Idempotency-Key is remembered, at most while its generation is kept (default 86400, 24 hours)", apply: (o, v) => (retention(o).idempotencySeconds = v as number) },
  { flag: "retain-ledger-rows", env: "SIM_RETAIN_LEDGER_ROWS", kind: "number", count: true, help: "credit ledger rows kept per account (default 20000); older rows fold into one opening row, so the rows still add up to the balance", apply: (o, v) => (retention(o).ledgerRows = v as number) },
  { flag: "retain-events", env: "SIM_RETAIN_EVENTS", kind: "number", count: true, help: "events kept per account for Last-Event-ID, besides the 7 days (default 50000); an older cursor gets reset cursor_expired", apply: (o, v) => (retention(o).events = v as number) },
  { flag: "retain-support-messages", env: "SIM_RETAIN_SUPPORT_MESSAGES", kind: "number", count: true, help: "items of an account's support thread kept, messages and reports (default 1000)", apply: (o, v) => (retention(o).supportMessages = v as number) },
  { flag: "retain-assets", env: "SIM_RETAIN_ASSETS", kind: "number", count: true, help: "uploaded files kept per account, the newest (default 1000); an older one is forgotten as an expired one is", apply: (o, v) => (retention(o).assets = v as number) },
  {
    flag: "subscription-form", env: "SIM_SUBSCRIPTION_FORM", kind: "string", help: "GET /v1/billing/subscription answers `record` (the record or null, default) or `wrapped` ({ subscription })",
    apply: (o, v) => {
      if (v !== "record" && v !== "wrapped") throw new Error(`--subscription-form (SIM_SUBSCRIPTION_FORM) is record or wrapped, got ${JSON.stringify(v)}`);
      o.subscriptionForm = v;
    },
  },
  { flag: "session-origins", env: "SIM_SESSION_ORIGINS", kind: "string", help: "origins allowed on mutating session-cookie requests besides the simulator's own, comma-separated, `*` for any (default: any loopback origin)", apply: (o, v) => (session(o).allowedOrigins = String(v).split(",").map((x) => x.trim()).filter(Boolean)) },
  { flag: "session-quota", env: "SIM_SESSION_QUOTA", kind: "number", help: "requests per window of the session cookie's account-owned window (default: the account quota)", apply: (o, v) => (session(o).quota = v as number) },
  { flag: "oauth-auto-consent", env: "SIM_OAUTH_AUTO_CONSENT", kind: "string", help: "GET /oauth/authorize consents at once as this account (scripts and tests; default off)", apply: (o, v) => (oauthOf(o).autoConsent = v as string) },
  { flag: "oauth-access-seconds", env: "SIM_OAUTH_ACCESS_SECONDS", kind: "number", help: "OAuth access token lifetime in simulated seconds (default 3600)", apply: (o, v) => (oauthOf(o).accessTokenSeconds = v as number) },
  { flag: "oauth-refresh-seconds", env: "SIM_OAUTH_REFRESH_SECONDS", kind: "number", help: "an unused OAuth refresh token expires after this many simulated seconds (default 2592000, 30 days)", apply: (o, v) => (oauthOf(o).refreshTokenSeconds = v as number) },
  { flag: "oauth-grant-seconds", env: "SIM_OAUTH_GRANT_SECONDS", kind: "number", help: "absolute lifetime of an OAuth grant in simulated seconds (default 7776000, 90 days)", apply: (o, v) => (oauthOf(o).grantSeconds = v as number) },
  { flag: "oauth-code-seconds", env: "SIM_OAUTH_CODE_SECONDS", kind: "number", help: "OAuth authorization code lifetime in simulated seconds (default 60)", apply: (o, v) => (oauthOf(o).codeSeconds = v as number) },
  {
    flag: "journal-size", env: "SIM_JOURNAL_SIZE", kind: "number", help: "requests the journal keeps for the inspector (/_sim/ui/) and GET /_sim/requests, the most recent (default 200; 0 turns it off)",
    apply: (o, v) => {
      if (!Number.isInteger(v)) throw new Error(`--journal-size (SIM_JOURNAL_SIZE) is a whole number, got ${v}`);
      o.journalSize = v as number;
    },
  },
  { flag: "max-sandboxes", env: "SIM_MAX_SANDBOXES", kind: "number", count: true, help: "sandboxes alive at once, each a hub of its own for one test or worker (default 50); one more answers 503 service_unavailable", apply: (o, v) => (o.maxSandboxes = v as number) },
  { flag: "sandbox-idle-seconds", env: "SIM_SANDBOX_IDLE_SECONDS", kind: "number", count: true, help: "real seconds without a request (or an open event stream) after which a sandbox ends (default 900)", apply: (o, v) => (o.sandboxIdleSeconds = v as number) },
  { flag: "faults", env: "SIM_FAULTS", kind: "string", help: "faults to inject (the simulator guide's Faults, at /docs/guides/simulator.html#faults): JSON, a .json file, or words such as \"kind=service_unavailable route=readAccount count=2; kind=latency latency_ms=300 rate=0.1\" (default none)", apply: (o, v) => (o.faults = faultsOption(String(v))) },
  { flag: "log", env: "SIM_LOG", kind: "boolean", help: "log every request: method, masked URL, status, time taken", apply: (o, v) => (o.logger = v as boolean) },
];

function usage(program: string): string {
  const flagOf = (s: Setting) => `  --${s.flag}${s.kind === "boolean" ? "" : " <value>"}`;
  // Columns as wide as their longest entry, and a space.
  const flags = Math.max(...SETTINGS.map((s) => flagOf(s).length)) + 2;
  const envs = Math.max(...SETTINGS.map((s) => s.env.length)) + 2;
  const lines = SETTINGS.map((s) => flagOf(s).padEnd(flags) + `${s.env.padEnd(envs)}${s.help}`);
  return [`Usage: ${program} [options]`, "", "  flag".padEnd(flags) + "environment".padEnd(envs) + "meaning", ...lines, "  --help".padEnd(flags + envs) + "this text"].join("\n");
}

function parse(argv: string[], program: string): SimulatorOptions {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: Object.fromEntries([["help", { type: "boolean" }], ...SETTINGS.map((s) => [s.flag, { type: s.kind === "boolean" ? "boolean" : "string" }])]) as never,
      strict: true,
    }));
  } catch (error) {
    throw argumentProblem(error as Error & { code?: string }, program);
  }
  if ((values as Record<string, unknown>).help) {
    console.log(usage(program));
    process.exit(0);
  }
  const options: SimulatorOptions = {};
  for (const s of SETTINGS) {
    const raw = (values as Record<string, string | boolean | undefined>)[s.flag] ?? process.env[s.env];
    if (raw === undefined || raw === "") continue;
    let value: string | number | boolean = raw;
    if (s.kind === "number") {
      value = Number(raw);
      if (!Number.isFinite(value) || value < 0) throw new Error(`--${s.flag} (${s.env}) must be a non-negative number, got ${JSON.stringify(raw)}`);
      if (s.count && !(Number.isInteger(value) && value >= 1)) throw new Error(`--${s.flag} (${s.env}) must be a whole number of at least 1, got ${JSON.stringify(raw)}`);
      if (s.flag === "port" && !(Number.isInteger(value) && value <= 65_535)) throw new Error(`--port (SIM_PORT) is a whole number from 0 to 65535, got ${JSON.stringify(raw)}`);
    } else if (s.kind === "boolean") {
      value = raw === true || raw === "1" || raw === "true";
    }
    s.apply(options, value);
  }
  return options;
}

/** One line that says why the server could not listen and what to do (no stack trace). */
function startupProblem(error: Error & { code?: string }, options: SimulatorOptions): string {
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? 4010;
  switch (error.code) {
    case "EADDRINUSE":
      return `Port ${port} on ${host} is already in use: stop what listens there, or start the simulator on another port with --port <n> (or SIM_PORT; --port 0 picks a free one).`;
    case "EACCES":
      return `Port ${port} on ${host} is not open to this user (ports below 1024 need privileges): pick another with --port <n> (or SIM_PORT).`;
    case "EADDRNOTAVAIL":
    case "ENOTFOUND":
      return `The address ${host} is not an address of this machine: pick another with --host (or SIM_HOST; default 127.0.0.1).`;
    default:
      return `The simulator could not start: ${error.message}`;
  }
}

/** The banner's warning when the simulator listens where other machines can reach it. */
function networkWarning(host: string, control: boolean): string[] {
  const line = "!".repeat(78);
  return [
    line,
    `WARNING: --host ${host} is not loopback: anyone who can reach this machine can call the API.`,
    control
      ? "The control interface /_sim/ is ON (--expose-control): anyone on the network can read every key's secret and reset, revoke and rewrite the hub."
      : "The control interface /_sim/ (every key's secret; reset, revoke, rewrite) is OFF; --expose-control serves it to the network too.",
    line,
  ];
}

/** Whom `--cors` opens to, for the banner. */
function corsLine(cors: SimulatorOptions["cors"]): string {
  if (cors === true) return "open to any origin (/v1, storage, OAuth)";
  return Array.isArray(cors) && cors.length > 0 ? `open to ${cors.join(", ")} (/v1, storage, OAuth)` : "closed";
}

/** A fault in force in a few words, for the banner. */
function faultLine(f: FaultView): string {
  const when = [f.route ?? "every route", f.rate < 1 ? `rate ${f.rate}` : "", f.count !== undefined ? `${f.count} times` : ""].filter(Boolean).join(", ");
  return `${f.id} ${f.kind} (${when})`;
}

/** Runs the simulator with the command line `argv` until a signal stops it. */
export async function runMock(argv: string[], command: MockCommand): Promise<void> {
  let options: SimulatorOptions;
  try {
    options = parse(argv, command.program);
  } catch (error) {
    console.error(String((error as Error).message ?? error));
    process.exit(2);
  }
  let sim: Awaited<ReturnType<typeof startSimulator>>;
  try {
    sim = await startSimulator(options);
  } catch (error) {
    console.error(startupProblem(error as Error & { code?: string }, options));
    process.exit(1);
  }
  // In place before the banner: a caller that stops the simulator as soon as it reads the
  // address (a script, a test) gets the graceful stop and exit 0, not death by the signal.
  const stop = () => {
    sim.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const scenario = sim.hub.scenario;
  const keys = scenario.keys;
  const width = Math.max(...keys.map((k) => k.secret.length));
  const host = options.host ?? "127.0.0.1";
  const network = !isLoopbackHost(host);
  const others = sim.urls.filter((u) => u !== sim.url);
  const control = sim.control ? `${sim.url}/_sim/   (reset, clock, outcomes, keys, accounts)` : `off   (--host ${host} reaches the network; --expose-control serves it)`;
  console.log(
    [
      `Generation Hub simulator listening on ${sim.url}${others.length > 0 ? ` and ${others.join(", ")}` : ""}`,
      ...(network ? networkWarning(host, sim.control) : []),
      `  API:        ${sim.url}/v1   (Authorization: Bearer <key>)`,
      `  Events:     ${sim.url}/v1/events`,
      `  Inspector:  ${sim.control ? `${sim.url}/_sim/ui/   (live requests, state, controls)` : "off, with the control interface"}`,
      `  Control:    ${control}`,
      `  Docs:       ${sim.url}/docs/`,
      `  Site:       ${sim.url}/site/sign-in   (session cookie gh_session; subscription actions)`,
      `  OAuth:      ${sim.url}/.well-known/oauth-authorization-server`,
      `  Sandboxes:  ${sim.control ? `${sim.url}/_sim/sandboxes   (a hub of its own per test: at most ${sim.sandboxes.limits.max}, idle ones end after ${sim.sandboxes.limits.idleSeconds} s)` : "off, with the control interface"}`,
      `  Clock:      ${sim.hub.clock.speed}x   CORS: ${corsLine(options.cors)}   Hosts: loopback, IP addresses${options.allowedHosts?.length ? `, ${options.allowedHosts.join(", ")}` : ""}`,
      ...(sim.hub.faults.size > 0 ? [`  Faults:     ${sim.hub.faults.list().map(faultLine).join("; ")}   (${sim.url}/_sim/faults)`] : []),
      "",
      ...(options.scenario === undefined ? ["Demo API keys:"] : [`Scenario ${scenario.name}: ${scenario.description}`, "", "API keys:"]),
      ...keys.map((k) => `  ${k.secret.padEnd(width)}  ${k.purpose}`),
      "",
      "Outcome markers in a prompt: [sim:fail] [sim:fail=timeout] [sim:hold] [sim:hold=block] [sim:slow] [sim:late] [sim:blocked]",
      `Details: ${sim.url}/docs/guides/simulator.html. Stop with Ctrl+C.`,
    ].join("\n"),
  );
  // Here the reference docs are built, not committed: build them when they are missing or
  // older than the contract, without holding up the first answer.
  const docsDir = options.docsDir ?? DEFAULT_DOCS_DIR;
  if (command.buildDocs) {
    const building = command.buildDocs(docsDir);
    sim.docsBuilding(building);
    building.then(
      (built) => built && console.log(`Docs built into ${docsDir}: ${sim.url}/docs/`),
      (error) => console.error(`The docs could not be built (${(error as Error).message}); run \`npm run docs\`.`),
    );
  }
}

