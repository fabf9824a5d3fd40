import { validationError } from '../errors/error-body.js'
import { parseTokenInput, TOKEN_INPUT_PATTERN } from './token-input.js'

const TOKEN_INPUT = new RegExp(TOKEN_INPUT_PATTERN)

/** One token the caller named: where it came from (`params`, `querystring`, `arguments`), its name, its raw value. */
export interface TokenInputField {
  in: string
  path: string
  value: unknown
}

/**
 * What fetch-price checks before asking for payment, whichever door the call came through (HTTP
 * route or MCP tool): a mint-like string that is not 32 bytes is a VALIDATION_ERROR, an unknown
 * or ambiguous symbol is TOKEN_NOT_FOUND or AMBIGUOUS_SYMBOL. Nobody pays to learn those.
 * Values the schema pattern refuses are left to schema validation.
 */
export async function checkTokenInputs (prices: { resolveToken: (raw: string) => Promise<unknown> }, fields: TokenInputField[]): Promise<void> {
  for (const field of fields) {
    if (typeof field.value !== 'string' || !TOKEN_INPUT.test(field.value)) continue
    const parsed = parseTokenInput(field.value)
    if (parsed.kind === 'invalid') throw validationError([{ in: field.in, path: field.path, message: parsed.reason }])
    await prices.resolveToken(field.value)
  }
}
