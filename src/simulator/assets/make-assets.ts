// Rebuilds the result files served by GET /v1/generations/{id}/outputs/{kind}/{index}:
//   image.png, model.glb  from files.ts
//   video.mp4             1 s of 64x64 H.264 at 10 fps: frames encoded by Chromium's WebCodecs
//                         (playwright-core, /usr/bin/chromium), muxed into a progressive MP4
// A command, not a library: tests import files.ts, never this (it writes into the tree).
// Run: npx tsx src/simulator/assets/make-assets.ts [png|glb|mp4 ...]
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { glb, png } from "./files.ts";

const here = (name: string) => fileURLToPath(new URL(name, import.meta.url));

const wanted = process.argv.slice(2);
const all = wanted.length === 0;
if (all || wanted.includes("png")) writeFileSync(here("image.png"), png());
if (all || wanted.includes("glb")) writeFileSync(here("model.glb"), glb());
if (all || wanted.includes("mp4")) {
  const { mp4 } = await import("./make-mp4.ts");
  writeFileSync(here("video.mp4"), await mp4());
}
