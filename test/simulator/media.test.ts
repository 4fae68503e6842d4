// Measuring images the way the simulator does before it prices or accepts a reference:
// the pixel size read from the header of real PNG, JPEG and WebP files (the WebP files in
// all three layouts), and undefined for bytes that are not an image of the declared type;
// and the result files the simulator serves, as committed.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { glb, png } from "../../src/simulator/assets/files.ts";
import { imageSize } from "../../src/simulator/state/media.ts";
import { fixture, PNG } from "./support/uploads.ts";

describe("image size", () => {
  it("PRICE-5: reads the size of PNG, JPEG and WebP (VP8X, VP8, VP8L) files", () => {
    expect(imageSize(PNG, "image/png")).toEqual({ width: 64, height: 64 });
    expect(imageSize(png(17), "image/png")).toEqual({ width: 17, height: 17 });
    expect(imageSize(fixture("photo.jpg"), "image/jpeg")).toEqual({ width: 300, height: 200 });
    expect(imageSize(fixture("extended.webp"), "image/webp")).toEqual({ width: 301, height: 199 });
    expect(imageSize(fixture("lossy.webp"), "image/webp")).toEqual({ width: 301, height: 199 });
    expect(imageSize(fixture("lossless.webp"), "image/webp")).toEqual({ width: 120, height: 90 });
  });

  it("PRICE-5: bytes that are not an image of the declared type are unreadable", () => {
    expect(imageSize(PNG, "image/jpeg")).toBeUndefined();
    expect(imageSize(fixture("photo.jpg"), "image/png")).toBeUndefined();
    expect(imageSize(new TextEncoder().encode("not an image at all, just text"), "image/png")).toBeUndefined();
    expect(imageSize(PNG.subarray(0, 20), "image/png")).toBeUndefined();
    expect(imageSize(fixture("photo.jpg").subarray(0, 30), "image/jpeg")).toBeUndefined();
    expect(imageSize(new Uint8Array(0), "image/webp")).toBeUndefined();
    expect(imageSize(PNG, "video/mp4")).toBeUndefined();
  });
});

describe("the result files", () => {
  // The committed files are what the generators make: a change to either shows up here,
  // and importing the generators writes nothing (the tree is not touched by a test run).
  const committed = (name: string) => readFileSync(fileURLToPath(new URL(`../../src/simulator/assets/${name}`, import.meta.url)));
  it("image.png and model.glb are exactly what files.ts makes", () => {
    expect(committed("image.png").equals(png())).toBe(true);
    expect(committed("model.glb").equals(glb())).toBe(true);
  });
  it("video.mp4 is a progressive MP4: ftyp, then moov, then mdat", () => {
    const file = committed("video.mp4");
    const boxes: string[] = [];
    for (let at = 0; at < file.length; at += file.readUInt32BE(at)) boxes.push(file.toString("ascii", at + 4, at + 8));
    expect(boxes).toEqual(["ftyp", "moov", "mdat"]);
  });
});
