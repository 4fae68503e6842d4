// The page of the browser test (test/simulator/msw-browser.test.ts), bundled by esbuild:
// it registers MSW's service worker with the hub's handlers, then drives the typed client
// as a frontend would (submit, advance the clock, the event stream, resume, a result
// file, an upload, a refusal, an export) and reports what it saw in `window.mswReport`.
import { setupWorker } from "msw/browser";
import { createHubClient, HubApiError, type HubClient, type HubEvent } from "../../../src/client/index.ts";
import { createHubHandlers } from "../../../src/simulator/msw/index.ts";

export interface PageReport {
  submit: { status: number; generationStatus: string; requestId: string; rateLimitPolicy: string | undefined };
  /** Statuses of the submitted generation, as the first stream delivered them. */
  streamed: string[];
  /** Open streams in the hub after the page closed the first stream. */
  openAfterClose: number;
  /** Statuses delivered after resuming from the second frame's id. */
  resumed: string[];
  /** The first frame of a stream resumed from an id the hub never gave. */
  unknownCursor: { event: string; reason?: string };
  final: string;
  file: { status: number; contentType: string | null; bytes: number; signature: number[] };
  upload: { reference: boolean; bytesStored: number | undefined };
  tooLarge: { status: number; code: string };
  refusal: { status: number; code: string };
  /**
   * The page's own fetch to /_sim/ through the worker (the guard of the control interface
   * runs in the hub here too): a JSON change, and a POST without JSON.
   */
  pageControl: { json: number; bare: number };
  /** The busy account exported through the control route (written a slice at a time), beside the hub's own export. */
  exported: { generations: number; sameAsHub: boolean };
}

declare global {
  interface Window {
    mswReport?: Promise<PageReport | { error: string }>;
  }
}

const BASE = "https://hub.example";

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function collect(client: HubClient, lastEventId?: string) {
  const got: HubEvent[] = [];
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const stream = client.events({ lastEventId, onOpen: () => open() });
  const done = (async () => {
    for await (const e of stream) got.push(e);
  })();
  done.catch(() => undefined);
  return { stream, got, opened, done };
}

const statusesOf = (events: HubEvent[], id: string) => events.flatMap((e) => (e.event === "generation.status_changed" && e.data.id === id ? [e.data.status] : []));

async function run(): Promise<PageReport> {
  const { handlers, control, hub } = createHubHandlers({ baseUrl: BASE });
  const worker = setupWorker(...handlers);
  await worker.start({ quiet: true, onUnhandledRequest: "error", serviceWorker: { url: "/mockServiceWorker.js" } });
  const client = createHubClient({ baseUrl: BASE, apiKey: "ghk_demo_full", backoffBase: 5, backoffMax: 20 });

  const first = collect(client);
  await first.opened;
  const submitted = await client.submit({ type: "image", model: "image-model-a", prompt: "a fox in a browser" });
  const id = submitted.data.id;
  await control.advance(60);
  await until(() => statusesOf(first.got, id).includes("DONE"), "DONE on the stream");
  first.stream.close();
  await first.done;
  await until(async () => (await control.state()).open_streams === 0, "the hub to stop the closed stream");
  const openAfterClose = (await control.state()).open_streams;

  const resumed = collect(client, first.got[1]!.id);
  await until(() => resumed.got.length >= 2, "the resumed frames");
  resumed.stream.close();

  const unknown = collect(client, "not-a-cursor-of-this-hub");
  await until(() => unknown.got.length >= 1, "the reset frame");
  unknown.stream.close();
  const reset = unknown.got[0]!;

  const record = await client.waitForGeneration(id);
  const fileResponse = await fetch(record.output_urls![0]!, { headers: { authorization: "Bearer ghk_demo_full" } });
  const fileBytes = new Uint8Array(await fileResponse.arrayBuffer());

  // A real PNG made here, in the browser, for the storage PUT (the hub measures it).
  const canvas = new OffscreenCanvas(8, 8);
  canvas.getContext("2d")!.fillRect(0, 0, 8, 8);
  const png = await canvas.convertToBlob({ type: "image/png" });
  const uploaded = await client.upload(png, { contentType: "image/png" });
  const proxied = await client.upload(png, { contentType: "image/png", via: "proxy" });

  const big = await fetch(`${BASE}/v1/generations`, {
    method: "POST",
    headers: { authorization: "Bearer ghk_demo_full", "content-type": "application/json", "idempotency-key": "big" },
    body: JSON.stringify({ type: "image", model: "image-model-a", prompt: "x".repeat(2 * 1024 * 1024) }),
  });
  const refused = await client.submit({ type: "image", model: "image-model-a", prompt: "too many", n_variants: 99 } as never).catch((e: unknown) => e);
  const controlJson = await fetch(`${BASE}/_sim/clock`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ speed: 0 }) });
  const controlBare = await fetch(`${BASE}/_sim/reset`, { method: "POST" });

  await control.loadScenario("busy-account");
  const exported = await control.exportScenario();

  return {
    submit: { status: submitted.status, generationStatus: submitted.data.status, requestId: submitted.requestId, rateLimitPolicy: submitted.rateLimit?.policy },
    streamed: statusesOf(first.got, id),
    openAfterClose,
    resumed: statusesOf(resumed.got, id),
    unknownCursor: { event: reset.event, reason: reset.event === "reset" ? reset.data.reason : undefined },
    final: record.status,
    file: { status: fileResponse.status, contentType: fileResponse.headers.get("content-type"), bytes: fileBytes.byteLength, signature: [...fileBytes.slice(0, 8)] },
    upload: { reference: uploaded.reference === uploaded.ticket.reference, bytesStored: proxied.bytesStored },
    tooLarge: { status: big.status, code: ((await big.json()) as { error: { code: string } }).error.code },
    refusal: refused instanceof HubApiError ? { status: refused.status, code: refused.code } : { status: 0, code: String(refused) },
    pageControl: { json: controlJson.status, bare: controlBare.status },
    exported: { generations: exported.generations.length, sameAsHub: JSON.stringify(exported) === JSON.stringify(hub.exportScenario()) },
  };
}

window.mswReport = run().catch((error: unknown) => ({ error: error instanceof Error ? `${error.message}\n${error.stack}` : String(error) }));
