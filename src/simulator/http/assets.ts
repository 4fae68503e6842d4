// The committed result files (tiny, real): one per output kind.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { AssetFile, AssetSource } from "../hub.ts";

/** The file of each output kind, in src/simulator/assets/. */
export const RESULT_FILES: Readonly<Record<string, { fileName: string; contentType: string }>> = {
  image: { fileName: "image.png", contentType: "image/png" },
  video: { fileName: "video.mp4", contentType: "video/mp4" },
  model: { fileName: "model.glb", contentType: "model/gltf-binary" },
};

export function fileAssets(dir = fileURLToPath(new URL("../assets/", import.meta.url))): AssetSource {
  const cache = new Map<string, AssetFile | undefined>();
  return (kind) => {
    if (!cache.has(kind)) {
      const f = RESULT_FILES[kind];
      let file: AssetFile | undefined;
      if (f) {
        try {
          file = { ...f, bytes: new Uint8Array(readFileSync(`${dir}/${f.fileName}`)) };
        } catch {
          file = undefined;
        }
      }
      cache.set(kind, file);
    }
    return cache.get(kind);
  };
}
