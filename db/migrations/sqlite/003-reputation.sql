-- Aggregates of audit_log behind GET /reputation, kept up to date by the triggers below so that a
-- report reads a few thousand rows however long the log is. Every audit row is counted three
-- times: in its UTC hour, in its UTC day and in the whole log (one period of 2^53 - 1 ms that
-- starts at 0; start = at - at % period_ms for all three). A window [from, now] reads whole days,
-- the whole hours before its first midnight and the raw audit rows of its first partial hour, so
-- it is exact; the whole log reads the one period.
CREATE TABLE reputation_periods (period_ms INTEGER PRIMARY KEY);
INSERT INTO reputation_periods (period_ms) VALUES (3600000), (86400000), (9007199254740991);

-- Requests per period, service and outcome.
CREATE TABLE reputation_counts (
  period_ms   INTEGER NOT NULL,
  start       INTEGER NOT NULL,        -- unix ms, a multiple of period_ms
  service     TEXT NOT NULL,
  outcome     TEXT NOT NULL,
  verified    INTEGER NOT NULL,
  requests    INTEGER NOT NULL,
  revenue     INTEGER NOT NULL,        -- base units of the DELIVERED rows
  latency_us  INTEGER NOT NULL,        -- sum of latency_ms * 1000, rounded per row (integers do not drift)
  PRIMARY KEY (period_ms, start, service, outcome, verified)
) WITHOUT ROWID;

-- Fixed latency buckets, named by their upper bound: the R40 preferred numbers (40 per decade: 1,
-- 1.06, 1.12, ... 9, 9.5) from 0.1 ms to 9500000 ms, then 10000000 ms. Neighbours differ by at
-- most 7.2%, so a percentile read as the bound of its bucket is at most 7.2% above the exact one.
CREATE TABLE reputation_latency_buckets (upper_ms REAL PRIMARY KEY) WITHOUT ROWID;
WITH mantissas (hundredths) AS (VALUES (100), (106), (112), (118), (125), (132), (140), (150), (160), (170),
    (180), (190), (200), (212), (224), (236), (250), (265), (280), (300), (315), (335), (355), (375), (400),
    (425), (450), (475), (500), (530), (560), (600), (630), (670), (710), (750), (800), (850), (900), (950)),
  decades (multiplier, divisor) AS (VALUES (1, 1000), (1, 100), (1, 10), (1, 1), (10, 1), (100, 1), (1000, 1), (10000, 1))
INSERT INTO reputation_latency_buckets (upper_ms)
SELECT hundredths * multiplier * 1.0 / divisor FROM mantissas, decades;
INSERT INTO reputation_latency_buckets (upper_ms) VALUES (10000000);

-- Latency histogram per period and service; a latency above the last bucket is its own bucket.
CREATE TABLE reputation_latency (
  period_ms  INTEGER NOT NULL,
  start      INTEGER NOT NULL,
  service    TEXT NOT NULL,
  upper_ms   REAL NOT NULL,
  requests   INTEGER NOT NULL,
  PRIMARY KEY (period_ms, start, service, upper_ms)
) WITHOUT ROWID;

-- Every payer of a verified payment and its latest one: the payers active in a window that ends
-- now are those whose latest payment falls in it.
CREATE TABLE reputation_payers (
  payer     TEXT PRIMARY KEY,
  last_at   INTEGER NOT NULL,          -- unix ms of the newest verified row
  requests  INTEGER NOT NULL           -- verified rows still in audit_log
) WITHOUT ROWID;
CREATE INDEX reputation_payers_last_at ON reputation_payers (last_at);

-- Rows written before this migration.
INSERT INTO reputation_counts (period_ms, start, service, outcome, verified, requests, revenue, latency_us)
SELECT p.period_ms, a.at - a.at % p.period_ms, a.service, a.outcome, a.verified, count(*),
  sum(iif(a.outcome = 'DELIVERED', coalesce(CAST(a.amount AS INTEGER), 0), 0)),
  sum(CAST(round(a.latency_ms * 1000) AS INTEGER))
FROM audit_log a, reputation_periods p
GROUP BY 1, 2, 3, 4, 5;

INSERT INTO reputation_latency (period_ms, start, service, upper_ms, requests)
SELECT p.period_ms, a.at - a.at % p.period_ms, a.service,
  coalesce((SELECT min(upper_ms) FROM reputation_latency_buckets WHERE upper_ms >= a.latency_ms), a.latency_ms), count(*)
FROM audit_log a, reputation_periods p
GROUP BY 1, 2, 3, 4;

INSERT INTO reputation_payers (payer, last_at, requests)
SELECT payer, max(at), count(*) FROM audit_log WHERE verified = 1 AND payer IS NOT NULL GROUP BY payer;

CREATE TRIGGER reputation_audit_insert AFTER INSERT ON audit_log BEGIN
  INSERT INTO reputation_counts (period_ms, start, service, outcome, verified, requests, revenue, latency_us)
  SELECT period_ms, NEW.at - NEW.at % period_ms, NEW.service, NEW.outcome, NEW.verified, 1,
    iif(NEW.outcome = 'DELIVERED', coalesce(CAST(NEW.amount AS INTEGER), 0), 0),
    CAST(round(NEW.latency_ms * 1000) AS INTEGER)
  FROM reputation_periods WHERE true
  ON CONFLICT DO UPDATE SET requests = requests + 1, revenue = revenue + excluded.revenue, latency_us = latency_us + excluded.latency_us;

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
    revenue = revenue - iif(OLD.outcome = 'DELIVERED', coalesce(CAST(OLD.amount AS INTEGER), 0), 0),
    latency_us = latency_us - CAST(round(OLD.latency_ms * 1000) AS INTEGER)
  WHERE period_ms = 3600000 AND start = OLD.at - OLD.at % 3600000
    AND service = OLD.service AND outcome = OLD.outcome AND verified = OLD.verified;
  DELETE FROM reputation_counts
  WHERE period_ms = 3600000 AND start = OLD.at - OLD.at % 3600000
    AND service = OLD.service AND outcome = OLD.outcome AND verified = OLD.verified AND requests = 0;

  UPDATE reputation_counts SET requests = requests - 1,
    revenue = revenue - iif(OLD.outcome = 'DELIVERED', coalesce(CAST(OLD.amount AS INTEGER), 0), 0),
    latency_us = latency_us - CAST(round(OLD.latency_ms * 1000) AS INTEGER)
  WHERE period_ms = 86400000 AND start = OLD.at - OLD.at % 86400000
    AND service = OLD.service AND outcome = OLD.outcome AND verified = OLD.verified;
  DELETE FROM reputation_counts
  WHERE period_ms = 86400000 AND start = OLD.at - OLD.at % 86400000
    AND service = OLD.service AND outcome = OLD.outcome AND verified = OLD.verified AND requests = 0;

  UPDATE reputation_counts SET requests = requests - 1,
    revenue = revenue - iif(OLD.outcome = 'DELIVERED', coalesce(CAST(OLD.amount AS INTEGER), 0), 0),
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

-- The aggregates count rows as they were written: audit rows are never changed, only deleted.
CREATE TRIGGER audit_log_append_only BEFORE UPDATE ON audit_log BEGIN
  SELECT RAISE(ABORT, 'audit_log rows are never updated');
END;
