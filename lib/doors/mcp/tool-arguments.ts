import { TypeCompiler } from '@sinclair/typebox/compiler'
import type { ValidationProblem } from '../../errors/error-body.js'
import type { Catalogue } from '../../catalogue/catalogue.js'
import { toolsOf, type McpToolName } from '../../tools/tool-catalog.js'

export type ArgumentCheck = (args: unknown) => ValidationProblem[]

/**
 * One compiled check per tool, from the same TypeBox schema tools/list publishes: MCP clients are
 * asked to follow `inputSchema`, and nothing reaches a service that does not.
 */
export function compileArgumentChecks (catalogue: Catalogue): ReadonlyMap<McpToolName, ArgumentCheck> {
  const tools = toolsOf(catalogue)
  return new Map(Object.keys(tools).map(name => {
    const compiled = TypeCompiler.Compile(tools[name].input)
    const check: ArgumentCheck = (args) => compiled.Check(args)
      ? []
      : [...compiled.Errors(args)].map(error => ({ in: 'arguments', path: error.path.slice(1).replaceAll('/', '.'), message: error.message }))
    return [name, check]
  }))
}
