// startSimulator: the hub simulator on a real HTTP server (node:http), for tests, the
// typed client's suite, the conformance suite and `npm start`.
import { networkInterfaces } from "node:os";
import { fileURLToPath } from "node:url";
import { isLoopbackHost } from "../common/loopback.ts";
import { Hub, type HubOptions } from "./hub.ts";
import { fileAssets } from "./http/assets.ts";
import { DEFAULT_BODY_LIMIT } from "./http/body-limits.ts";
import { createServer, type ServerOptions } from "./http/server.ts";
import { HubControl, type RequestExchange, type RequestFilter, type RequestSummary } from "./msw/control.ts";
import { DEFAULT_SANDBOX_LIMITS, Sandboxes } from "./sandboxes.ts";

export { Hub } from "./hub.ts";
export { Sandboxes, DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from "./sandboxes.ts";
export type { HubOptions, AssetSource, Mount } from "./hub.ts";
export type { SimRequest, SimResponse, StreamSink } from "./pipeline/exchange.ts";
export { demoKeys, demoAccounts } from "./state/fixtures/accounts.ts";
export { ScenarioError, shippedNames, type Scenario, type ScenarioFile } from "./hub.ts";
export { FaultError, type Fault, type FaultSpec, type FaultView } from "./hub.ts";
export { ControlError, HubControl, type ControlTransport, type HttpControlOptions, type RequestExchange, type RequestFilter, type RequestSummary, type SandboxHandle, type SandboxInfo } from "./msw/control.ts";

export interface SimulatorOptions extends HubOptions, Partial<Omit<ServerOptions, "controlOff">> {
  /**
   * Default 127.0.0.1. Another address (`0.0.0.0`, a network address) serves the API to
   * the network, and the control interface /_sim/ is then off unless `exposeControl`.
   */
  host?: string;
  /** Default 4010; 0 picks a free port. */
  port?: number;
  /**
   * Serve the control interface /_sim/ on a host that is not loopback too (default
   * false): it hands out every key's secret and resets, revokes and rewrites the hub, to
   * anyone who can reach the address.
   */
  exposeControl?: boolean;
  /** Sandboxes alive at once (default 50); one more is refused with 503 service_unavailable. */
  maxSandboxes?: number;
  /** Real seconds without a request (or an open event stream) after which a sandbox ends (default 900). */
  sandboxIdleSeconds?: number;
}

export interface RunningSimulator {
  /** Base address, e.g. `http://127.0.0.1:4010` (a loopback one when it listens on every address). */
  url: string;
  /** Every address it answers at: `url` alone on a loopback or named host, each address of the machine on 0.0.0.0 or ::. */
  urls: string[];
  /** Whether /_sim/ is served (off on a non-loopback host without `exposeControl`). */
  control: boolean;
  /** The default hub: every request that names no sandbox. */
  hub: Hub;
  /** The sandboxes (`POST /_sim/sandboxes`), each a hub of its own, and the default hub as `sandboxes.main`. */
  sandboxes: Sandboxes;
  /**
   * The request journal's rows, newest first (`GET /_sim/requests`): what your app sent and
   * what the hub answered, with the refusal's reason; credentials by id, never by value.
   */
  requests(filter?: RequestFilter): Promise<RequestSummary[]>;
  /** One whole exchange of the journal by its `seq` (`GET /_sim/requests/{seq}`). */
  exchange(seq: number): Promise<RequestExchange>;
  /** Until `build` settles, /docs answers a page saying the docs are being built (not a 404). */
  docsBuilding(build: Promise<unknown>): void;
  close(): Promise<void>;
}

export { DEFAULT_BODY_LIMIT } from "./http/body-limits.ts";
export const DEFAULT_DOCS_DIR = fileURLToPath(new URL("../../site/", import.meta.url));

/** `http://host:port` with an IPv6 address in brackets. */
function addressUrl(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** Every address a server listening on `host` answers at (each address of this machine for 0.0.0.0 and ::). */
function addressesOf(host: string, port: number): string[] {
  const everywhere = host === "0.0.0.0" || host === "::" || host === "";
  if (!everywhere) return [addressUrl(host, port)];
  const found: string[] = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      if (a.family === "IPv4" || (host === "::" && a.family === "IPv6" && !a.address.startsWith("fe80"))) found.push(addressUrl(a.address, port));
    }
  }
  // The loopback address first: it is the one `url` names.
  return found.sort((a, b) => Number(b.includes("127.0.0.1")) - Number(a.includes("127.0.0.1")));
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const host = options.host ?? "127.0.0.1";
  const control = options.control !== false && (isLoopbackHost(host) || options.exposeControl === true);
  const { maxSandboxes = DEFAULT_SANDBOX_LIMITS.max, sandboxIdleSeconds = DEFAULT_SANDBOX_LIMITS.idleSeconds } = options;
  const front = new Sandboxes({ ...options, control, assets: options.assets ?? fileAssets() }, { max: maxSandboxes, idleSeconds: sandboxIdleSeconds });
  const hub = front.main;
  let pendingDocs = 0;
  const named = [host, options.publicUrl ? new URL(options.publicUrl).hostname : ""].filter((h) => h !== "" && !h.includes(":"));
  const app = createServer(front, {
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    cors: options.cors ?? false,
    allowedHosts: [...named, ...(options.allowedHosts ?? [])],
    controlOff: control || options.control === false ? undefined : `The control interface /_sim/ is off: the simulator listens on ${host}, an address other machines can reach, and /_sim/ hands out every key's secret and resets, revokes and rewrites the hub. Start it with --expose-control (exposeControl: true) to serve /_sim/ there anyway, or on 127.0.0.1.`,
    // Read per request: a docs build made while the simulator runs shows up at once.
    docsDir: options.docsDir ?? DEFAULT_DOCS_DIR,
    docsBuilding: () => pendingDocs > 0,
    requestTimeoutSeconds: options.requestTimeoutSeconds ?? 30,
    maxHeaderBytes: options.maxHeaderBytes ?? 16 * 1024,
    logger: options.logger ?? false,
  });
  await app.listen({ host, port: options.port ?? 4010 });
  // Soon after the server answers, not at once: compiling the validators takes ~150 ms,
  // which a request arriving right at launch would otherwise wait for; a submit made
  // later then does not pay for it.
  const warming = setTimeout(() => hub.warm(), 100);
  const address = app.server.address();
  const port = address && typeof address === "object" ? address.port : options.port ?? 4010;
  const urls = addressesOf(host, port);
  const shownHost = host === "0.0.0.0" || host === "" ? "127.0.0.1" : host === "::" ? "::1" : host;
  let closed: Promise<void> | undefined;
  const url = addressUrl(shownHost, port);
  // In process, through the hub's own control routes (as the MSW handlers' `control`).
  const inProcess = new HubControl(hub, url);
  const off = () => Promise.reject(new Error("The control interface /_sim/ is off for this simulator (control: false, or a host other than loopback without exposeControl), and the request journal is read through it."));
  return {
    url,
    urls: urls.length > 0 ? urls : [addressUrl(shownHost, port)],
    control,
    hub,
    sandboxes: front,
    requests: (filter) => (control ? inProcess.requests(filter) : off()),
    exchange: (seq) => (control ? inProcess.exchange(seq) : off()),
    docsBuilding(build) {
      pendingDocs++;
      const done = () => void pendingDocs--;
      build.then(done, done);
    },
    close() {
      closed ??= (async () => {
        clearTimeout(warming);
        front.shutdown();
        await app.close();
      })();
      return closed;
    },
  };
}
