import { BuyerError } from '../errors.js'
import { parseInvocation, type CommandName } from './arguments.js'
import { HANDLERS } from './commands.js'
import { classify, EXIT } from './exit-codes.js'
import { toJson } from './format.js'

export interface CliStreams {
  stdout: (text: string) => void
  stderr: (text: string) => void
}

const PROCESS_STREAMS: CliStreams = {
  stdout: text => { process.stdout.write(text) },
  stderr: text => { process.stderr.write(text) }
}

/** The details worth printing with an error: what money moved, and what to retry with. */
function errorDetails (error: unknown): Record<string, unknown> {
  if (!(error instanceof BuyerError)) return {}
  return Object.fromEntries(Object.entries(error.details).filter(([, value]) => value !== undefined))
}

/** A sentence quoted from elsewhere (a merchant's message) keeps its full stop; before our "; …" it goes. */
function tidy (message: string): string {
  return message.replace(/\.(?=; )/g, '')
}

/**
 * Runs one command line (without node and the script) and returns the exit code. Results go to
 * stdout (text, or one JSON document with --json); progress and errors to stderr, never a stack trace.
 */
export async function run (argv: string[], streams: CliStreams = PROCESS_STREAMS): Promise<number> {
  // Known before parsing, so a usage error is a JSON document too; never for mcp, whose stdout is the protocol.
  const json = argv.includes('--json') && argv[0] !== 'mcp'
  let command: CommandName | undefined
  try {
    const invocation = parseInvocation(argv)
    if (invocation.kind === 'help') {
      streams.stdout(json ? `${toJson({ ok: true, usage: invocation.text })}\n` : `${invocation.text}\n`)
      return EXIT.OK
    }
    command = invocation.command
    const progress = json ? () => {} : (line: string) => { streams.stderr(`${line}\n`) }
    const { result, text, exitCode = EXIT.OK, quiet = false } = await HANDLERS[command](invocation.args, progress)
    if (quiet) return exitCode
    streams.stdout(json ? `${toJson({ ok: exitCode === EXIT.OK, command, result })}\n` : `${text}\n`)
    return exitCode
  } catch (error) {
    const { exitCode, code } = classify(error)
    const message = tidy(exitCode === EXIT.INTERNAL ? `unexpected error: ${(error as Error).message}` : (error as Error).message)
    const details = errorDetails(error)
    if (json) {
      streams.stdout(`${toJson({ ok: false, command: command ?? null, exitCode, error: { code, message, ...details } })}\n`)
    } else {
      streams.stderr(`token-merchant: ${code}: ${message}\n`)
      if (typeof details.retryCommand === 'string') streams.stderr(`retry the delivery without paying again:\n  ${details.retryCommand}\n`)
    }
    return exitCode
  }
}
