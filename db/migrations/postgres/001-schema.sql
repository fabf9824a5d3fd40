-- The whole store on PostgreSQL, in one step: the same tables as SQLite migrations 001-005 (and the
-- audit `flow` column), with PostgreSQL's types. Times are unix ms (bigint), amounts are base units
-- as numeric (exact, any size; never float).

-- One row per payment proof (transaction signature) that was ever claimed. 'pending' rows reserve
-- the proof for one request until lease_expires_at; 'redeemed' rows are spent forever.
CREATE TABLE payment_claims (
  signature        text PRIMARY KEY,
  status           text NOT NULL CHECK (status IN ('pending', 'redeemed')),
  claim_id         text NOT NULL,
  lease_expires_at bigint NOT NULL,
  service          text NOT NULL,
  payer            text NOT NULL,
  amount           numeric NOT NULL CHECK (amount >= 0),
  resource         text NOT NULL,
  claimed_at       bigint NOT NULL,
  redeemed_at      bigint
) WITH (fillfactor = 80); -- room on the page for the redeem's new row version (a HOT update, no index write)

-- Every verified payment and how its request ended.
CREATE TABLE audit_log (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at          bigint NOT NULL,
  request_id  text NOT NULL,
  service     text NOT NULL,
  resource    text NOT NULL,
  payer       text,
  signature   text,
  amount      numeric CHECK (amount >= 0),
  outcome     text NOT NULL,
  verified    boolean NOT NULL,
  status      integer NOT NULL,
  latency_ms  double precision NOT NULL,
  -- how it was paid: 'proof' (pay-then-prove headers), 'x402-v1', 'x402-v2' or 'mcp'
  flow        text NOT NULL DEFAULT 'proof'
);
CREATE INDEX audit_log_at ON audit_log (at);
CREATE INDEX audit_log_payer_at ON audit_log (payer, at) WHERE verified;

-- Requests that presented no verifiable payment, counted per service, day and outcome.
CREATE TABLE unpaid_counts (
  service text NOT NULL,
  day     text NOT NULL,               -- YYYY-MM-DD, UTC
  outcome text NOT NULL,
  count   bigint NOT NULL,
  PRIMARY KEY (service, day, outcome)
);

-- Agent registrations read from the chain, and how far the chain has been read (see SQLite 002).
CREATE TABLE registry_agents (
  network          text NOT NULL,
  registry_address text NOT NULL,
  signature        text NOT NULL,
  name             text NOT NULL,
  manifest_url     text NOT NULL,
  wallet           text NOT NULL,
  block_time       bigint,
  slot             bigint NOT NULL,
  scan_run         integer NOT NULL,
  scan_position    integer NOT NULL,
  PRIMARY KEY (network, registry_address, signature)
);
CREATE INDEX registry_agents_newest ON registry_agents (network, registry_address, slot DESC, scan_run DESC, scan_position);
CREATE INDEX registry_agents_wallet ON registry_agents (network, registry_address, wallet);
-- Names match ignoring ASCII case only, as SQLite's NOCASE does.
CREATE INDEX registry_agents_name ON registry_agents (network, registry_address,
  translate(name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'));

CREATE TABLE registry_scans (
  network          text NOT NULL,
  registry_address text NOT NULL,
  newest_signature text,
  fetched_at       text,
  scan_run         integer NOT NULL,
  resume_top       text,
  resume_before    text,
  resume_position  integer,
  PRIMARY KEY (network, registry_address)
);

-- Aggregates behind GET /reputation (as SQLite 003 and 005): every audit row counts in its UTC
-- hour, its UTC day and the whole log (one period of 2^53 - 1 ms from 0). numeric sums are exact,
-- so revenue needs no split.
CREATE TABLE reputation_counts (
  period_ms   bigint NOT NULL,
  start       bigint NOT NULL,
  service     text NOT NULL,
  outcome     text NOT NULL,
  verified    boolean NOT NULL,
  requests    bigint NOT NULL,
  revenue     numeric NOT NULL,        -- base units of the DELIVERED rows
  latency_us  bigint NOT NULL,         -- sum of latency_ms * 1000, rounded per row
  PRIMARY KEY (period_ms, start, service, outcome, verified)
);

-- The R40 latency buckets of SQLite 003, by upper bound, then 10000000 ms.
CREATE TABLE reputation_latency_buckets (upper_ms double precision PRIMARY KEY);
INSERT INTO reputation_latency_buckets (upper_ms)
SELECT hundredths * multiplier * 1.0 / divisor
FROM unnest(ARRAY[100, 106, 112, 118, 125, 132, 140, 150, 160, 170, 180, 190, 200, 212, 224, 236, 250, 265, 280, 300,
  315, 335, 355, 375, 400, 425, 450, 475, 500, 530, 560, 600, 630, 670, 710, 750, 800, 850, 900, 950]) AS hundredths,
  (VALUES (1, 1000), (1, 100), (1, 10), (1, 1), (10, 1), (100, 1), (1000, 1), (10000, 1)) AS decades (multiplier, divisor);
INSERT INTO reputation_latency_buckets (upper_ms) VALUES (10000000);

CREATE TABLE reputation_latency (
  period_ms  bigint NOT NULL,
  start      bigint NOT NULL,
  service    text NOT NULL,
  upper_ms   double precision NOT NULL,
  requests   bigint NOT NULL,
  PRIMARY KEY (period_ms, start, service, upper_ms)
);

CREATE TABLE reputation_payers (
  payer     text PRIMARY KEY,
  last_at   bigint NOT NULL,
  requests  bigint NOT NULL
);
CREATE INDEX reputation_payers_last_at ON reputation_payers (last_at);

-- The bucket of a latency: the smallest bound at or above it; above the last bound, its own.
CREATE FUNCTION reputation_bucket (latency double precision) RETURNS double precision
LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT min(upper_ms) FROM reputation_latency_buckets WHERE upper_ms >= latency), latency)
$$;

