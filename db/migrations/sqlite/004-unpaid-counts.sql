-- Requests that presented no verifiable payment (no proof, a malformed one, or one the chain does
-- not back) are counted per service, day and outcome, never stored row by row: unpaid traffic
-- costs a counter, not a row per request. Replaces challenge_counts (no-proof requests only).
CREATE TABLE unpaid_counts (
  service TEXT NOT NULL,
  day     TEXT NOT NULL,               -- YYYY-MM-DD, UTC
  outcome TEXT NOT NULL,               -- PAYMENT_REQUIRED or the refusal code
  count   INTEGER NOT NULL,
  PRIMARY KEY (service, day, outcome)
) WITHOUT ROWID;

INSERT INTO unpaid_counts (service, day, outcome, count)
SELECT service, day, 'PAYMENT_REQUIRED', count FROM challenge_counts;
DROP TABLE challenge_counts;
