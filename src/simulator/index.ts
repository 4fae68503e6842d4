// startSimulator: the hub simulator on a real HTTP server (Fastify), for tests, the
// typed client's suite, the conformance suite and `npm start`.
import { fileURLToPath } from "node:url";
import { Hub, type HubOptions } from "./hub.ts";
import { fileAssets } from "./http/assets.ts";
import { DEFAULT_BODY_LIMIT } from "./http/body-limits.ts";
import { createServer, type ServerOptions } from "./http/server.ts";

export { Hub } from "./hub.ts";
export type { HubOptions, AssetSource, Mount } from "./hub.ts";
export type { SimRequest, SimResponse, StreamSink } from "./pipeline/exchange.ts";
export { demoKeys, demoAccounts } from "./state/fixtures/accounts.ts";
export { ScenarioError, shippedNames, type Scenario, type ScenarioFile } from "./hub.ts";
export { FaultError, type Fault, type FaultSpec, type FaultView } from "./hub.ts";

export interface SimulatorOptions extends HubOptions, Partial<ServerOptions> {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 4010; 0 picks a free port. */
  port?: number;
}

export interface RunningSimulator {
  /** Base address, e.g. `http://127.0.0.1:4010`. */
  url: string;
  hub: Hub;
  /** Until `build` settles, /docs answers a page saying the docs are being built (not a 404). */
  docsBuilding(build: Promise<unknown>): void;
  close(): Promise<void>;
}

export { DEFAULT_BODY_LIMIT } from "./http/body-limits.ts";
export const DEFAULT_DOCS_DIR = fileURLToPath(new URL("../../site/", import.meta.url));

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const hub = new Hub({ ...options, assets: options.assets ?? fileAssets() });
  let pendingDocs = 0;
  const app = createServer(hub, {
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    cors: options.cors ?? false,
    // Read per request: a docs build made while the simulator runs shows up at once.
    docsDir: options.docsDir ?? DEFAULT_DOCS_DIR,
    docsBuilding: () => pendingDocs > 0,
    requestTimeoutSeconds: options.requestTimeoutSeconds ?? 30,
    maxHeaderBytes: options.maxHeaderBytes ?? 16 * 1024,
    logger: options.logger ?? false,
  });
  const host = options.host ?? "127.0.0.1";
  await app.listen({ host, port: options.port ?? 4010 });
  // Soon after the server answers, not at once: compiling the validators takes ~150 ms,
  // which a request arriving right at launch would otherwise wait for; a submit made
  // later then does not pay for it.
  const warming = setTimeout(() => hub.warm(), 100);
  const address = app.server.address();
  const port = address && typeof address === "object" ? address.port : options.port;
  const shownHost = host.includes(":") ? `[${host}]` : host === "0.0.0.0" ? "127.0.0.1" : host;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${port}`,
    hub,
    docsBuilding(build) {
      pendingDocs++;
      const done = () => void pendingDocs--;
      build.then(done, done);
    },
    close() {
      closed ??= (async () => {
        clearTimeout(warming);
        hub.shutdown();
        await app.close();
      })();
      return closed;
    },
  };
}
