import {
  ManifestShape,
  parseDocument,
  RegistryListingShape,
  ReputationShape,
  type Manifest,
  type RegistryListing,
  type Reputation
} from './documents.js'
import { getJson, withDefaultPath, type HttpOptions } from './http.js'

const MANIFEST_PATH = '/.well-known/agent.json'
const REGISTRY_PATH = '/registry'
const REPUTATION_PATH = '/reputation'

export interface DiscoverOptions extends HttpOptions {
  /** Only registrations paid by this wallet. */
  wallet?: string
  /** Only agents with this exact name (ASCII case ignored by the service). */
  name?: string
}

/**
 * The agents registered on the chain, as a merchant's GET /registry lists them, newest first.
 * A bare origin means its /registry.
 */
export async function discover (registryUrl: string, options: DiscoverOptions = {}): Promise<RegistryListing> {
  const url = new URL(withDefaultPath(registryUrl, REGISTRY_PATH))
  if (options.wallet !== undefined) url.searchParams.set('wallet', options.wallet)
  if (options.name !== undefined) url.searchParams.set('name', options.name)
  return parseDocument(RegistryListingShape, await getJson(url.href, options), `the registry listing at ${url.href}`)
}

/** A merchant's manifest; a bare origin means its /.well-known/agent.json. */
export async function getManifest (url: string, options: HttpOptions = {}): Promise<Manifest> {
  const manifestUrl = withDefaultPath(url, MANIFEST_PATH)
  return parseDocument(ManifestShape, await getJson(manifestUrl, options), `the manifest at ${manifestUrl}`)
}

export interface ReputationOptions extends HttpOptions {
  /** Period that ends now: 24h, 7d, 30d or all (the service's default: all). */
  window?: '24h' | '7d' | '30d' | 'all'
}

/** A merchant's trust signals (the manifest's reputation_url); a bare origin means its /reputation. */
export async function getReputation (url: string, options: ReputationOptions = {}): Promise<Reputation> {
  const reputationUrl = new URL(withDefaultPath(url, REPUTATION_PATH))
  if (options.window !== undefined) reputationUrl.searchParams.set('window', options.window)
  return parseDocument(ReputationShape, await getJson(reputationUrl.href, options), `the reputation at ${reputationUrl.href}`)
}
