/**
 * The n-th largest of some values (from 1), by quickselect, reordering them: a sort of tens of thousands of
 * scores took milliseconds.
 */
export function nthLargest(values: Float64Array, n: number): number {
  const k = values.length - n; // its position, were they sorted ascending
  let low = 0;
  let high = values.length - 1;
  while (low < high) {
    const pivot = values[(low + high) >>> 1]!;
    let i = low;
    let j = high;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const swapped = values[i]!;
        values[i] = values[j]!;
        values[j] = swapped;
        i++;
        j--;
      }
    }
    if (k <= j) high = j;
    else if (k >= i) low = i;
    else return values[k]!;
  }
  return values[k]!;
}
