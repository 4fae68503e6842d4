// Makes assets/video.mp4: ten 64x64 frames (1 s at 10 fps) encoded to H.264 by
// Chromium's WebCodecs, muxed here into a progressive MP4 (moov before mdat), then
// played back in Chromium as a check. Used by make-assets.ts.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

interface Encoded {
  description: number[];
  samples: { key: boolean; data: number[] }[];
}

const SIZE = 64;
const FPS = 10;
const FRAMES = 10;

function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, "ascii");
  return Buffer.concat([head, body]);
}
function full(type: string, version: number, flags: number, ...parts: Buffer[]): Buffer {
  const vf = Buffer.alloc(4);
  vf.writeUInt32BE(((version & 0xff) << 24) | (flags & 0xffffff), 0);
  return box(type, vf, ...parts);
}
function u32(...values: number[]): Buffer {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeUInt32BE(v >>> 0, 4 * i));
  return b;
}
function u16(...values: number[]): Buffer {
  const b = Buffer.alloc(2 * values.length);
  values.forEach((v, i) => b.writeUInt16BE(v & 0xffff, 2 * i));
  return b;
}
const MATRIX = u32(0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000);

function mux(e: Encoded): Buffer {
  const n = e.samples.length;
  const durationMs = Math.round((n / FPS) * 1000);
  const ftyp = box("ftyp", Buffer.from("isom", "ascii"), u32(512), Buffer.from("isomiso2avc1mp41", "ascii"));
  const avc1 = box(
    "avc1",
    Buffer.alloc(6), u16(1), // reserved, data_reference_index
    u16(0, 0), u32(0, 0, 0), // pre_defined, reserved, pre_defined
    u16(SIZE, SIZE), u32(0x00480000, 0x00480000, 0), u16(1),
    Buffer.concat([Buffer.from([0]), Buffer.alloc(31)]), // compressorname
    u16(0x0018, 0xffff),
    box("avcC", Buffer.from(e.description)),
  );
  const keys = e.samples.map((s, i) => (s.key ? i + 1 : 0)).filter(Boolean);
  const stbl = (chunkOffset: number) =>
    box(
      "stbl",
      full("stsd", 0, 0, u32(1), avc1),
      full("stts", 0, 0, u32(1, n, 1)),
      full("stss", 0, 0, u32(keys.length, ...keys)),
      full("stsc", 0, 0, u32(1, 1, n, 1)),
      full("stsz", 0, 0, u32(0, n, ...e.samples.map((s) => s.data.length))),
      full("stco", 0, 0, u32(1, chunkOffset)),
    );
  const moov = (chunkOffset: number) =>
    box(
      "moov",
      full("mvhd", 0, 0, u32(0, 0, 1000, durationMs, 0x00010000), u16(0x0100, 0), u32(0, 0), MATRIX, Buffer.alloc(24), u32(2)),
      box(
        "trak",
        full("tkhd", 0, 3, u32(0, 0, 1, 0, durationMs, 0, 0), u16(0, 0, 0, 0), MATRIX, u32(SIZE << 16, SIZE << 16)),
        box(
          "mdia",
          full("mdhd", 0, 0, u32(0, 0, FPS, n), u16(0x55c4, 0)),
          full("hdlr", 0, 0, u32(0), Buffer.from("vide", "ascii"), u32(0, 0, 0), Buffer.from("VideoHandler\0", "ascii")),
          box(
            "minf",
            full("vmhd", 0, 1, u16(0, 0, 0, 0)),
            box("dinf", full("dref", 0, 0, u32(1), full("url ", 0, 1))),
            stbl(chunkOffset),
          ),
        ),
      ),
    );
  const data = Buffer.concat(e.samples.map((s) => Buffer.from(s.data)));
  const offset = ftyp.length + moov(0).length + 8;
  return Buffer.concat([ftyp, moov(offset), box("mdat", data)]);
}

