-- The instant an ISO 8601 date in metadata names, for date ranges in metadata filters; NULL for anything else.
-- (jsonpath's datetime() would do, but PostgreSQL before 17 does not read a "Z" zone, the form most clients write.)
-- A date without a time is midnight UTC, a time without a zone UTC, so the result never depends on the session.
CREATE FUNCTION "memory_instant"("value" TEXT) RETURNS TIMESTAMPTZ
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  IF "value" !~ '^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])([T ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)?)?$' THEN
    RETURN NULL;
  END IF;
  IF length("value") = 10 THEN
    RETURN ("value" || 'T00:00:00Z')::TIMESTAMPTZ;
  END IF;
  IF "value" ~ '([Zz]|[+-]\d{2}:\d{2})$' THEN
    RETURN "value"::TIMESTAMPTZ;
  END IF;
  RETURN ("value" || 'Z')::TIMESTAMPTZ;
EXCEPTION WHEN datetime_field_overflow OR invalid_datetime_format THEN
  -- a day the month does not have (2026-02-31)
  RETURN NULL;
END
$$;
