import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify'
import type { IncomingMessage } from 'node:http'
import type { DestinationStream, Logger } from 'pino'
import { LazyChildLogger } from './lib/logging/lazy-child-logger.js'
import { createServiceLogger } from './lib/logging/service-logger.js'
import type { Config } from './config.js'
import configPlugin from './plugins/app/config.js'
import cataloguePlugin from './plugins/app/catalogue.js'
import type { Catalogue } from './lib/catalogue/catalogue.js'
import crossOrigin from './plugins/app/cross-origin.js'
import mcp from './plugins/app/mcp.js'
import a2a from './plugins/app/a2a.js'
import requestLog from './plugins/app/request-log.js'
import errorHandler, { handleClientError, handleFrameworkError } from './plugins/app/error-handler.js'
import { requestIdOf } from './lib/http/request-id.js'
import { cachedSerializerFactory } from './plugins/external/serializer-cache.js'
import payment from './plugins/app/payment.js'
import paywall from './plugins/app/paywall.js'
import x402 from './plugins/app/x402.js'
import prices from './plugins/app/prices.js'
import registry from './plugins/app/registry.js'
import responseHeaders from './plugins/app/response-headers.js'
import reputation from './plugins/app/reputation.js'
import services from './plugins/app/services.js'
import refunds from './plugins/app/refunds.js'
import { REFUND_PATH } from './lib/refunds/refund-path.js'
import receipts from './plugins/app/receipts.js'
import solanaRpc from './plugins/app/solana.js'
import store from './plugins/app/store.js'
import limitCounts from './plugins/app/limit-counts.js'
import type { Clock } from './db/clocked-store.js'
import tokenAnalysis from './plugins/app/token-analysis.js'
import rateLimit from './plugins/external/rate-limit.js'
import sensible from './plugins/external/sensible.js'
import shutdown from './plugins/app/shutdown.js'
import stalledWrites from './plugins/app/stalled-writes.js'
import metrics from './plugins/app/metrics.js'
import metricsRegistry from './plugins/app/metrics-registry.js'
import swagger from './plugins/external/swagger.js'
import prepareRoutes from './routes/api/x402/index.js'
import productRoutes from './routes/api/products/index.js'
import discoveryRoutes from './routes/discovery/index.js'
import healthRoutes from './routes/health/index.js'
import manifestRoutes from './routes/manifest/index.js'
import paywallRoutes from './routes/paywall/index.js'
import refundRoutes from './routes/api/refunds/index.js'
import registryRoutes from './routes/registry/index.js'
import reputationRoutes from './routes/reputation/index.js'
import { MODELS, REFUND_MODELS } from './schemas/index.js'

function trustHops (hops: number) {
  return (_address: string, hop: number) => hop < hops
}

/**
 * Fastify runs without a logger of its own: with one, every request of every route pays for
 * two response listeners and two clock reads, whether or not a line is written. The service's
 * pino logger is set as `fastify.log` instead (createServer), and each request's logger is a
 * lazy child of it carrying the request id. The per-request line is written by a response hook
 * registered only at info and below (plugins/app/request-log.ts).
 */
class ErrorsOnly extends LogController {
  override incomingRequest (): void {}

  override requestCompleted (error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored')
  }
}

/**
 * Fastify gives each plugin 10 s to load, then exits with its own "Plugin did not start in time".
 * The store may wait longer for PostgreSQL (DATABASE_CONNECT_TIMEOUT_SECONDS, 0 = as long as it
 * takes) and ends the wait itself with a message naming the setting: Fastify's timer must not cut it.
 */
function pluginTimeoutOf (config: Config): number {
  const DEFAULT_MS = 10_000
  if (config.DATABASE_URL === undefined) return DEFAULT_MS
  return config.DATABASE_CONNECT_TIMEOUT_SECONDS === 0 ? 0 : config.DATABASE_CONNECT_TIMEOUT_SECONDS * 1000 + DEFAULT_MS
}

