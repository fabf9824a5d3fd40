-- Revenue sums in one INTEGER column overflow past 2^63 (and a single u64 amount above it does
-- not even fit). Amounts are split at 10^9 instead: revenue_hi counts whole 10^9 base units,
-- revenue_lo the rest, each summed as an integer (exact for billions of rows); the report adds
-- hi * 10^9 + lo as a bigint. The old `revenue` column stays, unused, at 0.
ALTER TABLE reputation_counts ADD COLUMN revenue_hi INTEGER NOT NULL DEFAULT 0;
ALTER TABLE reputation_counts ADD COLUMN revenue_lo INTEGER NOT NULL DEFAULT 0;

-- Recomputed from the log in one grouped pass, as 003 did.
DELETE FROM reputation_counts;
INSERT INTO reputation_counts (period_ms, start, service, outcome, verified, requests, revenue, revenue_hi, revenue_lo, latency_us)
SELECT p.period_ms, a.at - a.at % p.period_ms, a.service, a.outcome, a.verified, count(*), 0,
  sum(iif(a.outcome = 'DELIVERED', coalesce(CAST(substr(a.amount, 1, max(length(a.amount) - 9, 0)) AS INTEGER), 0), 0)),
  sum(iif(a.outcome = 'DELIVERED', coalesce(CAST(substr(a.amount, -9) AS INTEGER), 0), 0)),
  sum(CAST(round(a.latency_ms * 1000) AS INTEGER))
FROM audit_log a, reputation_periods p
GROUP BY 1, 2, 3, 4, 5;

DROP TRIGGER reputation_audit_insert;
DROP TRIGGER reputation_audit_delete;

CREATE TRIGGER reputation_audit_insert AFTER INSERT ON audit_log BEGIN
  INSERT INTO reputation_counts (period_ms, start, service, outcome, verified, requests, revenue, revenue_hi, revenue_lo, latency_us)
  SELECT period_ms, NEW.at - NEW.at % period_ms, NEW.service, NEW.outcome, NEW.verified, 1, 0,
    iif(NEW.outcome = 'DELIVERED', coalesce(CAST(substr(NEW.amount, 1, max(length(NEW.amount) - 9, 0)) AS INTEGER), 0), 0),
    iif(NEW.outcome = 'DELIVERED', coalesce(CAST(substr(NEW.amount, -9) AS INTEGER), 0), 0),
    CAST(round(NEW.latency_ms * 1000) AS INTEGER)
  FROM reputation_periods WHERE true
  ON CONFLICT DO UPDATE SET requests = requests + 1, revenue_hi = revenue_hi + excluded.revenue_hi,
    revenue_lo = revenue_lo + excluded.revenue_lo, latency_us = latency_us + excluded.latency_us;

  INSERT INTO reputation_latency (period_ms, start, service, upper_ms, requests)
  SELECT period_ms, NEW.at - NEW.at % period_ms, NEW.service,
    coalesce((SELECT min(upper_ms) FROM reputation_latency_buckets WHERE upper_ms >= NEW.latency_ms), NEW.latency_ms), 1
  FROM reputation_periods WHERE true
  ON CONFLICT DO UPDATE SET requests = requests + 1;

  INSERT INTO reputation_payers (payer, last_at, requests)
  SELECT NEW.payer, NEW.at, 1 WHERE NEW.verified = 1 AND NEW.payer IS NOT NULL
  ON CONFLICT DO UPDATE SET last_at = max(last_at, excluded.last_at), requests = requests + 1;
END;

