// Uploads for tests: a ticket from POST /v1/uploads, then one PUT (to storage or through
// the proxy path). Every API answer is checked against the contract by the harness;
// storage answers are not API answers and are returned as they come.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { FULL, type Reply, type Sim } from "./harness.ts";

/** The simulator's own 64×64 PNG. */
export const PNG = new Uint8Array(readFileSync(fileURLToPath(new URL("../../../src/simulator/assets/image.png", import.meta.url))));

/** Small real images made by Chromium (see fixtures/make-images.mjs). */
export function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url))));
}

export interface StorageReply {
  status: number;
  headers: Headers;
  text: string;
}

/** A PUT to a storage address, with exactly the headers given (and nothing of the API's). */
export async function storagePut(url: string, headers: Record<string, string>, body: Uint8Array): Promise<StorageReply> {
  const res = await fetch(url, { method: "PUT", headers, body: body as BodyInit });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

export async function ticket(sim: Sim, contentType: string, length: number, key = FULL): Promise<Reply> {
  return sim.post("/v1/uploads", { kind: "image", content_type: contentType, content_length: length }, { key });
}

/** Uploads `bytes` and answers the reference (direct PUT by default). */
export async function upload(sim: Sim, bytes: Uint8Array = PNG, options: { contentType?: string; key?: string; via?: "direct" | "proxy" } = {}): Promise<string> {
  const type = options.contentType ?? "image/png";
  const t = await ticket(sim, type, bytes.length, options.key);
  expect(t.status, t.text).toBe(200);
  if (options.via === "proxy") {
    const done = await sim.call("PUT", t.json.proxy_path, { key: options.key, raw: bytes, headers: { "content-type": type } });
    expect(done.status, done.text).toBe(200);
  } else {
    const put = await storagePut(t.json.url, t.json.headers, bytes);
    expect(put.status, put.text).toBe(200);
  }
  return t.json.reference;
}