/** Options of the Fastify instance; createServer applies them. */
function serverOptions (config: Config, log: Logger): FastifyServerOptions {
  return {
    logger: false,
    logController: new ErrorsOnly(),
    childLoggerFactory: (_disabled, bindings, options) => new LazyChildLogger(log, bindings, options) as unknown as FastifyBaseLogger,
    genReqId: (request: IncomingMessage) => requestIdOf(request.headers),
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: handleClientError,
    requestIdHeader: false,
    // A hop count trusts that many proxies in front (what proxy-addr does for a number).
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    bodyLimit: config.BODY_LIMIT_BYTES,
    routerOptions: { maxParamLength: 200 },
    // No connectionTimeout: the socket timer it sets is made again twice per request. A client
    // that stops reading is closed by plugins/app/stalled-writes.ts; one that stops sending, by
    // requestTimeout; an idle kept-alive connection, by keepAliveTimeout.
    requestTimeout: 30_000,
    keepAliveTimeout: 72_000,
    // server.ts drains before it closes: requests on kept-alive connections are answered, with
    // `Connection: close`, rather than refused (lib/http/connection-drain.ts).
    return503OnClosing: false,
    pluginTimeout: pluginTimeoutOf(config),
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array' } },
    schemaController: { compilersFactory: { buildSerializer: cachedSerializerFactory } }
  }
}

/** The Fastify instance of the service, logging to `logStream` (stdout by default); shared by server.ts and the tests. */
export function createServer (config: Config, logStream?: DestinationStream): FastifyInstance {
  const log = createServiceLogger(config.LOG_LEVEL, logStream)
  const server = Fastify(serverOptions(config, log))
  // Every plugin's instance inherits `log` from the root, so this is the logger they all see.
  server.log = log
  return server
}

/**
 * The root plugin: configuration, then third-party plugins, then our own services, then the
 * routes. The load order is the dependency direction. `catalogue`: the products sold (the
 * service's is CATALOGUE), from which every door and document is derived. `clock`: the time the store's
 * payment leases and the registry listing's age are read on (a test's, turned by hand; the
 * engine's own unless given).
 */
export default async function app (fastify: FastifyInstance, opts: { config: Config, catalogue: Catalogue, clock?: Clock }) {
  await fastify.register(configPlugin, { config: opts.config })
  for (const model of MODELS) fastify.addSchema(model)
  if (opts.config.REFUNDS) for (const model of REFUND_MODELS) fastify.addSchema(model)
  await fastify.register(cataloguePlugin, { catalogue: opts.catalogue })

  await fastify.register(requestLog)
  await fastify.register(sensible)
  // Before any route: Fastify binds a route to the error handler in force when it is added.
  await fastify.register(errorHandler)
  await fastify.register(responseHeaders)
  await fastify.register(crossOrigin)
  await fastify.register(swagger)

  // Before the store: it is built timed, reporting into the metrics.
  await fastify.register(metricsRegistry)
  await fastify.register(store, { now: opts.clock })
  // Before any route, after the store: its counts are one limit across the instances sharing it.
  await fastify.register(limitCounts)
  await fastify.register(rateLimit)
  await fastify.register(shutdown)
  await fastify.register(stalledWrites)
  await fastify.register(solanaRpc)
  await fastify.register(receipts)
  await fastify.register(x402)
  // Before payment: the HTTP door answers a browser's 402 with its page.
  await fastify.register(paywall)
  await fastify.register(payment)
  await fastify.register(prices)
  await fastify.register(tokenAnalysis)
  await fastify.register(registry, { now: opts.clock })
  await fastify.register(reputation)
  // The services above in one object, handed to every door.
  await fastify.register(services)
  // Refunds of payments never delivered (REFUNDS): after x402, whose fee payer pays their fees.
  await fastify.register(refunds)
  // After the payment gate (its hooks run first, so payment outcomes are final) and before the routes it counts.
  await fastify.register(metrics)
  // The same products as MCP tools, on POST /mcp.
  await fastify.register(mcp)
  // The same products as A2A skills, on POST /a2a, and its agent card.
  await fastify.register(a2a)

  // One folder per URL area; the prefix is the folder's place in the URL.
  await fastify.register(manifestRoutes, { prefix: '/.well-known' })
  await fastify.register(discoveryRoutes)
  await fastify.register(healthRoutes, { prefix: '/health' })
  // The paid routes, each at its product's path.
  await fastify.register(productRoutes)
  await fastify.register(registryRoutes, { prefix: '/registry' })
  await fastify.register(reputationRoutes, { prefix: '/reputation' })
  if (fastify.refunds !== undefined) await fastify.register(refundRoutes, { prefix: REFUND_PATH })
  // The payment page's files and its transaction preparer (PAYWALL).
  if (fastify.paywall !== undefined) {
    await fastify.register(paywallRoutes, { prefix: '/paywall' })
    await fastify.register(prepareRoutes, { prefix: '/api/x402' })
  }
}
