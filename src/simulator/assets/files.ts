// The tiny result files served by GET /v1/generations/{id}/outputs/{kind}/{index}, made
// by pure functions (no file written here, so importing this module has no effect):
//   image.png  64x64 RGB gradient with a ring (zlib)
//   model.glb  a tetrahedron as glTF 2.0 binary
// video.mp4 needs an H.264 encoder and lives in make-mp4.ts. make-assets.ts writes them.
import { encodePng } from "../../common/png.ts";

// ---------------------------------------------------------------------------- PNG
export function png(size = 64): Buffer {
  const rows: number[] = [];
  for (let y = 0; y < size; y++) {
    rows.push(0); // filter: none
    for (let x = 0; x < size; x++) {
      const ring = Math.hypot(x - size / 2, y - size / 2) < size / 4;
      rows.push(ring ? 250 : Math.round((x / size) * 255), ring ? 180 : Math.round((y / size) * 255), ring ? 40 : 160);
    }
  }
  return encodePng(size, 2, Buffer.from(rows));
}

// ---------------------------------------------------------------------------- GLB
export function glb(): Buffer {
  const positions = new Float32Array([0, 1, 0, -1, -1, 1, 1, -1, 1, 0, -1, -1]);
  const indices = new Uint16Array([0, 1, 2, 0, 2, 3, 0, 3, 1, 1, 3, 2]);
  const posBytes = Buffer.from(positions.buffer);
  const idxBytes = Buffer.from(indices.buffer);
  const bin = Buffer.concat([posBytes, idxBytes, Buffer.alloc((4 - ((posBytes.length + idxBytes.length) % 4)) % 4)]);
  const gltf = {
    asset: { version: "2.0", generator: "generation-hub simulator" },
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: [{ mesh: 0, name: "tetrahedron" }],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 }, indices: 1 }] }],
    buffers: [{ byteLength: bin.length }],
    bufferViews: [
      { buffer: 0, byteOffset: 0, byteLength: posBytes.length, target: 34962 },
      { buffer: 0, byteOffset: posBytes.length, byteLength: idxBytes.length, target: 34963 },
    ],
    accessors: [
      { bufferView: 0, componentType: 5126, count: 4, type: "VEC3", min: [-1, -1, -1], max: [1, 1, 1] },
      { bufferView: 1, componentType: 5123, count: indices.length, type: "SCALAR" },
    ],
  };
  let json = Buffer.from(JSON.stringify(gltf), "utf8");
  json = Buffer.concat([json, Buffer.alloc((4 - (json.length % 4)) % 4, 0x20)]);
  const header = Buffer.alloc(12);
  header.writeUInt32LE(0x46546c67, 0); // "glTF"
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(12 + 8 + json.length + 8 + bin.length, 8);
  const chunk = (type: number, data: Buffer) => {
    const h = Buffer.alloc(8);
    h.writeUInt32LE(data.length, 0);
    h.writeUInt32LE(type, 4);
    return Buffer.concat([h, data]);
  };
  return Buffer.concat([header, chunk(0x4e4f534a, json), chunk(0x004e4942, bin)]);
}
