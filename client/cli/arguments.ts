import { parseArgs, type ParseArgsConfig } from 'node:util'
import { SERVICE_VERSION } from '../../project.js'
import { UsageError } from './exit-codes.js'

type Options = NonNullable<ParseArgsConfig['options']>

interface CommandSpec {
  /** Names of the positional arguments, all required. */
  positionals: string[]
  options: Options
  /** Options that must be given. */
  required?: string[]
  usage: string
  /** One command line that works as written (with the placeholders replaced). */
  example: string
}

const COMMANDS = {
  registry: {
    positionals: ['url'],
    options: { wallet: { type: 'string' }, name: { type: 'string' } },
    usage: 'registry <url> [--wallet <address>] [--name <agent name>]   agents registered on the chain (url: a merchant, or its /registry)',
    example: 'token-merchant registry http://localhost:3000 --name my-agent'
  },
  manifest: {
    positionals: ['url'],
    options: {},
    usage: 'manifest <url>   a merchant\'s manifest (url: the merchant, or its /.well-known/agent.json)',
    example: 'token-merchant manifest http://localhost:3000'
  },
  reputation: {
    positionals: ['url'],
    options: { window: { type: 'string' } },
    usage: 'reputation <url> [--window 24h|7d|30d|all]   a merchant\'s trust signals (url: the merchant, or its /reputation)',
    example: 'token-merchant reputation http://localhost:3000 --window 7d'
  },
  buy: {
    positionals: ['url'],
    options: {
      keypair: { type: 'string' },
      rpc: { type: 'string' },
      'max-price': { type: 'string' },
      signature: { type: 'string' },
      retries: { type: 'string' },
      flow: { type: 'string' },
      via: { type: 'string' }
    },
    required: ['keypair'],
    usage: 'buy <url> --keypair <file> [--rpc <url>] [--max-price <base units>] [--retries <n>] [--signature <sig>] [--flow auto|x402|proof] [--via http|mcp]\n' +
      '      pay for one delivery of a paid URL; --signature delivers with an earlier payment instead of paying;\n' +
      '      --flow: x402 (the standard flow, the merchant settles and pays the fee), proof (pay, then prove), auto (x402 when offered);\n' +
      '      --via mcp buys the same product through the merchant\'s MCP tool, paid with x402 (the merchant sends the transfer)',
    example: 'token-merchant buy http://localhost:3000/api/fetch-price/SOL --keypair buyer.json --max-price 50000'
  },
  mcp: {
    positionals: [],
    options: {
      merchant: { type: 'string' },
      keypair: { type: 'string' },
      'max-price': { type: 'string' },
      budget: { type: 'string' },
      ledger: { type: 'string' },
      'dry-run': { type: 'boolean' },
      rpc: { type: 'string' }
    },
    usage: 'mcp --merchant <manifest or MCP URL> --keypair <file> [--max-price <base units per call>] [--budget <base units per day>]\n' +
      '      [--ledger <file>] [--dry-run] [--rpc <url>]\n' +
      '      a paying MCP server on stdio for an MCP host: the merchant\'s tools, x402 payments made within the limits\n' +
      '      (the daily budget is kept in the ledger, default ~/.token-merchant/mcp-ledger.json); --dry-run prices calls without\n' +
      '      paying (and needs no --keypair); every flag also as TOKEN_MERCHANT_MCP_<FLAG> (TOKEN_MERCHANT_MCP_MAX_PRICE, ...); logs go to stderr',
    example: 'token-merchant mcp --merchant http://localhost:3000 --keypair buyer.json --max-price 100000 --budget 1000000'
  },
  register: {
    positionals: [],
    options: {
      keypair: { type: 'string' },
      name: { type: 'string' },
      manifest: { type: 'string' },
      rpc: { type: 'string' },
      registry: { type: 'string' }
    },
    required: ['keypair', 'name', 'manifest'],
    usage: 'register --keypair <file> --name <agent name> --manifest <url> [--rpc <url>] [--registry <address>]\n' +
      '      register an agent on the chain (memo transaction signed and paid by the keypair, which needs a little SOL for the fee)',
    example: 'token-merchant register --keypair agent.json --name my-agent --manifest https://agent.example/.well-known/agent.json'
  },
  'check-config': {
    positionals: [],
    options: { offline: { type: 'boolean' } },
    usage: 'check-config [--offline]   (for operators) validate .env and the environment as the service would: settings, keypairs,\n' +
      '      database, RPC genesis, fee payer balance (--offline skips the network); print the effective configuration,\n' +
      '      secrets masked; exit 1 on any problem',
    example: 'token-merchant check-config --offline'
  },
  keygen: {
    positionals: ['file'],
    options: {},
    usage: 'keygen <file>   write a new solana-keygen keypair file (mode 0600; never overwrites)',
    example: 'token-merchant keygen buyer.json'
  }
} satisfies Record<string, CommandSpec>

