// Shared by the docs tests: a static server for a built site under a mount path (as the
// simulator serves it at /docs/), and how to find Debian's Chromium.
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, sep } from "node:path";
import ts from "typescript";
import { expect } from "vitest";
import { at } from "../../scripts/lib/paths.ts";
import { docsHeaders } from "../../src/simulator/http/docs.ts";
import { ownDiagnostics } from "../support/typescript.ts";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".yaml": "application/yaml",
  ".svg": "image/svg+xml",
};

export interface StaticSite {
  /** Address of the site root, ending with a slash (e.g. http://127.0.0.1:4321/docs/). */
  url: string;
  /** Every path requested, in order (for checks on what a page loads). */
  requests: string[];
  close(): Promise<void>;
}

/**
 * Serves `dir` at `mount` on 127.0.0.1 (a random port). `/docs` redirects to `/docs/`.
 * With `docsHeaders`, every file is served with the headers the simulator serves /docs with
 * (nosniff, the pages' CSP), so a browser check of the docs runs under them.
 */
export async function serveSite(dir: string, mount = "/docs/", { docsHeaders: asDocs = false } = {}): Promise<StaticSite> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://localhost").pathname);
    requests.push(path);
    if (path === mount.slice(0, -1)) {
      res.writeHead(301, { location: mount }).end();
      return;
    }
    if (!path.startsWith(mount)) {
      res.writeHead(404).end("outside the mount path");
      return;
    }
    let file = normalize(join(dir, path.slice(mount.length)));
    if (!file.startsWith(normalize(dir + sep)) && file !== normalize(dir)) {
      res.writeHead(403).end();
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, "index.html");
    if (!existsSync(file)) {
      res.writeHead(404).end("not found");
      return;
    }
    const bytes = readFileSync(file);
    const contentType = TYPES[extname(file)] ?? "application/octet-stream";
    res.writeHead(200, asDocs ? docsHeaders(path, { contentType, bytes }) : { "content-type": contentType }).end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${mount}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The type errors of the files a tsconfig names (code samples against the client's sources), as a reader's compiler reports them. */
export function diagnostics(configFile: string): string[] {
  const config = ts.readConfigFile(configFile, ts.sys.readFile);
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, "\n"));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, join(configFile, ".."));
  expect(parsed.fileNames.length).toBeGreaterThan(0);
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  return ownDiagnostics(program, parsed.fileNames).map((d) => {
    const where = d.file ? `${d.file.fileName.replace(at("."), "")}(${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1})` : "";
    return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
}