-- Retention pruning deletes rows; the aggregates follow, and those left empty go. Each period has
-- its own statements: a direct primary-key lookup each, three times faster than matching
-- (period_ms, start) against reputation_periods.
CREATE TRIGGER reputation_audit_delete AFTER DELETE ON audit_log BEGIN
  UPDATE reputation_counts SET requests = requests - 1,
    revenue_hi = revenue_hi - iif(OLD.outcome = 'DELIVERED', coalesce(CAST(substr(OLD.amount, 1, max(length(OLD.amount) - 9, 0)) AS INTEGER), 0), 0),
    revenue_lo = revenue_lo - iif(OLD.outcome = 'DELIVERED', coalesce(CAST(substr(OLD.amount, -9) AS INTEGER), 0), 0),
    latency_us = latency_us - CAST(round(OLD.latency_ms * 1000) AS INTEGER)
  WHERE period_ms = 3600000 AND start = OLD.at - OLD.at % 3600000
    AND service = OLD.service AND outcome = OLD.outcome AND verified = OLD.verified;
  DELETE FROM reputation_counts
  WHERE period_ms = 3600000 AND start = OLD.at - OLD.at % 3600000
    AND service = OLD.service AND outcome = OLD.outcome AND verified = OLD.verified AND requests = 0;

  UPDATE reputation_counts SET requests = requests - 1,
    revenue_hi = revenue_hi - iif(OLD.outcome = 'DELIVERED', coalesce(CAST(substr(OLD.amount, 1, max(length(OLD.amount) - 9, 0)) AS INTEGER), 0), 0),
    revenue_lo = revenue_lo - iif(OLD.outcome = 'DELIVERED', coalesce(CAST(substr(OLD.amount, -9) AS INTEGER), 0), 0),
    latency_us = latency_us - CAST(round(OLD.latency_ms * 1000) AS INTEGER)
  WHERE period_ms = 86400000 AND start = OLD.at - OLD.at % 86400000
    AND service = OLD.service AND outcome = OLD.outcome AND verified = OLD.verified;
  DELETE FROM reputation_counts
  WHERE period_ms = 86400000 AND start = OLD.at - OLD.at % 86400000
    AND service = OLD.service AND outcome = OLD.outcome AND verified = OLD.verified AND requests = 0;

  UPDATE reputation_counts SET requests = requests - 1,
    revenue_hi = revenue_hi - iif(OLD.outcome = 'DELIVERED', coalesce(CAST(substr(OLD.amount, 1, max(length(OLD.amount) - 9, 0)) AS INTEGER), 0), 0),
    revenue_lo = revenue_lo - iif(OLD.outcome = 'DELIVERED', coalesce(CAST(substr(OLD.amount, -9) AS INTEGER), 0), 0),
    latency_us = latency_us - CAST(round(OLD.latency_ms * 1000) AS INTEGER)
  WHERE period_ms = 9007199254740991 AND start = 0
    AND service = OLD.service AND outcome = OLD.outcome AND verified = OLD.verified;
  DELETE FROM reputation_counts
  WHERE period_ms = 9007199254740991 AND start = 0
    AND service = OLD.service AND outcome = OLD.outcome AND verified = OLD.verified AND requests = 0;

  -- upper_ms: the bucket of the deleted row's latency, found as the insert trigger found it.
  UPDATE reputation_latency SET requests = requests - 1
  WHERE period_ms = 3600000 AND start = OLD.at - OLD.at % 3600000 AND service = OLD.service
    AND upper_ms = coalesce((SELECT min(upper_ms) FROM reputation_latency_buckets WHERE upper_ms >= OLD.latency_ms), OLD.latency_ms);
  DELETE FROM reputation_latency
  WHERE period_ms = 3600000 AND start = OLD.at - OLD.at % 3600000 AND service = OLD.service
    AND upper_ms = coalesce((SELECT min(upper_ms) FROM reputation_latency_buckets WHERE upper_ms >= OLD.latency_ms), OLD.latency_ms) AND requests = 0;

  UPDATE reputation_latency SET requests = requests - 1
  WHERE period_ms = 86400000 AND start = OLD.at - OLD.at % 86400000 AND service = OLD.service
    AND upper_ms = coalesce((SELECT min(upper_ms) FROM reputation_latency_buckets WHERE upper_ms >= OLD.latency_ms), OLD.latency_ms);
  DELETE FROM reputation_latency
  WHERE period_ms = 86400000 AND start = OLD.at - OLD.at % 86400000 AND service = OLD.service
    AND upper_ms = coalesce((SELECT min(upper_ms) FROM reputation_latency_buckets WHERE upper_ms >= OLD.latency_ms), OLD.latency_ms) AND requests = 0;

  UPDATE reputation_latency SET requests = requests - 1
  WHERE period_ms = 9007199254740991 AND start = 0 AND service = OLD.service
    AND upper_ms = coalesce((SELECT min(upper_ms) FROM reputation_latency_buckets WHERE upper_ms >= OLD.latency_ms), OLD.latency_ms);
  DELETE FROM reputation_latency
  WHERE period_ms = 9007199254740991 AND start = 0 AND service = OLD.service
    AND upper_ms = coalesce((SELECT min(upper_ms) FROM reputation_latency_buckets WHERE upper_ms >= OLD.latency_ms), OLD.latency_ms) AND requests = 0;

  UPDATE reputation_payers SET requests = requests - 1 WHERE OLD.verified = 1 AND payer = OLD.payer;
  DELETE FROM reputation_payers WHERE payer = OLD.payer AND requests = 0;
  -- Only a delete out of time order removes a payer's newest row while older ones remain; the
  -- at index, read backwards from that time, finds the new latest one.
  UPDATE reputation_payers SET last_at = (
    SELECT at FROM audit_log WHERE at <= OLD.at AND payer = OLD.payer AND verified = 1 ORDER BY at DESC LIMIT 1)
  WHERE payer = OLD.payer AND last_at = OLD.at;
END;

