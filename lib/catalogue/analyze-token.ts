import { address } from '@solana/kit'
import { checkMintInput } from '../token-analysis/check-mint-input.js'
import { AnalyzeTokenParams, TokenAnalysis } from '../../schemas/token-analysis.js'
import { TOKEN_ANALYSIS_BAZAAR_EXAMPLE } from '../../schemas/token-analysis-example.js'
import type { Product } from './product.js'

/** The analysis reads the mint, then its metadata and holders together: two rounds of data RPC calls. */
export const ANALYSIS_RPC_ROUNDS = 2

/** The security analysis of a mint, 0.1 USDC. */
export const ANALYZE_TOKEN: Product = {
  name: 'analyze-token',
  method: 'GET',
  path: '/api/analyze-token/:address',
  price: 100_000n,
  description: 'Security analysis of a token mint: authorities, Token-2022 extensions, holder concentration, metadata, whether it can be sold and into how much liquidity, and a 1-100 risk score.',
  params: AnalyzeTokenParams,
  output: TokenAnalysis,
  // A real answer (scripts/analysis-examples.ts), the smallest one: clients echo it in the payment header.
  example: { params: { address: TOKEN_ANALYSIS_BAZAAR_EXAMPLE.mint }, output: TOKEN_ANALYSIS_BAZAAR_EXAMPLE },
  tool: {
    name: 'analyze_token',
    title: 'Token security analysis',
    summary: 'Security analysis of a Solana token mint: authorities, Token-2022 extensions, holders, metadata, market data and sell quotes from Jupiter, a simulated transfer, the list of checks, and a 1-100 risk score with the findings behind it.'
  },
  operation: {
    id: 'analyzeToken',
    summary: dataNetwork => `Security analysis of a token mint from on-chain data (${dataNetwork}), with a 1-100 risk score`,
    description: dataNetwork => 'Reads the mint (SPL Token or Token-2022, extensions included), its metadata and its largest holders ' +
      `with standard Solana RPC calls on ${dataNetwork} (the merchant's data network, which may differ from the network ` +
      'it is paid on), simulates a plain transfer, asks Jupiter\'s token API for market data and its swap quote API for sell quotes ' +
      '(Jupiter failing never fails the call: `checks` says what could not be read), and explains the score finding by finding. A malformed address is answered 400 ' +
      `before any payment is asked; a missing account on ${dataNetwork} (404) or an account that is not a mint (422) is ` +
      'found after payment, and leaves the proof unredeemed for another call; so does a data RPC that cannot answer (503).',
    delivered: 'the analysis, paid for; the receipt is in x-payment-response',
    errors: ['VALIDATION_ERROR', 'MINT_NOT_FOUND', 'PAYMENT_IN_PROGRESS', 'NOT_A_TOKEN_MINT', 'STORE_UNAVAILABLE', 'RPC_UNAVAILABLE']
  },
  handlerBudgetMs: timeouts => ANALYSIS_RPC_ROUNDS * timeouts.dataRpcTimeoutMs,
  // The schema pattern lets through strings that do not decode to exactly 32 bytes, and nobody
  // should pay to learn that their address is malformed. Synchronous: the HTTP door then adds no promise.
  precheck: (_services, input, origin) => checkMintInput({ in: origin('address'), path: 'address', value: String(input.address) }),
  run: async (services, input) => await services.tokenAnalysis.analyze(address(String(input.address)))
}
