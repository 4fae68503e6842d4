// The conformance suite's command line (`npm run conformance` here, `generation-hub
// conformance` from the dev-tools package): the suite against a server. Without a base
// address it starts the simulator and runs against it with its demo keys. Exit status: 0
// when no rule failed, 1 otherwise, 2 on bad usage or when the run could not start.
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { demoKeys, startSimulator, type RunningSimulator } from "../simulator/index.ts";
import { KEY_ROLES, keyVariable, scopedKeyVariable, SUITE_REDIRECT_URI, type ConformanceOptions, type KeyRole } from "./options.ts";
import { startPrism, type RunningPrism } from "./prism.ts";
import { simulatorScopedKeys } from "./simulator-keys.ts";
import { renderHar } from "./har.ts";
import { renderJson, renderJunit, renderTable } from "./report.ts";
import { exitCode, runConformance } from "./runner.ts";
import { coverageFloor, generateOption, num, Usage, withGenerateValue } from "./cli-options.ts";

/** How the command is started (for the usage text). */
export interface ConformanceCommand {
  /** The command as the user types it, e.g. `npm run conformance --` or `generation-hub conformance`. */
  program: string;
}

const HELP = `Usage: PROGRAM [options]

Runs the conformance suite against a server and prints one row per rule of the API
(its id and wording): pass, fail (with the request id and the reason) or n/a.
Without --base-url it starts the simulator and uses its demo keys.

  --base-url URL          server address (no /v1)                       HUB_BASE_URL
  --api-key KEY           main API key (every scope)                    HUB_API_KEY
  --other-api-key KEY     a key of a second account (cross-account)     HUB_OTHER_API_KEY
  --key ROLE=KEY          an extra key for one refusal (repeatable)     HUB_KEY_<ROLE>
                          roles: ${Object.keys(KEY_ROLES).join(", ")}
  --scoped-key KEY        a key of the main account with fewer scopes   HUB_SCOPED_KEY_1, _2, ...
                          (repeatable): every route needing a scope it lacks
                          must answer 403 insufficient_scope
  --allow-writes          allow requests that change state (no credits) HUB_ALLOW_WRITES=1
  --allow-spend           allow submits that cost credits (and writes)  HUB_ALLOW_SPEND=1
  --session-cookie VALUE  a site session: the Cookie header value       HUB_SESSION_COOKIE
  --origin ORIGIN         an Origin the server allows for that session  HUB_SESSION_ORIGIN
  --oauth-token TOKEN     an OAuth access token of a user               HUB_OAUTH_TOKEN
  --oauth-auto-consent    declare that the server consents at once at   HUB_OAUTH_AUTO_CONSENT=1
                          /oauth/authorize (a test deployment): run the code flow
  --oauth-client-id ID    a public client to use in the code flow       HUB_OAUTH_CLIENT_ID
  --oauth-redirect-uri U  its redirect address                          HUB_OAUTH_REDIRECT_URI
                          (default for the suite's own clients: ${SUITE_REDIRECT_URI})
  --oauth-client-document URL  an https address where a client ID       HUB_OAUTH_CLIENT_DOCUMENT
                          metadata document listing the redirect address is published
  --prism                 also send every request through prism proxy and report its violations
  --static-mock           the target is a static mock: only checks a mock can meet
  --prism-mock            start prism mock on the document and run against it (implies --static-mock)
  --generate[=N]          also send N generated requests per operation (default 100):
                          valid inputs at every edge of the contract's schemas and inputs
                          with one fault each, judged by the seed's rules, findings shrunk
  --seed INT              the seed of the generated requests (the same seed sends the same
                          requests; default a random one, printed)
  --operations IDS        generate for these operationIds only (comma-separated)
  --only IDS              comma-separated rule ids or prefixes (e.g. PAGE,EVT-9)
  --min-coverage PERCENT  fail the run when fewer seed rules than that were exercised
  --json                  print the report as JSON instead of the table
  --junit FILE            also write a JUnit XML report
  --har FILE              also write the exchanges failures cite as a HAR 1.2 file (secrets masked)
  --all                   list every rule in the table, n/a ones included
  --coverage              add the table of statuses by operation (declared vs seen)
  --quick                 skip the heartbeat check (it waits up to 18 s)
  --reserve N             requests to leave in every rate window (default 5)
  --max-wait SECONDS      most seconds to wait for rate windows in total (default 120)
  --settle-seconds S      most seconds to wait for a generation to finish (default 300)
  --timeout MS            per-request timeout (default 30000)
  --verbose               print every request
  --help                  this text`;

