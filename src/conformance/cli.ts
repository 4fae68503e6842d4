// The conformance suite's command line (`npm run conformance` here, `generation-hub
// conformance` from the dev-tools package): the suite against a server. Without a base
// address it starts the simulator and runs against it with its demo keys. Exit status: 0
// when no rule failed, 1 otherwise, 2 on bad usage or when the run could not start.
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { demoKeys, startSimulator, type RunningSimulator } from "../simulator/index.ts";
import { scaledTiming } from "../simulator/state/options.ts";
import { SUITE_REDIRECT_URI, type ConformanceOptions } from "./facts/given.ts";
import { startPrism, type RunningPrism } from "./run/prism.ts";
import { simulatorScopedKeys } from "./run/simulator.ts";
import { detectSimulatorControl, simulatorControl } from "./target/control.ts";
import { renderHar } from "./run/har.ts";
import { renderJson, renderJunit, renderTable } from "./run/render.ts";
import { exitCode, runConformance } from "./run/runner.ts";
import { ServerGone } from "./target/stops.ts";
import { generateOption, parseArgsOptions, readRequest, secretsOf, usageOf, Usage, withGenerateValue } from "./run/options.ts";
import { Masker, type Secret } from "./target/secrets.ts";

/** How the command is started (for the usage text). */
export interface ConformanceCommand {
  /** The command as the user types it, e.g. `npm run conformance --` or `generation-hub conformance`. */
  program: string;
}

/** The simulator's windows when the CLI starts it for generated inputs: wide enough never to throttle a run. */
// The windows opened for generated inputs, the key's under the account's as in the simulator's
// defaults (so the key window binds: LIM-1 reads another key's cost); the 8 slots kept (LIM-5
// meets a refusal for busy slots; generations finish within a second at --timing-scale 0.1).
const GENERATE_RATE_LIMITS = { keyQuota: 1_000_000, accountQuota: 3_000_000, submitQuota: 1_000_000 };

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

async function main(argv: string[], help: string, given: (secrets: Secret[]) => void, log: (line: string) => void): Promise<number> {
  const { values } = parseArgs({ args: withGenerateValue(argv), strict: true, options: parseArgsOptions() });
  const request = readRequest(values, process.env);
  // From here on, what the command prints itself is masked too (the run masks its own output).
  given(secretsOf({ baseUrl: "", apiKey: "", ...request.options, ...(request.cookie ? { session: { cookie: request.cookie } } : {}) }));
  if (request.help) {
    console.log(help);
    return 0;
  }
  const o = request.options;
  const keys = o.keys;
  const scopedKeys = o.scopedKeys;
  const oauth = o.oauth;
  const cleanups: (() => Promise<void>)[] = [];
  let { baseUrl, apiKey, otherApiKey } = o;
  let allowWrites = Boolean(o.allowWrites);
  let allowSpend = Boolean(o.allowSpend);
  const staticMock = Boolean(o.staticMock || request.prismMock);
  const { cookie, origin } = request;
  let session: ConformanceOptions["session"] = cookie ? { cookie, ...(origin ? { origin } : {}) } : undefined;
  if (origin && !cookie) throw new Usage("--origin is the Origin allowed for a site session: give --session-cookie too");
  if (oauth.clientId && !oauth.redirectUri) throw new Usage("--oauth-client-id needs --oauth-redirect-uri (a redirect address registered for that client)");
  const generate = generateOption(request.generate, request.seed, request.operations);
  let advance: ConformanceOptions["advance"];
  let control: ConformanceOptions["control"];
  let sim: RunningSimulator | undefined;

  try {
    if (request.prismMock) {
      if (baseUrl) throw new Usage("--prism-mock starts its own target; leave --base-url out");
      const mock: RunningPrism = await startPrism("mock");
      cleanups.push(() => mock.close());
      baseUrl = mock.url;
      apiKey ??= "conformance-static-mock-key";
      log(`prism mock serving the document at ${baseUrl}`);
    } else if (!baseUrl) {
      if (apiKey) throw new Usage("--api-key without --base-url: give the server's address (or neither, to run against the simulator)");
      // The simulator with its demo keys; nothing real is spent, so everything is allowed.
      // Its heartbeat is shortened and its generations finish ten times quicker, as the CI
      // section of the guide starts the standalone one, to keep the run quick.
      // Its documented conveniences stand in for a browser: OAuth auto-consent as the demo
      // account, the site sign-in, and a published client ID metadata document.
      // Generated inputs send thousands of requests: the simulator's windows are raised
      // for the run so that they are not throttled (its rate limits are checked without).
      sim = await startSimulator({ port: 0, heartbeatSeconds: 1, timing: scaledTiming(0.1), oauth: { autoConsent: "acc_demo" }, ...(generate ? { rateLimits: GENERATE_RATE_LIMITS } : {}) });
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
      control = simulatorControl(sim.url);
      log(`no --base-url: started the simulator at ${baseUrl} with its demo keys and two keys with fewer scopes (writes and spending allowed), a site session and OAuth auto-consent`);
    }
    if (!apiKey) throw new Usage("--api-key (or HUB_API_KEY) is required with --base-url");
    if (!control && !staticMock) {
      control = await detectSimulatorControl(baseUrl, apiKey);
      if (control) log(`${baseUrl} exposes the simulator's control interface (/_sim/): the sequences that cancel or delete a generation or revoke a key use it`);
    }

    let viaUrl: string | undefined;
    if (request.prism) {
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
        oauthToken: o.oauthToken,
        oauth,
        staticMock,
        viaUrl,
        reserve: o.reserve,
        maxWaitSeconds: o.maxWaitSeconds,
        settleSeconds: o.settleSeconds,
        requestTimeoutMs: o.requestTimeoutMs,
        maxAnswerBytes: o.maxAnswerBytes,
        quick: o.quick,
        only: o.only,
        minCoverage: o.minCoverage,
        ...(generate ? { generate } : {}),
        advance,
        control,
        log: request.output.verbose ? log : undefined,
        progress: log,
      },
      { prism: Boolean(request.prism) },
    );
    const out = request.output;
    if (out.json) console.log(renderJson(report));
    else console.log(renderTable(report, { all: out.all, coverage: out.coverage, width: process.stdout.columns || 100 }));
    if (out.junit) {
      writeFileSync(out.junit, renderJunit(report));
      log(`JUnit report written to ${out.junit}`);
    }
    if (out.har) {
      writeFileSync(out.har, renderHar(report));
      log(`HAR file of ${report.exchanges.length} failing exchange(s) written to ${out.har}`);
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
  const help = usageOf(command.program);
  let masker = new Masker([]);
  const say = (text: string) => console.error(masker.text(text));
  try {
    exitAfterOutput(await main(argv, help, (secrets) => (masker = new Masker(secrets)), say));
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      // A stray word may be a secret given without its flag: it is not repeated.
      say(`conformance: ${(error as Error).message.replace(/^Unexpected argument '[^']*'/, "Unexpected argument (not repeated: it may be a secret)")}\n\n${help}`);
    } else if (error instanceof ServerGone) {
      say(`conformance: ${error.message}`);
    } else if (error instanceof Usage) {
      say(`conformance: ${error.message}\n(--help lists the options)`);
    } else {
      const verbose = argv.includes("--verbose");
      say(`conformance: the run could not complete: ${error instanceof Error ? (verbose ? error.stack : error.message) : String(error)}`);
    }
    process.exit(2);
  }
}
