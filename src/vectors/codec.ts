import { halfValues, toHalf } from "./half-float.ts";

/** Vectors leave the service (an export's) as float32 little-endian bytes: a fixed, portable form. */
export function vectorToBytes(vector: Float32Array): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i]!, true);
  return bytes;
}

export function bytesToVector(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < vector.length; i++) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}

/**
 * The first byte of a vector as a memory's row stores it, followed by its components as float16 little-endian:
 * an odd length, where rows written before (float32 alone, 4 bytes a component) are even, so either reads
 * without knowing the dimensions. Half of float32's 2 KB a 512-dimension vector, a third of a short memory's row.
 */
const HALF_FORM = 0x10;

export function vectorToStored(vector: Float32Array): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(1 + vector.length * 2);
  bytes[0] = HALF_FORM;
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vector.length; i++) view.setUint16(1 + i * 2, toHalf(vector[i]!), true);
  return bytes;
}

/** A stored vector read back: float16 as vectorToStored writes it, or float32 from a row written before. */
export function storedToVector(bytes: Uint8Array): Float32Array {
  if (!isHalfForm(bytes)) return bytesToVector(bytes);
  const values = halfValues();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Float32Array((bytes.byteLength - 1) / 2);
  for (let i = 0; i < vector.length; i++) vector[i] = values[view.getUint16(1 + i * 2, true)]!;
  return vector;
}

const isHalfForm = (bytes: Uint8Array): boolean => bytes.byteLength % 2 === 1 && bytes[0] === HALF_FORM;

/** pgvector's text form, `[0.1,0.2,...]`. */
export const vectorLiteral = (vector: Float32Array): string => `[${vector.join(",")}]`;

/** Both vectors are unit length, so the dot product is the cosine. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

/**
 * The vector scaled to unit length; a zero or non-finite one becomes the first axis, so cosines stay defined.
 * Indexed loops: a typed array's iterator and map() took three to five times as long (every draft goes through
 * here, on the event loop).
 */
export function unitLength(vector: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  const unit = new Float32Array(vector.length);
  if (norm === 0 || !Number.isFinite(norm)) {
    unit[0] = 1;
    return unit;
  }
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < vector.length; i++) unit[i] = vector[i]! * scale;
  return unit;
}