function envFlag(name: string): boolean {
  const v = process.env[name];
  return v === "1" || v === "true" || v === "yes";
}

/** The simulator's windows when the CLI starts it for generated inputs: wide enough never to throttle a run. */
const GENERATE_RATE_LIMITS = { keyQuota: 1_000_000, accountQuota: 1_000_000, submitQuota: 1_000_000, concurrency: 100_000 };

function simulatorKey(secret: string): string {
  if (!demoKeys().some((k) => k.secret === secret)) throw new Error(`the simulator has no demo key ${secret}`);
  return secret;
}

/** A session of the demo account through the simulator's sign-in (`POST /site/sign-in`). */
async function simulatorSignIn(base: string): Promise<string> {
  const res = await fetch(`${base}/site/sign-in`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ account_id: "acc_demo" }) });
  const body = (await res.json()) as { cookie?: unknown };
  if (typeof body.cookie !== "string") throw new Error(`the simulator's sign-in answered ${res.status}`);
  return body.cookie;
}

/** Publishes a client ID metadata document on the simulator (`PUT /_sim/oauth/documents`). */
async function simulatorClientDocument(base: string): Promise<string> {
  const url = "https://conformance-client.example/oauth/client.json";
  const document = { client_id: url, client_name: "Conformance check (document)", redirect_uris: [SUITE_REDIRECT_URI] };
  const res = await fetch(`${base}/_sim/oauth/documents`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ url, document }) });
  await res.arrayBuffer();
  if (res.status >= 300) throw new Error(`publishing a client ID metadata document on the simulator answered ${res.status}`);
  return url;
}

