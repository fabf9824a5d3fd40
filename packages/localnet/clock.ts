// Chain time (unix seconds) for blockTime and the Clock sysvar. By default it follows the wall clock from
// `startTime` so a standing localnet stays current; 'manual' freezes it so tests control every second.
export type ClockMode = 'wall' | 'manual'

export class ChainClock {
  private offsetSeconds = 0
  private readonly startedAtMs = Date.now()

  constructor (
    private readonly startTime: number = Math.floor(Date.now() / 1000),
    private readonly mode: ClockMode = 'wall'
  ) {}

  now (): number {
    const elapsed = this.mode === 'wall' ? Math.floor((Date.now() - this.startedAtMs) / 1000) : 0
    return this.startTime + elapsed + this.offsetSeconds
  }

  advance (seconds: number): void {
    if (!Number.isFinite(seconds) || seconds < 0) throw new RangeError('advanceClock: seconds must be a finite number >= 0')
    this.offsetSeconds += Math.floor(seconds)
  }
}
