// --log: one line per request on stdout from the adapter (node:http), with the URL masked as
// the journal masks it, so a key or token in a query never reaches a log.
import { afterAll, expect, it, vi } from "vitest";
import { Hub } from "../../src/simulator/index.ts";
import { createServer } from "../../src/simulator/http/server.ts";

const hub = new Hub({ clockSpeed: 0 });
const app = createServer(hub, { bodyLimit: 1 << 20, cors: false, docsDir: undefined, requestTimeoutSeconds: 30, maxHeaderBytes: 16 * 1024, logger: true, allowedHosts: [] });
afterAll(async () => {
  hub.shutdown();
  await app.close();
});

it("logs each request's method, masked URL and status, never the key it carries", async () => {
  const lines: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)));
  try {
    const res = await app.inject({ url: "/v1/generations?limit=2&api_key=ghk_demo_full", headers: { authorization: "Bearer ghk_demo_full" } });
    expect(res.statusCode).toBeGreaterThanOrEqual(200);
    const refused = await app.inject({ url: "/v1/me" });
    expect(refused.statusCode).toBe(401);
  } finally {
    log.mockRestore();
  }
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(/^GET \/v1\/generations\?limit=2&api_key=ghk_… \(key_full\) 200 \d+\.\d ms$/);
  expect(lines[1]).toMatch(/^GET \/v1\/me 401 \d+\.\d ms$/);
  for (const line of lines) expect(line).not.toContain("ghk_demo_full");
});
