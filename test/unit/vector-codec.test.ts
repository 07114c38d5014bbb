import { describe, expect, it } from "vitest";
import { bytesToVector, cosine, storedToVector, unitLength, vectorToBytes, vectorToStored } from "../../src/vectors/codec.ts";
import { halfValues, toHalf } from "../../src/vectors/half-float.ts";

const randomUnit = (dimensions: number, seed: number) => {
  let state = seed;
  const next = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
  return unitLength(Float32Array.from({ length: dimensions }, next));
};

describe("half precision", () => {
  it("rounds to the nearest half, ties to even, as IEEE 754 has it", () => {
    const half = (x: number) => halfValues()[toHalf(x)];
    expect(half(1)).toBe(1);
    expect(half(-2.5)).toBe(-2.5);
    expect(half(65504)).toBe(65504);
    expect(half(1e5)).toBe(Infinity);
    expect(half(-1e5)).toBe(-Infinity);
    expect(half(Number.NaN)).toBeNaN();
    expect(half(2 ** -24)).toBe(2 ** -24); // the smallest subnormal
    expect(half(2 ** -26)).toBe(0);
    expect(Object.is(half(-0), -0)).toBe(true);
    // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: to the even one, 1; 1 + 3·2^-11 to 1 + 2^-9
    expect(half(1 + 2 ** -11)).toBe(1);
    expect(half(1 + 3 * 2 ** -11)).toBe(1 + 2 ** -9);
    // a carry out of the mantissa raises the exponent
    expect(half(2 - 2 ** -12)).toBe(2);
  });

  it("reads back every half as itself", () => {
    const values = halfValues();
    for (let bits = 0; bits < 0x10000; bits++) {
      if (!Number.isNaN(values[bits]!)) expect(toHalf(values[bits]!)).toBe(bits);
    }
  });
});

describe("stored vectors", () => {
  it("store a vector in one byte plus two a component, and read it back within half precision", () => {
    const vector = randomUnit(512, 7);
    const stored = vectorToStored(vector);
    expect(stored.byteLength).toBe(1 + 512 * 2);
    const back = storedToVector(stored);
    expect(back).toHaveLength(512);
    for (let i = 0; i < 512; i++) expect(Math.abs(back[i]! - vector[i]!)).toBeLessThanOrEqual(Math.abs(vector[i]!) * 2 ** -11 + 2 ** -25);
    expect(Math.abs(cosine(back, randomUnit(512, 8)) - cosine(vector, randomUnit(512, 8)))).toBeLessThan(1e-3);
  });

  it("read vectors stored as float32 before", () => {
    const vector = randomUnit(512, 9);
    expect(storedToVector(vectorToBytes(vector))).toEqual(vector);
  });

  it("leave the service as float32", () => {
    const vector = randomUnit(8, 10);
    expect(bytesToVector(vectorToBytes(vector))).toEqual(vector);
  });
});
