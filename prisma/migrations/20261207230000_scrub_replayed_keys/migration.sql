-- A replayed createApiKey whose `key` field was aliased kept the new key in full in its stored answer (the cut
-- looked for the field's name); src/domain/key-secret.ts now cuts every full key wherever it stands. The answers
-- kept so far (24 hours of them at most) are cut alike: the key's first 12 characters, then an ellipsis.
UPDATE "idempotency_records"
   SET "response" = regexp_replace("response"::text, '(?<![A-Za-z0-9_-])(msk_[A-Za-z0-9_-]{8})[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])', '\1…', 'g')::jsonb
 WHERE "response"::text ~ 'msk_[A-Za-z0-9_-]{43}';
