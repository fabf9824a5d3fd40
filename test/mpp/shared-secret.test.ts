import t from 'tap'
import { Challenge, Credential } from 'mppx'
import type { FastifyInstance } from 'fastify'
import { build } from '../helper.js'
import { startTestPostgres } from '../fixtures/postgres.js'

// The HMAC key that binds MPP challenges: made at first start and kept in the store, so every
// instance sharing the store takes the challenges of the others (PostgreSQL, two instances);
// MPP_SECRET_KEY when set. Shared terms: one payment address, one public base URL.
const ENV = { PUBLIC_BASE_URL: 'https://merchant.example', PAYMENT_ADDRESS: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU' }
const PATH = '/api/fetch-price/SOL'

async function pushChallenge (app: FastifyInstance) {
  const res = await app.inject({ url: PATH })
  const challenges = Challenge.deserializeList(String(res.headers['www-authenticate']))
  return challenges.find(c => (c.request.methodDetails as { feePayer?: boolean }).feePayer !== true) as Challenge.Challenge
}

/** A credential that passes the binding and is refused after it (a transaction for the push challenge): which code an instance answers says whether it knew the key. */
async function codeFor (app: FastifyInstance, challenge: Challenge.Challenge): Promise<string> {
  const res = await app.inject({ url: PATH, headers: { authorization: Credential.serialize({ challenge, payload: { type: 'transaction', transaction: 'AAAA' } }) } })
  return (res.json() as { code: string }).code
}

t.test('two instances on one PostgreSQL agree on the key they made', async t => {
  const postgres = await startTestPostgres(t)
  const url = await postgres.createDatabase(t)
  const a = await build(t, { ...ENV, DATABASE_URL: url })
  const b = await build(t, { ...ENV, DATABASE_URL: url })
  const fromA = await pushChallenge(a)
  t.equal(await codeFor(b, fromA), 'MPP_CREDENTIAL_INVALID', 'B verifies A\'s challenge (then refuses the payload)')
  t.equal(await codeFor(a, await pushChallenge(b)), 'MPP_CREDENTIAL_INVALID', 'and A verifies B\'s')

  const other = await build(t, { ...ENV, MPP_SECRET_KEY: 'an-operator-chosen-key-of-32-characters' })
  t.equal(await codeFor(other, fromA), 'MPP_CHALLENGE_INVALID', 'an instance with another key refuses it')
  t.equal(await codeFor(other, await pushChallenge(other)), 'MPP_CREDENTIAL_INVALID', 'and takes its own')
})
