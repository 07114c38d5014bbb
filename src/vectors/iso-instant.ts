// the same pattern as the database's memory_instant(), which metadata date ranges compare with
const ISO_DATE =
  /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?:[T ](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.(\d{1,6}))?)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)?)?$/i;

/**
 * The instants PostgreSQL takes back as the text they are written in: years 0001 to 9999 in UTC (it reads no year
 * 0000, which is how ISO 8601 writes 1 BC, and JavaScript writes later years with six digits and a sign). An
 * instant outside them is refused as input (a bound, a cursor, a timestamp), rather than failing the statement it
 * would reach.
 */
const EARLIEST_MS = Date.parse("0001-01-01T00:00:00.000Z");
const LATEST_MS = Date.parse("9999-12-31T23:59:59.999Z");

export const STORABLE_INSTANTS = "between 0001-01-01 and 9999-12-31 (UTC)";

export function isStorableInstant(ms: number): boolean {
  return ms >= EARLIEST_MS && ms <= LATEST_MS;
}

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