const PAGE = `<!doctype html><meta charset="utf-8"><body><script>
window.encode = async () => {
  const samples = []; let description;
  const encoder = new VideoEncoder({
    output: (chunk, meta) => {
      if (meta && meta.decoderConfig && meta.decoderConfig.description) description = Array.from(new Uint8Array(meta.decoderConfig.description));
      const data = new Uint8Array(chunk.byteLength); chunk.copyTo(data);
      samples.push({ key: chunk.type === "key", data: Array.from(data) });
    },
    error: (e) => { throw e; },
  });
  encoder.configure({ codec: "avc1.42001e", width: ${SIZE}, height: ${SIZE}, bitrate: 200000, framerate: ${FPS}, avc: { format: "avc" } });
  const canvas = new OffscreenCanvas(${SIZE}, ${SIZE}); const g = canvas.getContext("2d");
  for (let i = 0; i < ${FRAMES}; i++) {
    g.fillStyle = "rgb(20, 40, " + (120 + i * 12) + ")"; g.fillRect(0, 0, ${SIZE}, ${SIZE});
    g.fillStyle = "#f0b428"; g.fillRect(4 + i * 5, 24, 14, 14);
    const frame = new VideoFrame(canvas, { timestamp: i * ${1_000_000 / FPS}, duration: ${1_000_000 / FPS} });
    encoder.encode(frame, { keyFrame: i === 0 }); frame.close();
  }
  await encoder.flush();
  return { description, samples };
};
window.play = async (bytes) => {
  const v = document.createElement("video"); v.muted = true;
  v.src = URL.createObjectURL(new Blob([new Uint8Array(bytes)], { type: "video/mp4" }));
  document.body.append(v);
  await new Promise((ok, fail) => { v.onloadeddata = ok; v.onerror = () => fail(new Error("video error " + (v.error && v.error.code))); });
  v.currentTime = 0.55;
  await new Promise((ok) => { v.onseeked = ok; });
  const c = document.createElement("canvas"); c.width = ${SIZE}; c.height = ${SIZE};
  const g = c.getContext("2d");
  // A seek can report done before the frame is decoded (seen on a loaded machine): read
  // again until the frame is there, briefly.
  let px;
  for (let i = 0; i < 20; i++) {
    g.clearRect(0, 0, ${SIZE}, ${SIZE}); g.drawImage(v, 0, 0);
    px = g.getImageData(40, 10, 1, 1).data;
    if (px[3] === 255) break;
    await new Promise((ok) => setTimeout(ok, 50));
  }
  return { duration: v.duration, width: v.videoWidth, height: v.videoHeight, pixel: Array.from(px) };
};
</script>`;

export async function mp4(): Promise<Buffer> {
  const { chromium } = await import("playwright-core");
  const server = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(PAGE));
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu"] });
  try {
    const page = await browser.newPage();
    // WebCodecs needs a secure context: http://127.0.0.1 is one.
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    const encoded = (await page.evaluate("window.encode()")) as Encoded;
    if (!encoded.description || encoded.samples.length !== FRAMES || !encoded.samples[0]!.key) throw new Error("unexpected encoder output");
    const file = mux(encoded);
    const played = (await page.evaluate(`window.play(${JSON.stringify(Array.from(file))})`)) as { duration: number; width: number; height: number; pixel: number[] };
    // Frame 5 has its square at x 29..42 and a blue background; (40, 10) is background.
    const [r, , b, a] = played.pixel;
    if (Math.abs(played.duration - FRAMES / FPS) > 0.05 || played.width !== SIZE || played.height !== SIZE || a !== 255 || !(b! > 100 && r! < 80)) {
      throw new Error(`the muxed file does not play as expected: ${JSON.stringify(played)}`);
    }
    console.log(`video.mp4: ${file.length} bytes, plays in Chromium: ${JSON.stringify(played)}`);
    return file;
  } finally {
    await browser.close();
    server.close();
  }
}