async function main(argv: string[], help: string): Promise<number> {
  const { values } = parseArgs({
    args: withGenerateValue(argv),
    strict: true,
    options: {
      "base-url": { type: "string" },
      "api-key": { type: "string" },
      "other-api-key": { type: "string" },
      key: { type: "string", multiple: true },
      "scoped-key": { type: "string", multiple: true },
      "allow-writes": { type: "boolean" },
      "allow-spend": { type: "boolean" },
      "session-cookie": { type: "string" },
      origin: { type: "string" },
      "oauth-token": { type: "string" },
      "oauth-auto-consent": { type: "boolean" },
      "oauth-client-id": { type: "string" },
      "oauth-redirect-uri": { type: "string" },
      "oauth-client-document": { type: "string" },
      prism: { type: "boolean" },
      "static-mock": { type: "boolean" },
      "prism-mock": { type: "boolean" },
      only: { type: "string" },
      generate: { type: "string" },
      seed: { type: "string" },
      operations: { type: "string" },
      "min-coverage": { type: "string" },
      coverage: { type: "boolean" },
      json: { type: "boolean" },
      junit: { type: "string" },
      har: { type: "string" },
      all: { type: "boolean" },
      quick: { type: "boolean" },
      reserve: { type: "string" },
      "max-wait": { type: "string" },
      "settle-seconds": { type: "string" },
      timeout: { type: "string" },
      verbose: { type: "boolean" },
      help: { type: "boolean" },
    },
  });
  if (values.help) {
    console.log(help);
    return 0;
  }
  const keys: Partial<Record<KeyRole, string>> = {};
  for (const role of Object.keys(KEY_ROLES) as KeyRole[]) {
    const env = process.env[keyVariable(role)];
    if (env) keys[role] = env;
  }
  for (const pair of values.key ?? []) {
    const eq = pair.indexOf("=");
    const role = pair.slice(0, eq) as KeyRole;
    if (eq <= 0 || !(role in KEY_ROLES)) throw new Usage(`--key takes ROLE=KEY with ROLE one of ${Object.keys(KEY_ROLES).join(", ")}; got ${JSON.stringify(pair.split("=")[0])}`);
    keys[role] = pair.slice(eq + 1);
  }

  const scopedKeys: string[] = [];
  for (let i = 0; process.env[scopedKeyVariable(i)]; i++) scopedKeys.push(process.env[scopedKeyVariable(i)]!);
  scopedKeys.push(...(values["scoped-key"] ?? []));

  const log = (line: string) => console.error(line);
  const cleanups: (() => Promise<void>)[] = [];
  let baseUrl = values["base-url"] ?? process.env.HUB_BASE_URL;
  let apiKey = values["api-key"] ?? process.env.HUB_API_KEY;
  let otherApiKey = values["other-api-key"] ?? process.env.HUB_OTHER_API_KEY;
  let allowWrites = Boolean(values["allow-writes"]) || envFlag("HUB_ALLOW_WRITES");
  let allowSpend = Boolean(values["allow-spend"]) || envFlag("HUB_ALLOW_SPEND");
  let staticMock = Boolean(values["static-mock"] || values["prism-mock"]);
  const cookie = values["session-cookie"] ?? process.env.HUB_SESSION_COOKIE;
  const origin = values.origin ?? process.env.HUB_SESSION_ORIGIN;
  let session: ConformanceOptions["session"] = cookie ? { cookie, ...(origin ? { origin } : {}) } : undefined;
  if (origin && !cookie) throw new Usage("--origin is the Origin allowed for a site session: give --session-cookie too");
  const oauthToken = values["oauth-token"] ?? process.env.HUB_OAUTH_TOKEN;
  const oauth: NonNullable<ConformanceOptions["oauth"]> = {
    autoConsent: Boolean(values["oauth-auto-consent"]) || envFlag("HUB_OAUTH_AUTO_CONSENT"),
    clientId: values["oauth-client-id"] ?? process.env.HUB_OAUTH_CLIENT_ID,
    redirectUri: values["oauth-redirect-uri"] ?? process.env.HUB_OAUTH_REDIRECT_URI,
    clientDocument: values["oauth-client-document"] ?? process.env.HUB_OAUTH_CLIENT_DOCUMENT,
  };
  if (oauth.clientId && !oauth.redirectUri) throw new Usage("--oauth-client-id needs --oauth-redirect-uri (a redirect address registered for that client)");
  const generate = generateOption(values.generate, values.seed, values.operations);
  const minCoverage = coverageFloor(values["min-coverage"]);
  let advance: ConformanceOptions["advance"];
  let sim: RunningSimulator | undefined;

  try {
    if (values["prism-mock"]) {
      if (baseUrl) throw new Usage("--prism-mock starts its own target; leave --base-url out");
      const mock: RunningPrism = await startPrism("mock");
      cleanups.push(() => mock.close());
      baseUrl = mock.url;
      apiKey ??= "conformance-static-mock-key";
      log(`prism mock serving the document at ${baseUrl}`);
    } else if (!baseUrl) {
      if (apiKey) throw new Usage("--api-key without --base-url: give the server's address (or neither, to run against the simulator)");
      // The simulator with its demo keys; nothing real is spent, so everything is allowed.
      // Its heartbeat is shortened to keep the run quick (the check allows up to 15 s).
      // Its documented conveniences stand in for a browser: OAuth auto-consent as the demo
      // account, the site sign-in, and a published client ID metadata document.
      // Generated inputs send thousands of requests: the simulator's windows are raised
      // for the run so that they are not throttled (its rate limits are checked without).
      sim = await startSimulator({ port: 0, heartbeatSeconds: 1, oauth: { autoConsent: "acc_demo" }, ...(generate ? { rateLimits: GENERATE_RATE_LIMITS } : {}) });
      const running = sim;
      cleanups.push(() => running.close());
      baseUrl = sim.url;
      apiKey = simulatorKey("ghk_demo_full");
      otherApiKey = simulatorKey("ghk_demo_other");
      Object.assign(keys, {
        expired: simulatorKey("ghk_demo_expired"),
        revoked: simulatorKey("ghk_demo_revoked"),
        "no-api-access": simulatorKey("ghk_demo_noapi"),
        suspended: simulatorKey("ghk_demo_suspended"),
        terms: simulatorKey("ghk_demo_terms"),
        "read-only": simulatorKey("ghk_demo_readonly"),
        free: simulatorKey("ghk_demo_free"),
        "spend-capped": simulatorKey("ghk_demo_capped"),
        "oauth-invalid": "gho_conformance_unknown_token",
      });
      allowWrites = true;
      allowSpend = true;
      session = { cookie: await simulatorSignIn(sim.url), origin: sim.url };
      oauth.autoConsent = true;
      oauth.clientDocument = await simulatorClientDocument(sim.url);
      scopedKeys.push(...(await simulatorScopedKeys(sim.url)));
      advance = async (seconds) => {
        running.hub.clock.advance(Math.round(seconds * 1000));
        running.hub.recheckStreams();
      };
      log(`no --base-url: started the simulator at ${baseUrl} with its demo keys and two keys with fewer scopes (writes and spending allowed), a site session and OAuth auto-consent`);
    }
    if (!apiKey) throw new Usage("--api-key (or HUB_API_KEY) is required with --base-url");

    let viaUrl: string | undefined;
    if (values.prism) {
      const proxy = await startPrism("proxy", baseUrl);
      cleanups.push(() => proxy.close());
      viaUrl = proxy.url;
      log(`prism proxy at ${viaUrl} in front of ${baseUrl} (event streams go direct: Prism buffers them)`);
    }

    const report = await runConformance(
      {
        baseUrl,
        apiKey,
        otherApiKey,
        keys,
        ...(scopedKeys.length > 0 ? { scopedKeys } : {}),
        allowWrites,
        allowSpend,
        session,
        oauthToken,
        oauth,
        staticMock,
        viaUrl,
        reserve: num(values.reserve, "reserve"),
        maxWaitSeconds: num(values["max-wait"], "max-wait"),
        settleSeconds: num(values["settle-seconds"], "settle-seconds"),
        requestTimeoutMs: num(values.timeout, "timeout"),
        quick: values.quick,
        only: values.only?.split(",").map((s) => s.trim()).filter(Boolean),
        minCoverage,
        ...(generate ? { generate } : {}),
        advance,
        log: values.verbose ? log : undefined,
      },
      { prism: Boolean(values.prism) },
    );
    if (values.json) console.log(renderJson(report));
    else console.log(renderTable(report, { all: values.all, coverage: values.coverage, width: process.stdout.columns || 100 }));
    if (values.junit) {
      writeFileSync(values.junit, renderJunit(report));
      log(`JUnit report written to ${values.junit}`);
    }
    if (values.har) {
      writeFileSync(values.har, renderHar(report));
      log(`HAR file of ${report.exchanges.length} failing exchange(s) written to ${values.har}`);
    }
    return exitCode(report);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

/** Exits once stdout has taken everything written (a pipe is written asynchronously: exiting at once cuts a long JSON report). */
function exitAfterOutput(code: number): void {
  process.exitCode = code;
  process.stdout.write("", () => process.exit(code));
}

/**
 * Runs the suite with the command line `argv` and exits with its status. A usage error
 * prints the usage; anything else that stops the run prints one line (the stack only with
 * --verbose).
 */
export async function runConformanceCli(argv: string[], command: ConformanceCommand): Promise<void> {
  const help = HELP.replace("PROGRAM", command.program);
  try {
    exitAfterOutput(await main(argv, help));
  } catch (error) {
    if (error instanceof Usage || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      console.error(`conformance: ${(error as Error).message}\n\n${help}`);
    } else {
      const verbose = argv.includes("--verbose");
      console.error(`conformance: the run could not complete: ${error instanceof Error ? (verbose ? error.stack : error.message) : String(error)}`);
    }
    process.exit(2);
  }
}
