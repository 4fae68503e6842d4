// A small, valid PNG the suite uploads (a plain grey square): real image bytes, so a
// server that reads the file (support images, an upscale estimate) can measure it.
import { encodePng } from "../../common/png.ts";

/** A `size`×`size` grey PNG (8-bit greyscale); `shade` makes files of the same size differ. */
export function greyPng(size = 64, shade = 0x80): Uint8Array {
  const rows = Buffer.alloc(size * (size + 1));
  for (let y = 0; y < size; y++) rows.fill(shade & 0xff, y * (size + 1) + 1, (y + 1) * (size + 1));
  return new Uint8Array(encodePng(size, 0, rows));
}
