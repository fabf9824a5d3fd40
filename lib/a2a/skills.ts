import { TypeCompiler } from '@sinclair/typebox/compiler'
import { MCP_TOOLS, toolOfService, type McpToolName } from '../mcp/tool-catalog.js'
import { PAID_SERVICES, type PaidServiceName } from '../payment/catalog.js'
import { DISCOVERY_MODELS } from '../x402/discovery-extension.js'

/**
 * The products as A2A skills, derived from the one catalogue: a skill is a paid service (its id is
 * the service name), its input the MCP tool's arguments, which are the HTTP route's parameters
 * checked by the same TypeBox schemas. A message names the skill and its input in one data part:
 * `{ "skill": "fetch-price", "token": "SOL", "vs": "USDC" }`.
 */

export interface Purchase {
  service: PaidServiceName
  tool: McpToolName
  /** The input, checked against the skill's schema. */
  args: Record<string, unknown>
}

export const SKILL_FIELD = 'skill'

export const SKILLS = Object.keys(PAID_SERVICES) as PaidServiceName[]

const checks = new Map(SKILLS.map(service => [service, TypeCompiler.Compile(MCP_TOOLS[toolOfService(service)].input)]))

/** A working example of each skill's data part, from the discovery examples (the same ones the 402s carry). */
export function exampleInput (service: PaidServiceName): Record<string, string> {
  const { params, query } = DISCOVERY_MODELS[service].example
  return { [SKILL_FIELD]: service, ...params, ...query }
}

/** The data part each skill takes, as text: fields, which are optional, and an example. */
export function expectedShape (): string {
  return SKILLS.map(service => {
    const input = MCP_TOOLS[toolOfService(service)].input
    const required = new Set(input.required ?? [])
    const fields = Object.keys(input.properties).map(name => `"${name}"${required.has(name) ? '' : ' (optional)'}`).join(', ')
    return `{ "${SKILL_FIELD}": "${service}", ${fields} } e.g. ${JSON.stringify(exampleInput(service))}`
  }).join(' or ')
}

/** Reads a purchase from a data part's value: the skill and its input, or what is wrong with it. */
export function readPurchase (value: unknown): Purchase | { problems: string[] } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problems: ['the data part is not a JSON object'] }
  const { [SKILL_FIELD]: skill, ...args } = value as Record<string, unknown>
  const service = SKILLS.find(name => name === skill)
  if (service === undefined) return { problems: [`"${SKILL_FIELD}" must be one of ${SKILLS.map(name => `"${name}"`).join(', ')}; got ${JSON.stringify(skill) ?? 'nothing'}`] }
  const check = checks.get(service)
  if (check === undefined || !check.Check(args)) {
    return { problems: [...(check?.Errors(args) ?? [])].map(error => `${error.path === '' ? 'input' : error.path.slice(1).replaceAll('/', '.')}: ${error.message}`) }
  }
  return { service, tool: toolOfService(service), args }
}

/**
 * The resource a skill's payment buys: the skill and its input, canonical (sorted keys). A payment
 * made for it names it, so it never buys another input, an HTTP route or an MCP tool, nor the other
 * way round (X402_RESOURCE_MISMATCH).
 */
export function skillResourceUrl (purchase: Pick<Purchase, 'service' | 'args'>): string {
  const query = Object.keys(purchase.args).sort()
    .filter(key => purchase.args[key] !== undefined)
    .map(key => `${encodeURIComponent(key)}=${encodeURIComponent(String(purchase.args[key]))}`).join('&')
  return `a2a://skill/${purchase.service}${query === '' ? '' : `?${query}`}`
}
