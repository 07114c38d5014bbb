// the same pattern as the database's memory_instant(), which metadata date ranges compare with
const ISO_DATE =
  /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?:[T ](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.(\d{1,6}))?)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)?)?$/i;

/**
 * The instant an ISO 8601 date names, in ms (with the microseconds as a fraction), as the database's
 * memory_instant() reads it: a date alone is midnight UTC, a time without a zone is UTC, and a day the month
 * does not have is no date.
 */
export function isoInstant(value: string): number | undefined {
  const parts = ISO_DATE.exec(value);
  if (!parts) return undefined;
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
  const zoned = value.length === 10 || /(?:Z|[+-]\d{2}:\d{2})$/i.test(value) ? value : `${value}Z`;
  // Date.parse keeps milliseconds only
  const microseconds = Number(`0.${(parts[4] ?? "").slice(3)}`);
  return Date.parse(zoned.replace(" ", "T")) + microseconds;
}
