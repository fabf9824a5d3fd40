/**
 * Every `code` an error answer can carry, with its HTTP status and what it means. The AppError
 * type, the error handler's status mapping, the OpenAPI code enums and the README's error table
 * all derive from this one table (test/lib/errors/error-codes.test.ts keeps the README in step).
 * It lives with the schemas, the wire contract; lib/errors/error-codes.ts maps statuses from it.
 */
export const ERROR_CODES = {
  BAD_REQUEST: { status: 400, meaning: 'the request could not be read (framework-level)' },
  VALIDATION_ERROR: { status: 400, meaning: 'a parameter is malformed; `message` and `validation` name it' },
  UNAUTHORIZED: { status: 401, meaning: 'credentials are missing or wrong (framework-level)' },
  PAYMENT_REQUIRED: { status: 402, meaning: 'a paid route was called without proof; the body carries the payment requirements' },
  INVALID_PAYMENT_HEADER: { status: 402, meaning: 'a proof header is malformed' },
  PAYMENT_NOT_FOUND: { status: 402, meaning: 'no transaction with this signature at the required commitment (yet)' },
  PAYMENT_FAILED: { status: 402, meaning: 'the transaction failed on chain and moved no funds' },
  PAYER_MISMATCH: { status: 402, meaning: 'the named wallet did not pay: it did not sign the transaction, or is neither the owner of the tokens that paid nor a signer of their owner multisig' },
  AMOUNT_TOO_LOW: { status: 402, meaning: 'the merchant received less than the price; `paid` and `required` say how much' },
  PAYMENT_EXPIRED: { status: 402, meaning: 'the transaction is older than PAYMENT_MAX_AGE_SECONDS', buyerMeaning: 'the transaction is older than the merchant accepts (`maxTimeoutSeconds` of the 402 body)' },
  WALLET_SIGNATURE_REQUIRED: { status: 402, meaning: 'REQUIRE_WALLET_SIGNATURE is on and the proof carries no x-payment-wallet-signature', buyerMeaning: 'this merchant binds proofs to requests (the manifest\'s `wallet_signature_required`) and the proof carries no x-payment-wallet-signature' },
  WALLET_SIGNATURE_INVALID: { status: 402, meaning: 'x-payment-wallet-signature is not the payer\'s signature over this proof and request' },
  PAYMENT_ALREADY_USED: { status: 402, meaning: 'the payment already bought a delivery' },
  PAYMENT_FLOW_MISMATCH: { status: 402, meaning: 'the transaction is an x402 payment (its fee paid by the merchant\'s fee payer): only its x402 payload buys its delivery, never the proof headers' },
  X402_INVALID_PAYLOAD: { status: 402, meaning: 'x402: the X-PAYMENT / PAYMENT-SIGNATURE header is not base64 JSON of a payment payload with a transaction' },
  X402_UNSUPPORTED: { status: 402, meaning: 'x402: unknown x402Version, a version in the other version\'s header, or a scheme other than `exact`' },
  X402_NETWORK_MISMATCH: { status: 402, meaning: 'x402: the payment names another network than the one advertised' },
  X402_PAYMENT_ID_INVALID: { status: 402, meaning: 'x402: the payload\'s `extensions["payment-identifier"]` is malformed (an id is 16–128 characters of letters, digits, `_` and `-`); nothing moved' },
  X402_RESOURCE_MISMATCH: { status: 402, meaning: 'x402 v2: the payload\'s `resource.url` is not the resource being bought (a payment offered for one URL or tool never buys another); nothing moved' },
  X402_REQUIREMENTS_MISMATCH: { status: 402, meaning: 'x402 v2: `accepted` is not one of the requirements this route offers' },
  X402_FEE_PAYER_MISMATCH: { status: 402, meaning: 'x402: the transaction\'s fee payer is not the `extra.feePayer` advertised' },
  X402_FEE_PAYER_EXPOSED: { status: 402, meaning: 'x402: the fee payer appears in an instruction (as authority, source or otherwise); it may pay fees only' },
  X402_TRANSACTION_NOT_ALLOWED: { status: 402, meaning: 'x402: the transaction is not the exact scheme\'s layout (unit limit, unit price, one TransferChecked, then SPL Memo v2 memos), or holds Lighthouse assertions, a lookup table or a third signer' },
  X402_COMPUTE_BUDGET_INVALID: { status: 402, meaning: 'x402: compute budget missing, repeated, out of order (unit limit first, unit price second), or its unit limit above 200,000' },
  X402_COMPUTE_PRICE_TOO_HIGH: { status: 402, meaning: 'x402: the priority fee (unit limit × unit price) is above X402_MAX_PRIORITY_FEE_LAMPORTS, or the unit price above 5,000,000 micro-lamports; the cap is in `message`', buyerMeaning: 'x402: the priority fee (unit limit × unit price) is above the merchant\'s cap, or the unit price above 5,000,000 micro-lamports; the cap is in `message`' },
  X402_MINT_MISMATCH: { status: 402, meaning: 'x402: the transfer is of another mint than the payment mint' },
  X402_RECIPIENT_MISMATCH: { status: 402, meaning: 'x402: the transfer does not go to the associated token account of payTo' },
  X402_AMOUNT_MISMATCH: { status: 402, meaning: 'x402: the transfer is not exactly the price' },
  X402_SIGNATURE_INVALID: { status: 402, meaning: 'x402: the payer\'s signature on the transaction is missing or wrong' },
  X402_BLOCKHASH_EXPIRED: { status: 402, meaning: 'x402: the transaction\'s blockhash is too old to land; build a new one' },
  X402_SIMULATION_FAILED: { status: 402, meaning: 'x402: the transaction would fail (e.g. the payer lacks the tokens); nothing was sent' },
  X402_VERIFICATION_FAILED: { status: 402, meaning: 'x402: the payment failed a check of the x402 library not listed above; `message` says which' },
  X402_SETTLEMENT_FAILED: { status: 402, meaning: 'x402: the node refused the transaction before sending it, or it failed on chain; the buyer\'s tokens did not move and the body was withheld' },
  AMOUNT_NOT_EXACT: { status: 402, meaning: 'MPP push charge: the transaction paid the merchant more than the price; a charge is exactly its amount' },
  MPP_CREDENTIAL_INVALID: { status: 402, meaning: 'MPP: `Authorization: Payment` is not base64url JSON of a Solana charge credential, or its payload does not answer its challenge (a signature for the fee-paid pull challenge, a transaction for the push one); nothing moved' },
  MPP_CHALLENGE_INVALID: { status: 402, meaning: 'MPP: the credential\'s challenge is not one this merchant issued (its HMAC-bound id does not match its contents: altered, or another server\'s), or it expired; nothing moved' },
  MPP_CHALLENGE_MISMATCH: { status: 402, meaning: 'MPP: the credential\'s challenge was issued for another resource, or asks other terms (amount, currency, recipient, network, fee payer) than this resource offers now; nothing moved' },
  PAYMENT_FORMS_CONFLICT: { status: 400, meaning: 'a request carried more than one payment (proof headers and an x402 header, or X-PAYMENT and PAYMENT-SIGNATURE)' },
  FORBIDDEN: { status: 403, meaning: 'the request is not allowed (framework-level)' },
  NOT_FOUND: { status: 404, meaning: 'unknown route' },
  TOKEN_NOT_FOUND: { status: 404, meaning: 'fetch-price: no token is known by that symbol or mint' },
  PRICE_UNAVAILABLE: { status: 404, meaning: 'fetch-price: the price source has no reliable price right now' },
  MINT_NOT_FOUND: { status: 404, meaning: 'analyze-token: no account exists at the address' },
  RESOURCE_NOT_FOR_SALE: { status: 404, meaning: 'x402 prepare: the resource is not a paid route of this merchant (another origin, or a path nothing is sold at)' },
  METHOD_NOT_ALLOWED: { status: 405, meaning: 'the route does not answer this method (framework-level)' },
  NOT_ACCEPTABLE: { status: 406, meaning: 'no acceptable representation (framework-level)' },
  REQUEST_TIMEOUT: { status: 408, meaning: 'the request took too long to arrive' },
  CONFLICT: { status: 409, meaning: 'the request conflicts with the current state (framework-level)' },
  AMBIGUOUS_SYMBOL: { status: 409, meaning: 'fetch-price: several tokens use the symbol; `candidates` lists their mints' },
  PAYMENT_ID_CONFLICT: { status: 409, meaning: 'x402 payment-identifier: this payer used this id for another request (other resource or arguments), or its delivery is past DELIVERY_RETENTION_SECONDS; use a new id. Nothing moved', buyerMeaning: 'x402 payment-identifier: this payer used this id for another request (other resource or arguments), or its delivery is older than the merchant keeps answers; use a new id. Nothing moved' },
  PAYMENT_IN_PROGRESS: { status: 409, meaning: 'another request is being served with this payment (or took it over while this one worked); retry the same payment after `Retry-After`' },
  PAYLOAD_TOO_LARGE: { status: 413, meaning: 'the body is larger than BODY_LIMIT_BYTES', buyerMeaning: 'the body is larger than the merchant accepts' },
  URI_TOO_LONG: { status: 414, meaning: 'the request target is too long' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, meaning: 'the body has a content type the route does not read' },
  NOT_A_TOKEN_MINT: { status: 422, meaning: 'analyze-token: the account exists but is not a token mint' },
  REFUND_NETWORK_MISMATCH: { status: 422, meaning: 'refunds: `paymentReference.network` is not the network this merchant is paid on; nothing was read or kept' },
  REFUND_PARTIAL_UNSUPPORTED: { status: 422, meaning: 'refunds: `amount` is less than the payment settled and partialRefunds is false; `settled` says what to ask for. Nothing moved' },
  PAYER_BLOCKED: { status: 429, meaning: 'x402: payments from this wallet failed at settlement more than X402_PAYER_FAILURE_LIMIT times in the window (each cost the fee payer); retry after `Retry-After`', buyerMeaning: 'x402: payments from this wallet failed at settlement more times in the window than the merchant allows (each cost the fee payer); retry after `Retry-After`' },
  RATE_LIMITED: { status: 429, meaning: 'too many requests from this client in the window; retry after `Retry-After`' },
  HEADERS_TOO_LARGE: { status: 431, meaning: 'the request headers are too large' },
  INTERNAL_ERROR: { status: 500, meaning: 'a bug: logged with the request id, details never shown' },
  UPSTREAM_ERROR: { status: 502, meaning: 'fetch-price: the price source answered with an error' },
  SERVICE_UNAVAILABLE: { status: 503, meaning: 'the service is shutting down or overloaded' },
  STORE_UNAVAILABLE: { status: 503, meaning: 'the database (PostgreSQL) cannot answer; nothing was consumed, retry after `Retry-After` with the same proof' },
  RPC_UNAVAILABLE: { status: 503, meaning: 'the Solana RPC node cannot answer; nothing was consumed, retry after `Retry-After`' },
  X402_SETTLEMENT_PENDING: { status: 503, meaning: 'x402: the payment was sent but not yet confirmed; retry the same payload after `Retry-After`: it delivers once it landed, without a second transfer' },
  X402_FEE_PAYER_UNFUNDED: { status: 503, meaning: 'x402: the merchant\'s fee payer lacks SOL for the fee; nothing moved, retry later or pay with proof headers' },
  UPSTREAM_UNAVAILABLE: { status: 503, meaning: 'fetch-price: the price source is busy or unreachable; retry after `Retry-After`' },
  UPSTREAM_TIMEOUT: { status: 504, meaning: 'fetch-price: the price source did not answer in time' }
} as const satisfies Record<string, { status: number, meaning: string, buyerMeaning?: string }>

export type ErrorCode = keyof typeof ERROR_CODES

/**
 * What a code means to a buyer, for the public documents: `meaning` (the README's table, for
 * operators) names the setting behind a limit; `buyerMeaning`, where there is one, says the same
 * without the operator's configuration.
 */
export function buyerMeaning (code: ErrorCode): string {
  const entry: { meaning: string, buyerMeaning?: string } = ERROR_CODES[code]
  return entry.buyerMeaning ?? entry.meaning
}
