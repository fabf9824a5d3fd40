import type { X402WellKnownBody } from '../../schemas/discovery.js'
import { PAYMENT_HEADERS, X402_HEADERS } from '../../schemas/payment-headers.js'
import { X402_PAYMENT_META_KEY } from '../../schemas/mcp.js'
import { MCP_PATH } from './merchant-manifest.js'
import { AGENT_CARD_PATH } from '../../schemas/a2a.js'
import { exampleUrl, MPP_CHARGE_HOW_TO, type ProductTerms } from './payment-terms.js'

/**
 * The two discovery documents that are not the OpenAPI one: /.well-known/x402 for x402 crawlers
 * and /llms.txt (llmstxt.org) for language models. Both from the terms every 402 carries.
 */

export interface DiscoveryDocuments {
  wellKnown: (base: string) => X402WellKnownBody
  llmsTxt: (base: string) => string
}

export function createDiscoveryDocuments (options: { name: string, description: string, products: ProductTerms[], mpp?: boolean }): DiscoveryDocuments {
  const { products } = options
  const instructions = `Each resource answers 402 with the terms in ${X402_HEADERS.paymentRequired.toUpperCase()} (x402 v2, exact scheme, Solana). ` +
    `Pay with an x402 client (${X402_HEADERS.paymentV2.toUpperCase()} header) and repeat the request, or transfer the price to payTo and repeat it ` +
    `with ${PAYMENT_HEADERS.signature} and ${PAYMENT_HEADERS.wallet}. Replace the path parameter to buy another token. ` +
    'The OpenAPI document (/openapi.json) describes every operation; /llms.txt explains the service. A2A agents: /.well-known/agent-card.json.' +
    (options.mpp === true ? ` ${MPP_CHARGE_HOW_TO}` : '')

  const examples = (base: string) => products.map(product => exampleUrl(base, product, product.exampleParams))

  /**
   * llmstxt.org: an H1, a one-line blockquote summary, prose (paragraphs and lists, no headings)
   * until the first H2, then H2 sections that hold link lists only (`- [name](url): notes`).
   */
  function llmsTxt (base: string): string {
    const terms = products[0]
    const product = (p: ProductTerms, url: string) =>
      `- [${p.service}](${url}): \`${p.method} ${p.openapiPath}\`, ${p.price} ${p.symbol} (${p.amount} base units) per call; MCP tool \`${p.tool}\`. ${p.description}`
    return [
      `# ${options.name}`,
      '',
      `> ${options.description} Paid per request in ${terms.symbol} on Solana through x402 v2 (exact scheme); no account, no API key.`,
      '',
      `Every product is paid to \`${terms.payTo}\` in the token \`${terms.asset}\` (${terms.decimals} decimals) on \`${terms.network.v2}\` (x402 v1 name \`${terms.network.v1}\`). ` +
        'Each product below links an example call; replace the path parameter to buy another token.',
      '',
      'How to pay:',
      '',
      `1. Call the URL without payment: the answer is 402, the terms in the \`${X402_HEADERS.paymentRequired.toUpperCase()}\` header (base64 JSON x402 v2 PaymentRequired) and, for x402 v1 clients, in the body.`,
      `2. x402 v2: build and sign the exact-scheme transfer of \`accepts[0]\` (fee payer: \`extra.feePayer\`, the merchant co-signs and pays the fee), repeat the request with \`${X402_HEADERS.paymentV2.toUpperCase()}\`; the document comes with \`${X402_HEADERS.responseV2.toUpperCase()}\` (the receipt). x402 v1 clients use \`X-PAYMENT\`.`,
      `3. Or pay-then-prove: transfer the price to payTo yourself, then repeat the request with \`${PAYMENT_HEADERS.signature}\` (the transaction signature) and \`${PAYMENT_HEADERS.wallet}\` (the payer).`,
      `4. MCP: \`POST ${base}${MCP_PATH}\` (JSON-RPC, streamable HTTP); a paid tool called without payment returns the PaymentRequired; call it again with the PaymentPayload in \`params._meta["${X402_PAYMENT_META_KEY}"]\`.`,
      ...(options.mpp === true ? [`5. ${MPP_CHARGE_HOW_TO}`] : []),
      '',
      'Send one payment form per request. Malformed input is refused (400) before any payment; a failure after payment charges nothing.',
      '',
      '## Products',
      '',
      ...products.map((p, i) => product(p, examples(base)[i])),
      '',
      '## Docs',
      '',
      `- [OpenAPI document](${base}/openapi.json): every operation, status, header and error code; paid operations carry x-payment-info`,
      `- [Merchant manifest](${base}/.well-known/agent.json): products, prices, payment address and network`,
      `- [x402 discovery](${base}/.well-known/x402): the paid resources`,
      `- [MCP endpoint](${base}${MCP_PATH}): the same products as MCP tools (POST only)`,
      `- [A2A agent card](${base}${AGENT_CARD_PATH}): the same products as A2A skills (JSON-RPC, the a2a-x402 extension)`,
      '',
      '## Optional',
      '',
      `- [Reputation](${base}/reputation): success rate, failures and revenue from the audit log`,
      `- [API docs](${base}/docs): the OpenAPI document rendered`,
      ''
    ].join('\n')
  }

  return {
    wellKnown: base => ({ version: 1, resources: examples(base), instructions }),
    llmsTxt
  }
}
