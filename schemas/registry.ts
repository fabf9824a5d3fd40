import { Type, type Static } from '@sinclair/typebox'
import { SolanaAddress } from './common.js'
import { ref } from './ref.js'

/** Characters (Unicode code points) of an agent name. */
export const MAX_AGENT_NAME_LENGTH = 64

/** One valid registration found on the chain. */
export const RegisteredAgent = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 64, description: 'agent name from the memo', examples: ['price-bot'] }),
  manifest_url: Type.String({ description: 'absolute http(s) URL of the agent manifest', examples: ['https://agent.example/.well-known/agent.json'] }),
  wallet: Type.String({ pattern: SolanaAddress.pattern, description: 'fee payer of the registering transaction', examples: ['7crim3zBdwd3wsR65Tf3Y7q8wYWHqZwEU1ATi98XQ7e7'] }),
  signature: Type.String({ description: 'base58 signature of the registering transaction' }),
  timestamp: Type.Union([Type.Integer(), Type.Null()], { description: 'block time of the transaction, Unix seconds; null when the cluster recorded none', examples: [1784757889] })
}, { $id: 'RegisteredAgent', additionalProperties: false })

export type RegisteredAgentBody = Static<typeof RegisteredAgent>

/** Body of GET /registry. */
export const RegistryListing = Type.Object({
  network: Type.String({ description: 'Solana cluster the registry was read on', examples: ['devnet'] }),
  registry_address: Type.String({ pattern: SolanaAddress.pattern, description: 'the registry coordination address', examples: ['DuENzGwryL5Am1JhNSXNEsP26QkGnSLjg5NuA9G4MAgU'] }),
  agents: Type.Array(ref(RegisteredAgent), { description: 'valid registrations, newest first' }),
  total: Type.Integer({ minimum: 0, description: 'number of entries in `agents`' }),
  fetched_at: Type.String({ format: 'date-time', description: 'when the chain was last read successfully, ISO 8601 UTC', examples: ['2026-09-01T12:00:00.000Z'] })
}, { $id: 'RegistryListing', additionalProperties: false, description: 'Agents registered on the chain, served from a store refreshed every few seconds.' })

export type RegistryListingBody = Static<typeof RegistryListing>

/** Filters of GET /registry (its query string) and of the list_registry MCP tool. */
export const RegistryQuery = Type.Object({
  wallet: Type.Optional(Type.String({ pattern: SolanaAddress.pattern, description: 'only registrations paid by this wallet' })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_AGENT_NAME_LENGTH, description: 'only agents with this exact name (ASCII case ignored)' }))
})
