import { createDefaultRpcTransport, createSolanaRpcFromTransport, type RpcTransport } from '@solana/kit'

/** A @solana/kit RPC client whose every request gives up after `timeoutMs`. */
export function createRpcClient (url: string, timeoutMs: number) {
  const transport = createDefaultRpcTransport({ url })
  const withTimeout = (async (request) => {
    const timeout = AbortSignal.timeout(timeoutMs)
    const signal = request.signal === undefined ? timeout : AbortSignal.any([request.signal, timeout])
    return await transport({ ...request, signal })
  }) as RpcTransport
  return createSolanaRpcFromTransport(withTimeout)
}

export type SolanaRpc = ReturnType<typeof createRpcClient>
