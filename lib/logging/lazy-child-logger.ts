import type { Bindings, ChildLoggerOptions, Logger } from 'pino'

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'

/**
 * A request's logger that makes its pino child (the one carrying the request id) only when the
 * request logs something. Most requests log nothing below info, and a pino child per request
 * was the largest cost the logger added to the cheapest routes; a line that is written carries
 * the same bindings as before.
 */
export class LazyChildLogger {
  readonly #parent: Logger
  readonly #bindings: Bindings
  readonly #options: ChildLoggerOptions
  #child: Logger | undefined

  constructor (parent: Logger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent
    this.#bindings = bindings
    this.#options = options
  }

  #real (): Logger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options)
    return this.#child
  }

  get level (): string {
    return this.#child?.level ?? this.#options.level ?? this.#parent.level
  }

  set level (level: string) {
    this.#real().level = level
  }

  fatal (...args: unknown[]): void { this.#write('fatal', args) }
  error (...args: unknown[]): void { this.#write('error', args) }
  warn (...args: unknown[]): void { this.#write('warn', args) }
  info (...args: unknown[]): void { this.#write('info', args) }
  debug (...args: unknown[]): void { this.#write('debug', args) }
  trace (...args: unknown[]): void { this.#write('trace', args) }
  silent (): void {}

  #write (level: Level, args: unknown[]): void {
    const logger = this.#real()
    ;(logger[level] as (...args: unknown[]) => void).apply(logger, args)
  }

  child (bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.#real().child(bindings, options)
  }
}
