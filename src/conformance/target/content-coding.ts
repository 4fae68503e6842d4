// An answer's Content-Encoding undone, for both ways the suite reads answers: the requests
// it sends (wire.ts) and the traffic it relays in passive mode (passive/proxy.ts).
import type { Transform } from "node:stream";
import { brotliDecompressSync, createBrotliDecompress, createGunzip, createInflate, gunzipSync, inflateSync } from "node:zlib";

/** A streamed body's decompressor for its Content-Encoding (none for identity). */
export function decompressor(encoding: string): Transform | undefined {
  if (encoding === "gzip" || encoding === "x-gzip") return createGunzip();
  if (encoding === "deflate") return createInflate();
  if (encoding === "br") return createBrotliDecompress();
  return undefined;
}

/**
 * A whole body decompressed for its Content-Encoding (as it is for identity or a coding
 * this does not know), at most `limit` bytes: beyond, zlib's ERR_BUFFER_TOO_LARGE is
 * thrown; a body that is not in its coding throws zlib's error.
 */
export function inflate(raw: Buffer, encoding: string, limit: number): Buffer {
  if (encoding === "gzip" || encoding === "x-gzip") return gunzipSync(raw, { maxOutputLength: limit });
  if (encoding === "deflate") return inflateSync(raw, { maxOutputLength: limit });
  if (encoding === "br") return brotliDecompressSync(raw, { maxOutputLength: limit });
  return raw;
}
