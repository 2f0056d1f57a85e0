-- What the first request under an idempotency key carried: the SHA-256 (hex) of the canonical JSON of the body
-- fields that decide its effect (a run start: input, tier, correlationKey; an event: type, key, payload). A repeat
-- with the same key is answered as the first one only if its fingerprint is equal; a different body under a used
-- key is refused (422, IETF Idempotency-Key draft). NULL for rows written before this column existed: those keys
-- cannot be told apart and are answered as repeats, as before.
-- Signals need no column: the inbox row of a signal (UNIQUE (run_id, dedup_key)) holds its name and payload.
ALTER TABLE eec_workflow_run ADD COLUMN request_fingerprint text;
ALTER TABLE eec_event ADD COLUMN request_fingerprint text;
