// Measuring a file the way the hub does before it prices or accepts a reference: the
// pixel size of a PNG, JPEG or WebP image, read from its header. A file whose bytes are
// not an image of its declared type measures as undefined (unreadable). No decoder: the
// simulator only needs the dimensions and a sanity check of the container.

export interface ImageSize {
  width: number;
  height: number;
}

export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp"] as const;

export function isImageType(contentType: string): boolean {
  return (IMAGE_TYPES as readonly string[]).includes(contentType);
}

/** The image's pixel size, or undefined when the bytes are not a readable image of `contentType`. */
export function imageSize(bytes: Uint8Array, contentType: string): ImageSize | undefined {
  const size = contentType === "image/png" ? png(bytes) : contentType === "image/jpeg" ? jpeg(bytes) : contentType === "image/webp" ? webp(bytes) : undefined;
  return size && size.width > 0 && size.height > 0 ? size : undefined;
}

const be16 = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!;
const be32 = (b: Uint8Array, at: number) => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
const le16 = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8);
const le24 = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
const le32 = (b: Uint8Array, at: number) => (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
const ascii = (b: Uint8Array, at: number, n: number) => String.fromCharCode(...b.subarray(at, at + n));

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

// Signature, then the IHDR chunk first: length 13, "IHDR", width, height (big-endian).
function png(b: Uint8Array): ImageSize | undefined {
  if (b.length < 33 || PNG_SIGNATURE.some((v, i) => b[i] !== v)) return undefined;
  if (be32(b, 8) !== 13 || ascii(b, 12, 4) !== "IHDR") return undefined;
  return { width: be32(b, 16), height: be32(b, 20) };
}

// Segments after SOI until a start-of-frame marker (SOF0..SOF15 but DHT, JPG, DAC),
// which holds precision, height, width.
function jpeg(b: Uint8Array): ImageSize | undefined {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return undefined;
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      at += 2; // markers without a length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return undefined; // end of image or scan before any frame
    const length = be16(b, at + 2);
    if (length < 2) return undefined;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (at + 9 > b.length) return undefined;
      return { width: be16(b, at + 7), height: be16(b, at + 5) };
    }
    at += 2 + length;
  }
  return undefined;
}

// RIFF container: "RIFF" size "WEBP", then the first chunk: "VP8 " (lossy), "VP8L"
// (lossless) or "VP8X" (extended, with the canvas size).
function webp(b: Uint8Array): ImageSize | undefined {
  if (b.length < 30 || ascii(b, 0, 4) !== "RIFF" || ascii(b, 8, 4) !== "WEBP") return undefined;
  const chunk = ascii(b, 12, 4);
  const d = 20; // chunk data
  if (chunk === "VP8 ") {
    // Frame tag (3 bytes), start code 9d 01 2a, then 14-bit width and height.
    if (b[d + 3] !== 0x9d || b[d + 4] !== 0x01 || b[d + 5] !== 0x2a) return undefined;
    return { width: le16(b, d + 6) & 0x3fff, height: le16(b, d + 8) & 0x3fff };
  }
  if (chunk === "VP8L") {
    // Signature 0x2f, then 14 bits of width - 1 and 14 bits of height - 1.
    if (b[d] !== 0x2f) return undefined;
    const bits = le32(b, d + 1);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === "VP8X") {
    // Flags (1 byte), reserved (3), canvas width - 1 and height - 1 (24 bits each).
    return { width: le24(b, d + 4) + 1, height: le24(b, d + 7) + 1 };
  }
  return undefined;
}
