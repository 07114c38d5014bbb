/**
 * IEEE 754 half precision (binary16), which Node.js 20 has no typed array for: a memory's vector is stored in
 * its row in this form, half the bytes of float32. A component keeps 11 bits (it moves by at most 2^-11 of its
 * value), so a cosine of unit vectors moves by at most about 5e-4, where int8 copies move it by up to 3e-3.
 */

const single = new Float32Array(1);
const singleBits = new Uint32Array(single.buffer);

/** The half-precision bits nearest `x` (ties to even); beyond ±65504 infinity, as a float32 cast does. */
export function toHalf(x: number): number {
  single[0] = x;
  const bits = singleBits[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const exponent = ((bits >>> 23) & 0xff) - 127 + 15;
  const mantissa = bits & 0x7fffff;
  if (exponent === 0xff - 127 + 15) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  if (exponent >= 0x1f) return sign | 0x7c00;
  if (exponent <= 0) {
    // subnormal: the implicit leading bit shifted in, or nothing left at all
    if (exponent < -10) return sign;
    return sign | roundShift(mantissa | 0x800000, 14 - exponent);
  }
  // a carry out of the mantissa raises the exponent, which is the right rounding (up to infinity)
  return sign | ((exponent << 10) + roundShift(mantissa, 13));
}

/** `value >>> shift`, rounded to nearest, ties to even. */
function roundShift(value: number, shift: number): number {
  const kept = value >>> shift;
  const rest = value & ((1 << shift) - 1);
  const half = 1 << (shift - 1);
  return rest > half || (rest === half && kept & 1) ? kept + 1 : kept;
}

function fromHalf(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

let table: Float32Array | undefined;

/** Every half's value, made on first use (256 KB): decoding a stored vector is then one look-up a component. */
export function halfValues(): Float32Array {
  if (!table) {
    table = new Float32Array(0x10000);
    for (let bits = 0; bits < 0x10000; bits++) table[bits] = fromHalf(bits);
  }
  return table;
}
