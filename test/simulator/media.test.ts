// Measuring images the way the simulator does before it prices or accepts a reference:
// the pixel size read from the header of real PNG, JPEG and WebP files (the WebP files in
// all three layouts), and undefined for bytes that are not an image of the declared type.
import { describe, expect, it } from "vitest";
import { png } from "../../src/simulator/assets/make-assets.ts";
import { imageSize } from "../../src/simulator/core/media.ts";
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
