/** The outcome of simulating a plain transfer of the token on chain. */
export type TransferSimulationRead =
  | { state: 'simulated', slot: number }
  | { state: 'failed', slot: number, error: string }
  | { state: 'unavailable', reason: string }
  | { state: 'not_applicable', reason: string }
