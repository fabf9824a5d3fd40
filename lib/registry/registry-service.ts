import type { RegistryListingBody } from '../../schemas/registry.js'
import { isRpcUnavailable, rpcUnavailable } from '../solana/rpc-errors.js'
import type { AgentFilters, RegistryKey, RegistryRepository, ScanState } from '../../db/contracts/registry-repository.js'
import { IncompleteChainReadError, type RegistryScanner } from './registry-scanner.js'
import { loggableError } from '../errors/loggable-error.js'
import { publishRegistryRefresh } from '../metrics/events.js'

const MAX_CACHED_LISTINGS = 64

/** The slice of a pino logger the service writes to. */
export interface RegistryLogger {
  debug (details: object, message: string): void
  info (details: object, message: string): void
  warn (details: object, message: string): void
  error (details: object, message: string): void
}

export interface RegistryServiceOptions {
  repository: RegistryRepository
  scanner: RegistryScanner
  key: RegistryKey
  /** Age of the stored listing after which a reader triggers a new chain read. */
  refreshSeconds: number
  log: RegistryLogger
  /**
   * Runs a chain read while holding a lock shared with the other instances on the same store,
   * so one of them reads the chain and the others find the fresh listing; none by default.
   */
  exclusive?: <T>(task: () => Promise<T>) => Promise<T>
  now?: () => number
}

/** After a failed read, readers are served from the store for this long before the next attempt. */
const MAX_RETRY_DELAY_MS = 5000

function isChainReadFailure (error: unknown): boolean {
  return isRpcUnavailable(error) || error instanceof IncompleteChainReadError
}

/**
 * Serves the registry from the store and keeps it fresh: a reader that finds the listing older
 * than `refreshSeconds` waits for a chain read, and every reader arriving meanwhile waits for that
 * same read. When a read fails, the stored listing is served with its older `fetched_at`; with
 * nothing ever read, the failure is a 503.
 */
export function createRegistryService ({ repository, scanner, key, refreshSeconds, log, exclusive = async task => await task(), now = Date.now }: RegistryServiceOptions) {
  const retryDelayMs = Math.min(refreshSeconds * 1000, MAX_RETRY_DELAY_MS)
  const shutdown = new AbortController()
  let inFlight: Promise<void> | undefined
  let lastFailure: { at: number, error: unknown } | undefined

  /** One chain read at a time: a caller arriving during a read joins it. Failures are recorded, not thrown. */
  function refresh (): Promise<void> {
    inFlight ??= (async () => {
      const startedAt = now()
      try {
        await exclusive(async () => {
          // Another instance may have read the chain while this one waited for the lock.
          if (isFresh((await repository.scanState(key)).fetchedAt)) {
            lastFailure = undefined
            return
          }
          const report = await scanner.scan(new Date(startedAt).toISOString(), shutdown.signal)
          lastFailure = undefined
          publishRegistryRefresh({ outcome: 'ok', durationMs: now() - startedAt })
          const details = { ...report, ms: now() - startedAt }
          if (report.listed > 0) log.info(details, 'registry read from the chain')
          else log.debug(details, 'registry read from the chain: nothing new')
        })
      } catch (error) {
        lastFailure = { at: now(), error }
        publishRegistryRefresh({ outcome: 'failed', durationMs: now() - startedAt })
        if (isChainReadFailure(error)) log.warn({ error: loggableError(error) }, 'registry chain read failed; serving the stored listing')
        else log.error({ error: loggableError(error) }, 'registry chain read failed')
      } finally {
        inFlight = undefined
      }
    })()
    return inFlight
  }

  function isFresh (fetchedAt: string | null): boolean {
    return fetchedAt !== null && now() - Date.parse(fetchedAt) < refreshSeconds * 1000
  }

  function needsRead (fetchedAt: string | null): boolean {
    if (lastFailure !== undefined && now() - lastFailure.at < retryDelayMs) return false
    return !isFresh(fetchedAt)
  }

  let cachedVersion = ''
  const serialized = new Map<string, Buffer>()

  /** The scan state after a refresh if the stored listing is stale; 503 if nothing was ever read. */
  async function currentState (): Promise<ScanState & { fetchedAt: string }> {
    let state = await repository.scanState(key)
    if (needsRead(state.fetchedAt)) {
      await refresh()
      state = await repository.scanState(key)
    }
    if (state.fetchedAt === null) {
      const error = lastFailure?.error
      throw isChainReadFailure(error) || error === undefined ? rpcUnavailable(error) : error
    }
    return { ...state, fetchedAt: state.fetchedAt }
  }

  async function listing (fetchedAt: string, filters: AgentFilters): Promise<RegistryListingBody> {
    const agents = await repository.listAgents(key, filters)
    return { network: key.network, registry_address: key.registryAddress, agents, total: agents.length, fetched_at: fetchedAt }
  }

  return {
    async list (filters: AgentFilters = {}): Promise<RegistryListingBody> {
      return await listing((await currentState()).fetchedAt, filters)
    },

    /**
     * The listing as JSON in UTF-8 bytes, reused until the store changes: with thousands of
     * registrations the serialization, not the query, is what a warm read costs, and writing a
     * string of megabytes to the socket encodes it again on every read.
     */
    async listJson (filters: AgentFilters = {}): Promise<Buffer> {
      const state = await currentState()
      const version = `${state.fetchedAt} ${state.run} ${state.newestSignature ?? ''} ${state.resume?.position ?? ''}`
      if (version !== cachedVersion) {
        serialized.clear()
        cachedVersion = version
      }
      const cacheKey = `${filters.wallet ?? ''} ${filters.name?.toLowerCase() ?? ''}`
      let json = serialized.get(cacheKey)
      if (json === undefined) {
        // Built from the same state the version was read from, so text and version agree.
        json = Buffer.from(JSON.stringify(await listing(state.fetchedAt, filters)))
        if (serialized.size >= MAX_CACHED_LISTINGS) serialized.clear()
        serialized.set(cacheKey, json)
      }
      return json
    },

    /** Stops a read in progress and waits for it to let go of the database. */
    async close (): Promise<void> {
      shutdown.abort()
      await inFlight
    }
  }
}

export type RegistryService = ReturnType<typeof createRegistryService>
