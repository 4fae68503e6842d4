// How the suite's requests go on the wire (src/conformance/target/wire.ts): node:http for
// every request but an event stream's, sent as fetch would send it and read as fetch would
// read it. Each case is a server a user's backend could be: one that compresses, one that
// trickles its answer, one that sends more than the suite reads.
import { createServer, type IncomingHttpHeaders, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { sendHttp, TOO_LARGE, WireError, type WireOptions } from "../../src/conformance/target/wire.ts";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function serve(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const options = (url: string, more: Partial<WireOptions> = {}): WireOptions => ({ url, timeoutMs: 2_000, limit: 1024, ...more });

describe("a request on the wire", () => {
  it("carries the headers fetch adds when the suite sets none of them, and the suite's own where it does", async () => {
    const seen: IncomingHttpHeaders[] = [];
    const url = await serve((req, res) => {
      seen.push(req.headers);
      res.end("{}");
    });
    await sendHttp({ method: "GET", url: `${url}/v1/me`, headers: { authorization: "Bearer k" } }, options(`${url}/v1/me`));
    await sendHttp({ method: "GET", url: `${url}/v1/me`, headers: { Accept: "application/json", "accept-language": "ru" } }, options(`${url}/v1/me`));
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatchObject({ authorization: "Bearer k", accept: "*/*", "accept-language": "*", "user-agent": "node", "accept-encoding": "gzip, deflate" });
    expect(seen[1]).toMatchObject({ accept: "application/json", "accept-language": "ru" });
  });

  it("sends its path as fetch does (a space, a non-ASCII character percent-encoded in UTF-8, dot segments resolved), or as written where a check asks", async () => {
    const seen: string[] = [];
    const url = await serve((req, res) => {
      seen.push(req.url!);
      res.end("{}");
    });
    const written = `${url}/v1/./models?q=a b ü☃`;
    await sendHttp({ method: "GET", url: written, headers: {} }, options(written));
    await sendHttp({ method: "GET", url: `${url}/v1/./me`, headers: {} }, options(`${url}/v1/./me`, { asWritten: true }));
    expect(seen).toEqual(["/v1/models?q=a%20b%20%C3%BC%E2%98%83", "/v1/./me"]);
  });

  it("reads a compressed answer as its text (Content-Encoding undone), and counts the bytes it was", async () => {
    const json = JSON.stringify({ data: "x".repeat(500) });
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(gzipSync(json));
    });
    const answer = await sendHttp({ method: "GET", url, headers: {} }, options(url));
    expect([answer.status, answer.text, answer.size]).toEqual([200, json, json.length]);
    expect(answer.headers.get("content-encoding")).toBe("gzip");
  });

  it("keeps a file's bytes when asked, whatever they are", async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255, 1]);
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "image/png" });
      res.end(bytes);
    });
    const answer = await sendHttp({ method: "GET", url, headers: {} }, options(url, { binary: true }));
    expect([answer.text, Buffer.from(answer.bytes!).equals(bytes), answer.size]).toEqual(["", true, bytes.length]);
  });

  it("reads no further than the limit: a Content-Length beyond it, a body beyond it, a compressed body that inflates beyond it", async () => {
    const cases: Record<string, RequestListener> = {
      "/declared": (_req, res) => {
        res.writeHead(200, { "content-length": "4096" });
        res.write("x".repeat(10));
      },
      "/streamed": (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end("x".repeat(4096));
      },
      "/inflated": (_req, res) => {
        res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
        res.end(gzipSync("x".repeat(100_000)));
      },
    };
    const url = await serve((req, res) => cases[req.url!]!(req, res));
    expect(Object.keys(cases).length).toBeGreaterThan(0);
    for (const path of Object.keys(cases)) {
      await expect(sendHttp({ method: "GET", url: url + path, headers: {} }, options(url + path)), path).rejects.toBe(TOO_LARGE);
    }
  });

  it("waits at most the timeout for the whole answer, not per chunk: a server that trickles is cut off", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const drip = setInterval(() => res.write(" "), 50);
      res.on("close", () => clearInterval(drip));
    });
    const started = Date.now();
    const error = await sendHttp({ method: "GET", url, headers: {} }, options(url, { timeoutMs: 300 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WireError);
    expect((error as WireError).timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("a header value node:http will not send, and a body that is not in its coding, are wire errors, not crashes", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end("not gzip");
    });
    const badHeader = await sendHttp({ method: "GET", url, headers: { "x-bad": "a\nb" } }, options(url)).catch((e: unknown) => e);
    expect([badHeader instanceof WireError, (badHeader as WireError).timedOut]).toEqual([true, false]);
    const badBody = await sendHttp({ method: "GET", url, headers: {} }, options(url)).catch((e: unknown) => e);
    expect([badBody instanceof WireError, (badBody as WireError).timedOut]).toEqual([true, false]);
  });
});
