import closeWithGrace from 'close-with-grace'
import Fastify from 'fastify'
import fp from 'fastify-plugin'
import { existsSync } from 'node:fs'
import app, { serverOptions } from './app.js'
import { ConfigError, loadConfig, type Config } from './config.js'

/** Reads .env when present (variables already set win), then validates; bad config exits 1 with one line per problem. */
function configFromEnvironment (): Config {
  if (existsSync('.env')) process.loadEnvFile('.env')
  try {
    return loadConfig(process.env)
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`token-merchant: ${error.message}\n`)
      process.exit(1)
    }
    throw error
  }
}

async function start () {
  const config = configFromEnvironment()
  const server = Fastify(serverOptions(config))
  await server.register(fp(app), { config })

  if (config.PUBLIC_BASE_URL === undefined) {
    server.log.warn('PUBLIC_BASE_URL is unset: printed URLs are built from each request\'s Host header (checked to be a valid host[:port]); set it in production')
  }
  if (config.merchantKeypairCreated) {
    server.log.warn({ paymentAddress: config.paymentAddress, keypair: config.MERCHANT_KEYPAIR_PATH },
      'created a merchant keypair; payments go to its address (back the file up, or set PAYMENT_ADDRESS)')
  }

  closeWithGrace({ delay: config.CLOSE_GRACE_MS }, async ({ signal, err }) => {
    if (err !== undefined) server.log.error({ err }, 'closing after an error')
    else server.log.info({ signal }, 'shutting down: finishing in-flight requests')
    await server.close()
  })

  await server.listen({ port: config.PORT, host: config.HOST })
  server.log.info({ network: config.network, dataNetwork: config.dataNetwork, paymentAddress: config.paymentAddress, paymentMint: config.paymentMint }, 'token-merchant ready')
  process.send?.('ready') // PM2 wait_ready
}

start().catch((error: unknown) => {
  process.stderr.write(`token-merchant: failed to start: ${(error as Error).message}\n`)
  process.exit(1)
})
