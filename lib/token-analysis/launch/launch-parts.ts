import type { AnalysisPart } from '../analysis-part.js'
import { createLaunchPart, type LaunchRpc } from './launch-part.js'
import { createHistoryMemo } from './mint-history.js'

/** Pages of 1,000 signatures the launch walks back at most: 5,000 transactions, 5 requests. */
export const LAUNCH_HISTORY_PAGES = 5

export interface LaunchPartsOptions {
  rpc: LaunchRpc
  maxPages?: number
}

/** The launch part (and, as they land, the clusters and creator parts), sharing one read of the mint's history. */
export function createLaunchParts ({ rpc, maxPages = LAUNCH_HISTORY_PAGES }: LaunchPartsOptions): AnalysisPart[] {
  const history = createHistoryMemo(rpc, maxPages)
  return [createLaunchPart({ rpc, history, maxPages })]
}
