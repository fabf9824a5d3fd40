-- How each audited request was paid: 'proof' (seed x-payment-signature headers), 'x402-v1'
-- (X-PAYMENT), 'x402-v2' (PAYMENT-SIGNATURE) or 'mcp' (a tool call). Rows written before the
-- standard x402 flow existed were all paid with proofs.
ALTER TABLE audit_log ADD COLUMN flow TEXT NOT NULL DEFAULT 'proof';
