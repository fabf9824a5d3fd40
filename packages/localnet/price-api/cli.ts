import { parseArgs } from 'node:util'
import { DEFAULT_TOKENS, RISK_TOKENS, startPriceApi } from './index.js'

/**
 * Runs the Jupiter stand-in until interrupted: `npm run price-api [-- --port 8787 --host 127.0.0.1]`.
 * Point the service at it with PRICE_API_URL=<printed URL>. Besides the well-known tokens it lists
 * RISK_TOKENS, one per market risk of the analysis.
 */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.PRICE_API_PORT ?? '8787' },
    host: { type: 'string', default: '127.0.0.1' }
  }
})

const port = Number(values.port)
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`price-api: --port ${values.port} is not a TCP port`)
  process.exit(1)
}

const api = await startPriceApi({ port, host: values.host, tokens: [...DEFAULT_TOKENS, ...RISK_TOKENS] })
console.log(`price-api (Jupiter stand-in) listening on ${api.url}`)
console.log(`  PRICE_API_URL=${api.url}`)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    api.stop().then(() => process.exit(0), () => process.exit(1))
  })
}
