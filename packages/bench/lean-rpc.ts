// The chain-only floor's RPC client: kit's RPC API over keep-alive HTTP (an undici pool) with kit's
// own JSON codec, and nothing else: no timeouts, metrics or answer checks. What a paid call can
// cost at least on this machine; the service's own client (lib/solana/rpc-client.ts) adds to it.
import { createSolanaRpcFromTransport, type RpcTransport } from '@solana/kit'
import { parseJsonWithBigInts, stringifyJsonWithBigInts } from '@solana/rpc-spec-types'
import { Pool } from 'undici'

export function createLeanRpc (url: string, connections: number) {
  const pool = new Pool(new URL(url).origin, { connections, pipelining: 1 })
  const path = new URL(url).pathname
  const transport = (async ({ payload }) => {
    const response = await pool.request({
      path,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stringifyJsonWithBigInts(payload)
    })
    return parseJsonWithBigInts(await response.body.text())
  }) as RpcTransport
  return { rpc: createSolanaRpcFromTransport(transport), close: async () => await pool.close() }
}

export type LeanRpc = ReturnType<typeof createLeanRpc>['rpc']
