// The simulator's result files (a PNG, an MP4, a GLB) carried in the code, for places
// without a file system: a browser, a bundled test. result-files.ts is generated from
// src/simulator/assets/ by make-result-files.ts.
import type { AssetFile, AssetSource } from "../hub.ts";
import { RESULT_FILE_DATA } from "./result-files.ts";

function decodeBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Result files by output kind (`image`, `video`, `model`), decoded on first use. */
export function embeddedAssets(): AssetSource {
  const cache = new Map<string, AssetFile>();
  return (kind) => {
    let file = cache.get(kind);
    if (!file && Object.hasOwn(RESULT_FILE_DATA, kind)) {
      const { fileName, contentType, base64 } = RESULT_FILE_DATA[kind]!;
      file = { fileName, contentType, bytes: decodeBase64(base64) };
      cache.set(kind, file);
    }
    return file;
  };
}
