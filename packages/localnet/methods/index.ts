// The JSON-RPC method table.
import { accountMethods } from './accounts.js'
import { clusterMethods } from './cluster.js'
import { historyMethods } from './history.js'
import { programAccountMethods } from './program-accounts.js'
import { sendMethods } from './send.js'
import { tokenMethods } from './tokens.js'
import type { MethodHandler } from './context.js'

export type { MethodContext, MethodHandler } from './context.js'

export const rpcMethods: Readonly<Record<string, MethodHandler>> = {
  ...clusterMethods,
  ...accountMethods,
  ...programAccountMethods,
  ...tokenMethods,
  ...sendMethods,
  ...historyMethods,
}
