import t from 'tap'
import { errorBody } from '../../../lib/errors/error-body.js'
import { CATALOGUE } from '../../../lib/catalogue/catalogue.js'
import { createChallengeBodies, spliceAroundResource } from '../../../lib/payment/challenge.js'
import { refusal, type Refusal } from '../../../lib/contract/refusal.js'
import { paymentRequirement, paymentRequiredRefusal, type MerchantTerms } from '../../../lib/payment/requirements.js'

const TERMS: MerchantTerms = {
  x402Network: 'solana-devnet',
  payTo: 'J7W1UzFDktMUbufdSgriUX58fffhJWiGPpGnLGhgEitx',
  mint: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
  symbol: 'USDC',
  label: 'Test "Merchant" \\ ünïcode',
  maxAgeSeconds: 900,
  recipientTokenAccount: 'Hry8FWC2WjuCHGyiz9tD2HduLXSXLUQMA36FVmny6sTB',
  walletSignatureRequired: false,
  redelivery: 'payment'
}
const service = CATALOGUE.product('analyze-token')

/** What the challenge was before it was spliced: the whole body through JSON.stringify. */
function stringified (requestId: string, resource: string, refused: Refusal = paymentRequiredRefusal(service)): string {
  return JSON.stringify({
    ...errorBody({ id: requestId }, refused.statusCode, refused.code, refused.message, refused.details),
    x402Version: 1,
    accepts: [paymentRequirement(TERMS, service, resource)]
  })
}

t.test('the spliced challenge is byte for byte the body JSON.stringify makes', async t => {
  const bodies = createChallengeBodies(paymentRequirement(TERMS, service, ''), paymentRequiredRefusal(service))
  const resources = [
    'http://127.0.0.1:3000/api/analyze-token/So11111111111111111111111111111111111111112',
    'https://merchant.example/api/analyze-token/x?q="quoted"&b=\\back\\slash',
    'http://h/\u2028line\u0001control/ünï',
    ''
  ]
  for (const [i, resource] of resources.entries()) {
    const answerAt = bodies.paymentRequiredAt(resource)
    for (const requestId of ['a1b2c3d4e5f6-1f', 'caller.id:with-dashes_1', 'ünï"\\']) {
      const body = answerAt(requestId)
      t.equal(body, stringified(requestId, resource), `resource ${i}, request id ${requestId}`)
      t.equal(JSON.parse(body).accepts[0].resource, resource)
    }
    const first = answerAt('first')
    answerAt('second')
    t.equal(JSON.parse(first).requestId, 'first', 'each answer is its own')
  }
})

t.test('refusals keep their code, message, details and status, with the requirements again', async t => {
  const bodies = createChallengeBodies(paymentRequirement(TERMS, service, ''), paymentRequiredRefusal(service))
  const resource = 'http://merchant.example/api/analyze-token/abc'
  const refusals = [
    refusal('INVALID_PAYMENT_HEADER', 'x-payment-wallet is missing', { details: { invalidHeaders: ['x-payment-wallet'] } }),
    refusal('PAYMENT_IN_PROGRESS', 'being verified', { details: { retryAfterSeconds: 2 } }),
    refusal('PAYMENT_NOT_FOUND', 'no such "transaction"')
  ]
  for (const refused of refusals) {
    const body = bodies.refused(refused, 'req-7', resource)
    t.equal(body, stringified('req-7', resource, refused), refused.code)
    t.match(JSON.parse(body), { statusCode: refused.statusCode, code: refused.code, requestId: 'req-7', x402Version: 1, accepts: [{ resource }] })
  }
})

t.test('a requirement must hold its resource exactly once to be spliced', async t => {
  const requirement = paymentRequirement(TERMS, service, '')
  const { prefix, suffix } = spliceAroundResource(requirement)
  t.equal(`${prefix}"u"${suffix}`, JSON.stringify({ ...requirement, resource: 'u' }))
  // Fields added later (a fee payer, say) travel in the prefix or the suffix.
  const withFeePayer = { ...requirement, extra: { ...requirement.extra, feePayer: TERMS.payTo } }
  const spliced = spliceAroundResource(withFeePayer)
  t.same(JSON.parse(`${spliced.prefix}"u"${spliced.suffix}`), { ...withFeePayer, resource: 'u' })
  t.throws(() => spliceAroundResource({ resource: '', copy: '\u0000resource\u0000' }), /exactly once/)
})