-- Insert: one upsert per table for the three periods. Rows are touched in one order (counts,
-- latency, payers; periods ascending), the order the delete trigger keeps too.
CREATE FUNCTION reputation_audit_insert () RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO reputation_counts AS c (period_ms, start, service, outcome, verified, requests, revenue, latency_us)
  SELECT p, NEW.at - NEW.at % p, NEW.service, NEW.outcome, NEW.verified, 1,
    CASE WHEN NEW.outcome = 'DELIVERED' THEN coalesce(NEW.amount, 0) ELSE 0 END, round(NEW.latency_ms * 1000)::bigint
  FROM unnest(ARRAY[3600000, 86400000, 9007199254740991]::bigint[]) AS p
  ON CONFLICT (period_ms, start, service, outcome, verified) DO UPDATE SET requests = c.requests + 1,
    revenue = c.revenue + excluded.revenue, latency_us = c.latency_us + excluded.latency_us;

  INSERT INTO reputation_latency AS l (period_ms, start, service, upper_ms, requests)
  SELECT p, NEW.at - NEW.at % p, NEW.service, reputation_bucket(NEW.latency_ms), 1
  FROM unnest(ARRAY[3600000, 86400000, 9007199254740991]::bigint[]) AS p
  ON CONFLICT (period_ms, start, service, upper_ms) DO UPDATE SET requests = l.requests + 1;

  IF NEW.verified AND NEW.payer IS NOT NULL THEN
    INSERT INTO reputation_payers AS r (payer, last_at, requests) VALUES (NEW.payer, NEW.at, 1)
    ON CONFLICT (payer) DO UPDATE SET last_at = greatest(r.last_at, excluded.last_at), requests = r.requests + 1;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER reputation_audit_insert AFTER INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION reputation_audit_insert();

-- Delete (retention): once per statement over the deleted rows (a transition table), grouped, so a
-- batch of 2,000 rows costs a few grouped updates instead of 2,000 trigger runs.
CREATE FUNCTION reputation_audit_delete () RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH gone AS (
    SELECT p AS period_ms, o.at - o.at % p AS start, o.service, o.outcome, o.verified, count(*) AS requests,
      sum(CASE WHEN o.outcome = 'DELIVERED' THEN coalesce(o.amount, 0) ELSE 0 END) AS revenue,
      sum(round(o.latency_ms * 1000)::bigint) AS latency_us
    FROM old_rows o, unnest(ARRAY[3600000, 86400000, 9007199254740991]::bigint[]) AS p
    GROUP BY 1, 2, 3, 4, 5
  )
  UPDATE reputation_counts c SET requests = c.requests - g.requests, revenue = c.revenue - g.revenue, latency_us = c.latency_us - g.latency_us
  FROM gone g
  WHERE c.period_ms = g.period_ms AND c.start = g.start AND c.service = g.service AND c.outcome = g.outcome AND c.verified = g.verified;
  DELETE FROM reputation_counts WHERE requests = 0 AND (period_ms, start) IN (
    SELECT p, o.at - o.at % p FROM old_rows o, unnest(ARRAY[3600000, 86400000, 9007199254740991]::bigint[]) AS p);

  WITH gone AS (
    SELECT p AS period_ms, o.at - o.at % p AS start, o.service, reputation_bucket(o.latency_ms) AS upper_ms, count(*) AS requests
    FROM old_rows o, unnest(ARRAY[3600000, 86400000, 9007199254740991]::bigint[]) AS p
    GROUP BY 1, 2, 3, 4
  )
  UPDATE reputation_latency l SET requests = l.requests - g.requests
  FROM gone g
  WHERE l.period_ms = g.period_ms AND l.start = g.start AND l.service = g.service AND l.upper_ms = g.upper_ms;
  DELETE FROM reputation_latency WHERE requests = 0 AND (period_ms, start) IN (
    SELECT p, o.at - o.at % p FROM old_rows o, unnest(ARRAY[3600000, 86400000, 9007199254740991]::bigint[]) AS p);

  WITH gone AS (
    SELECT payer, count(*) AS requests, max(at) AS newest FROM old_rows WHERE verified AND payer IS NOT NULL GROUP BY payer
  )
  UPDATE reputation_payers r SET requests = r.requests - g.requests,
    -- A delete out of time order may remove a payer's newest row while older ones remain.
    last_at = CASE WHEN r.last_at <= g.newest
      THEN coalesce((SELECT max(a.at) FROM audit_log a WHERE a.payer = r.payer AND a.verified), r.last_at)
      ELSE r.last_at END
  FROM gone g WHERE r.payer = g.payer;
  DELETE FROM reputation_payers WHERE requests = 0 AND payer IN (SELECT payer FROM old_rows WHERE verified);
  RETURN NULL;
END
$$;
CREATE TRIGGER reputation_audit_delete AFTER DELETE ON audit_log REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION reputation_audit_delete();

-- The aggregates count rows as they were written: audit rows are never changed, only deleted.
CREATE FUNCTION audit_log_append_only () RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log rows are never updated';
END
$$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
