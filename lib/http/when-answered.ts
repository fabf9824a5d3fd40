import type { ServerResponse } from 'node:http'

/**
 * Resolves once the answer went out (true) or the client left first (false). The doors that hand
 * over a bought document ask it to know whether the buyer got it; the promise is made once, on the
 * first ask, so a call that never asks adds no listener.
 */
export function whenAnswered (response: ServerResponse): () => Promise<boolean> {
  let answered: Promise<boolean> | undefined
  return async () => await (answered ??= new Promise<boolean>(resolve => {
    if (response.writableFinished || response.destroyed) resolve(response.writableFinished)
    response.once('finish', () => resolve(true)).once('close', () => resolve(response.writableFinished))
  }))
}
