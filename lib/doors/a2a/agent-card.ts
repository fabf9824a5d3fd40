import type { AgentCard } from '@a2a-js/sdk'
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3'
import type { Catalogue } from '../../catalogue/catalogue.js'
import { formatTokenAmount } from '../../payment/catalog.js'
import { exampleInput } from './skills.js'
import { X402_EXTENSION_URI, X402_EXTENSION_URI_V02 } from './x402-extension.js'
import { A2A_PATH } from '../../../schemas/a2a.js'

const JSON_MODE = 'application/json'

export interface CardOptions {
  name: string
  description: string
  version: string
  /** The payment token's symbol (USDC). */
  symbol: string
  /** The products sold as skills. */
  catalogue: Catalogue
  /** MPP's charge is taken on the other doors (MPP_CHARGE): the card says where, since tasks take x402 only. */
  mpp?: boolean
}

/**
 * The A2A v1.0 agent card: the skills are the paid services of the catalogue, each with what it
 * returns, its price and an example data part; the x402 extension is required. JSON-RPC at
 * <base>/a2a, for v1.0 clients and (through the SDK's compatibility layer) v0.3 ones.
 */
export function createAgentCard (options: CardOptions): (base: string) => AgentCard {
  const skills = options.catalogue.products.map(product => {
    const { tool, price, name: service } = product
    return {
      id: service,
      name: tool.title,
      description: `${tool.summary} Returns the JSON of ${product.method} ${product.path} as a data artifact. ` +
        `Costs ${formatTokenAmount(price)} ${options.symbol} (${price} base units) per task, paid through the a2a-x402 extension (x402 v2, exact scheme, Solana). ` +
        `Send one data part { "skill": "${service}", ...input }; nothing is charged when the skill fails.`,
      tags: ['solana', 'token', 'x402', 'paid'],
      examples: [JSON.stringify(exampleInput(service, options.catalogue))],
      inputModes: [JSON_MODE],
      outputModes: [JSON_MODE],
      securityRequirements: []
    }
  })
  return (base) => ({
    name: options.name,
    description: options.mpp === true
      ? `${options.description} MPP (Solana charge) buyers pay the same products over HTTP and MCP (${base}/llms.txt); tasks here take x402.`
      : options.description,
    version: options.version,
    provider: { organization: options.name, url: base },
    documentationUrl: `${base}/llms.txt`,
    supportedInterfaces: duplicateInterfacesForLegacy([{ url: `${base}${A2A_PATH}`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }], ['JSONRPC']),
    capabilities: {
      streaming: false,
      pushNotifications: false,
      extendedAgentCard: false,
      extensions: [
        { uri: X402_EXTENSION_URI, description: 'Every skill is paid through x402 (v2, exact scheme, Solana): the task asks input-required with x402.payment.required; send x402.payment.payload on the same task.', required: true, params: undefined },
        { uri: X402_EXTENSION_URI_V02, description: 'The same extension under its v0.2 URI: accepted in place of the v0.1 one.', required: false, params: undefined }
      ]
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: [JSON_MODE],
    defaultOutputModes: [JSON_MODE],
    skills,
    signatures: []
  })
}

/**
 * The card as a v0.3 client reads it (one `url`, card-level `protocolVersion`), with the v1.0
 * interfaces kept beside (the SDK's "superset" card): what its Express adapter serves to requests
 * without A2A-Version, which this Fastify door cannot borrow.
 */
export function legacyAgentCard (card: AgentCard): Record<string, unknown> {
  const legacy = card.supportedInterfaces.find(entry => entry.protocolVersion === '0.3') ?? card.supportedInterfaces[0]
  return {
    name: card.name,
    description: card.description,
    version: card.version,
    url: legacy.url,
    preferredTransport: legacy.protocolBinding,
    protocolVersion: '0.3',
    provider: card.provider,
    documentationUrl: card.documentationUrl,
    capabilities: {
      streaming: card.capabilities?.streaming,
      pushNotifications: card.capabilities?.pushNotifications,
      extensions: card.capabilities?.extensions.map(({ uri, description, required }) => ({ uri, description, required }))
    },
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map(({ id, name, description, tags, examples, inputModes, outputModes }) => ({ id, name, description, tags, examples, inputModes, outputModes })),
    supportedInterfaces: card.supportedInterfaces
  }
}
