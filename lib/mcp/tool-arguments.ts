import { TypeCompiler } from '@sinclair/typebox/compiler'
import type { ValidationProblem } from '../errors/error-body.js'
import { MCP_TOOLS, type McpToolName } from './tool-catalog.js'

export type ArgumentCheck = (args: unknown) => ValidationProblem[]

/**
 * One compiled check per tool, from the same TypeBox schema tools/list publishes: MCP clients are
 * asked to follow `inputSchema`, and nothing reaches a service that does not.
 */
export function compileArgumentChecks (): ReadonlyMap<McpToolName, ArgumentCheck> {
  return new Map((Object.keys(MCP_TOOLS) as McpToolName[]).map(name => {
    const compiled = TypeCompiler.Compile(MCP_TOOLS[name].input)
    const check: ArgumentCheck = (args) => compiled.Check(args)
      ? []
      : [...compiled.Errors(args)].map(error => ({ in: 'arguments', path: error.path.slice(1).replaceAll('/', '.'), message: error.message }))
    return [name, check]
  }))
}