export type CommandName = keyof typeof COMMANDS

export const USAGE = `usage: token-merchant <command> [arguments] [--json]
       token-merchant help <command>   (or <command> --help): one command, with an example
       token-merchant --version

commands:
${Object.values(COMMANDS).map(c => `  ${c.usage}`).join('\n')}

--json prints one JSON document on stdout instead of text. Exit codes: 0 ok, 1 usage, 2 network or RPC,
3 refused by --max-price, 4 paid but not delivered (retry with --signature), 5 request refused by the
merchant (or its payment already used), 6 nothing paid (terms, funds or transaction problem), 70 internal error.`

/** One command's help: its usage and an example. */
function commandHelp (spec: CommandSpec): string {
  return `usage: token-merchant ${spec.usage}\n\nexample:\n  ${spec.example}`
}

export type Invocation =
  | { kind: 'help', text: string }
  | { kind: 'command', command: CommandName, args: Record<string, string>, json: boolean }

function isCommand (name: string | undefined): name is CommandName {
  return name !== undefined && Object.hasOwn(COMMANDS, name)
}

/** Reads argv (without node and the script): the command, its positionals and options. */
/**
 * node:util's refusal in the user's terms: a value that starts with "-" (`--max-price -5`) is
 * "ambiguous" to parseArgs, which says nothing of the value; every value this CLI takes is a
 * path, a URL, a name or a positive amount, so say which option got what.
 */
function readableParseError (error: Error, args: string[]): string {
  const first = error.message.split('\n')[0]
  const ambiguous = /^Option '(-[^ ']+)(?:, (--[^ ']+))?(?: <value>)?' argument is ambiguous/.exec(first)
  if (ambiguous === null) return first
  const option = ambiguous[2] ?? ambiguous[1]
  const at = args.findIndex(arg => arg === option || arg === ambiguous[1])
  const value = at === -1 ? undefined : args[at + 1]
  return `${option} needs a value, got ${value === undefined ? 'another option' : `"${value}"`}: no value here is negative or starts with "-" (write ${option}=<value> if it must)`
}

export function parseInvocation (argv: string[]): Invocation {
  const [name, ...rest] = argv
  if (name === '--version' || name === '-v' || name === 'version') return { kind: 'help', text: `token-merchant ${SERVICE_VERSION}` }
  if (name === 'help' || name === '--help' || name === '-h') {
    const topic = rest.find(arg => !arg.startsWith('-'))
    if (topic === undefined) return { kind: 'help', text: USAGE }
    if (!isCommand(topic)) throw new UsageError(`unknown command "${topic}" (token-merchant --help lists them)`)
    return { kind: 'help', text: commandHelp(COMMANDS[topic]) }
  }
  if (name === undefined || name === '--json') throw new UsageError(`a command is required\n${USAGE}`)
  if (!isCommand(name)) {
    throw new UsageError(`${name.startsWith('-') ? `a command comes first, got ${name}` : `unknown command "${name}"`} (token-merchant --help lists them)`)
  }
  const spec: CommandSpec = COMMANDS[name]
  let parsed
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...spec.options, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true
    })
  } catch (error) {
    throw new UsageError(`${readableParseError(error as Error, rest)}\nusage: token-merchant ${spec.usage}`)
  }
  const { positionals } = parsed
  const values: Record<string, unknown> = parsed.values
  if (values.help === true) return { kind: 'help', text: commandHelp(spec) }
  if (positionals.length !== spec.positionals.length) {
    const expected = spec.positionals.length === 0 ? 'no positional arguments' : spec.positionals.map(p => `<${p}>`).join(' ')
    throw new UsageError(`${name} takes ${expected}, got ${positionals.length === 0 ? 'none' : positionals.join(' ')}\nusage: token-merchant ${spec.usage}`)
  }
  const missing = (spec.required ?? []).filter(option => values[option] === undefined)
  if (missing.length > 0) throw new UsageError(`${name} needs ${missing.map(m => `--${m}`).join(', ')}\nusage: token-merchant ${spec.usage}`)

  const args: Record<string, string> = {}
  spec.positionals.forEach((positional, i) => { args[positional] = positionals[i] })
  for (const [key, value] of Object.entries(values)) {
    if (typeof value === 'string') args[key] = value
    else if (value === true && key !== 'json' && key !== 'help') args[key] = 'true'
  }
  return { kind: 'command', command: name, args, json: values.json === true }
}
