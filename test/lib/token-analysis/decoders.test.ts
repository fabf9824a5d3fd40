import { readFileSync } from 'node:fs'
import t, { type Test } from 'tap'
import { address, none, some } from '@solana/kit'
import { extension, getMintEncoder as getToken2022MintEncoder, TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022'
import { normaliseExtension } from '../../../lib/token-analysis/extensions.js'
import { decodeMetaplexMetadata, findMetaplexMetadataAddress } from '../../../lib/token-analysis/metaplex-metadata.js'
import { metaplexAccount } from '../../fixtures/metaplex-account.js'
import { accountBytes, decodeMintAccount } from '../../../lib/token-analysis/read-mint.js'
import { AppError } from '../../../lib/errors/app-error.js'

// Real mainnet answers, copied into the repository with their source (test/fixtures/samples/solana-rpc).
const SAMPLES = new URL('../../fixtures/samples/solana-rpc/', import.meta.url)
const sample = (name: string) => JSON.parse(readFileSync(new URL(name, SAMPLES), 'utf8'))

const USDC = address('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')
const FLUX = address('FLUXBmPhT3Fd1EDVFdg46YREqHBeNypn1h4EbnTzWERX')
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
const SYSTEM_PROGRAM = '11111111111111111111111111111111'

function expectAppError (t: Test, fn: () => unknown, statusCode: number, code: string) {
  try {
    fn()
    t.fail(`expected ${code}`)
  } catch (error) {
    t.ok(error instanceof AppError, 'an AppError')
    t.match(error, { statusCode, code })
  }
}

t.test('the base64 USDC mint decodes to what the independent jsonParsed USDC sample says', async t => {
  const base64 = sample('getAccountInfo.base64.mainnet-usdc-mint-apiVersion-1.16.21.json').result.value
  const parsed = sample('getAccountInfo.jsonParsed.mainnet-usdc-mint.json').result.value.data.parsed.info
  const bytes = accountBytes(base64.data)
  const mint = decodeMintAccount(USDC, base64.owner, bytes)
  t.equal(mint.programAddress, TOKEN_PROGRAM)
  t.equal(mint.decimals, parsed.decimals)
  t.equal(mint.mintAuthority, parsed.mintAuthority)
  t.equal(mint.freezeAuthority, parsed.freezeAuthority)
  // The two samples are 22 million slots apart, so the supply is checked against the layout of
  // rpc.md section 3.3 instead: u64 little-endian at bytes 36..44.
  t.equal(mint.supply, Buffer.from(bytes).readBigUInt64LE(36))
  t.equal(mint.supply, 5_034_942_469_126_966n)
  t.same(mint.extensions, [])
})

t.test('another real 82-byte SPL mint: a mint authority and no freeze authority', async t => {
  const value = sample('getAccountInfo.base64.spl-mint-82-bytes.json').result.value
  const mint = decodeMintAccount('F5RYi7FMPefkc7okJNh21Hcsch7RUaLVr8Rzc8SQqxUb', value.owner, accountBytes(value.data))
  t.equal(mint.decimals, 9)
  t.equal(mint.supply, 0n)
  t.type(mint.mintAuthority, 'string')
  t.equal(mint.freezeAuthority, null)
})

t.test('the FLUX Token-2022 mint rebuilt from its jsonParsed fields decodes back to those fields', async t => {
  const value = sample('getAccountInfo.jsonParsed.mainnet-token2022-mint-transferFeeConfig-FLUX.json').result.value
  const info = value.data.parsed.info
  const state = info.extensions[0].state
  const schedule = (fee: { epoch: number, maximumFee: number, transferFeeBasisPoints: number }) =>
    ({ epoch: BigInt(fee.epoch), maximumFee: BigInt(fee.maximumFee), transferFeeBasisPoints: fee.transferFeeBasisPoints })
  // The sample has no bytes, so the account is encoded from its fields with the Token-2022 encoders.
  // Its length must then be the real account's `space` (278): base, padding, type byte, one TLV entry.
  const bytes = new Uint8Array(getToken2022MintEncoder().encode({
    mintAuthority: none(),
    supply: BigInt(info.supply),
    decimals: info.decimals,
    isInitialized: info.isInitialized,
    freezeAuthority: none(),
    extensions: some([extension('TransferFeeConfig', {
      transferFeeConfigAuthority: address(SYSTEM_PROGRAM),
      withdrawWithheldAuthority: address(state.withdrawWithheldAuthority),
      withheldAmount: BigInt(state.withheldAmount),
      olderTransferFee: schedule(state.olderTransferFee),
      newerTransferFee: schedule(state.newerTransferFee)
    })])
  }))
  t.equal(bytes.length, value.space)

  const mint = decodeMintAccount(FLUX, value.owner, bytes)
  t.equal(mint.programAddress, TOKEN_2022_PROGRAM_ADDRESS)
  t.equal(mint.mintAuthority, info.mintAuthority)
  t.equal(mint.freezeAuthority, info.freezeAuthority)
  t.equal(mint.supply.toString(), info.supply)
  t.equal(mint.decimals, 5)
  t.equal(mint.extensions.length, 1)
  // The normalised extension says what the RPC's own parser said, field by field.
  const asRpc = (fee: { epoch: number, maximumFee: number, transferFeeBasisPoints: number }) =>
    ({ epoch: fee.epoch, basis_points: fee.transferFeeBasisPoints, maximum_fee: String(fee.maximumFee) })
  t.same(normaliseExtension(mint.extensions[0]), {
    type: 'transfer_fee',
    older_fee: asRpc(state.olderTransferFee),
    newer_fee: asRpc(state.newerTransferFee),
    config_authority: state.transferFeeConfigAuthority,
    withdraw_withheld_authority: state.withdrawWithheldAuthority,
    withheld_amount: String(state.withheldAmount)
  })
  t.match(normaliseExtension(mint.extensions[0]), { newer_fee: { epoch: 530, basis_points: 300, maximum_fee: '50000000000000' }, config_authority: null })
})

t.test('accounts that are not mints are 422 NOT_A_TOKEN_MINT', async t => {
  const usdc = accountBytes(sample('getAccountInfo.base64.mainnet-usdc-mint-apiVersion-1.16.21.json').result.value.data)
  expectAppError(t, () => decodeMintAccount(USDC, SYSTEM_PROGRAM, usdc), 422, 'NOT_A_TOKEN_MINT')
  expectAppError(t, () => decodeMintAccount(USDC, TOKEN_PROGRAM, new Uint8Array(165)), 422, 'NOT_A_TOKEN_MINT')
  expectAppError(t, () => decodeMintAccount(USDC, TOKEN_PROGRAM, new Uint8Array(82)), 422, 'NOT_A_TOKEN_MINT')
  const token2022Account = new Uint8Array(170)
  token2022Account[165] = 2
  expectAppError(t, () => decodeMintAccount(USDC, TOKEN_2022_PROGRAM_ADDRESS, token2022Account), 422, 'NOT_A_TOKEN_MINT')
  expectAppError(t, () => decodeMintAccount(USDC, TOKEN_2022_PROGRAM_ADDRESS, new Uint8Array(355)), 422, 'NOT_A_TOKEN_MINT')
})

t.test('a Token-2022 extension type the library does not know is reported, not fatal', async t => {
  const base = accountBytes(sample('getAccountInfo.base64.mainnet-usdc-mint-apiVersion-1.16.21.json').result.value.data)
  const bytes = new Uint8Array(166 + 4 + 3)
  bytes.set(base)
  bytes[165] = 1
  new DataView(bytes.buffer).setUint16(166, 999, true)
  new DataView(bytes.buffer).setUint16(168, 3, true)
  const mint = decodeMintAccount(USDC, TOKEN_2022_PROGRAM_ADDRESS, bytes)
  t.same(mint.extensions.map(normaliseExtension), [{ type: 'unknown', extension_type: 999 }])
  bytes[168] = 200
  expectAppError(t, () => decodeMintAccount(USDC, TOKEN_2022_PROGRAM_ADDRESS, bytes), 422, 'NOT_A_TOKEN_MINT')
})

t.test('Metaplex metadata: the PDA and the fields of the documented layout', async t => {
  // The USDC metadata address as any explorer shows it, derived from the seeds.
  t.equal(await findMetaplexMetadataAddress(USDC), '5x38Kp4hvdomTCnCrAny4UtMUt5rQBdB6px2K1Ui45Wq')
  const authority = address('2wmVCSfPxGPjrnMMn7rchp4uaeoTqN39mXFC2zhPdri9')
  const fields = { updateAuthority: authority, mint: USDC, name: 'USD Coin', symbol: 'USDC', uri: '', creators: [authority, address(SYSTEM_PROGRAM)], isMutable: true }
  const at = address('5x38Kp4hvdomTCnCrAny4UtMUt5rQBdB6px2K1Ui45Wq')
  t.same(decodeMetaplexMetadata(at, metaplexAccount(fields), USDC), {
    address: at, updateAuthority: authority, name: 'USD Coin', symbol: 'USDC', uri: '', isMutable: true
  })
  t.match(decodeMetaplexMetadata(at, metaplexAccount({ ...fields, creators: [], isMutable: false }), USDC), { isMutable: false, name: 'USD Coin' })
  t.equal(decodeMetaplexMetadata(at, metaplexAccount(fields), FLUX), null, 'metadata of another mint proves nothing')
  const wrongKey = metaplexAccount(fields)
  wrongKey[0] = 6
  t.equal(decodeMetaplexMetadata(at, wrongKey, USDC), null, 'not a MetadataV1 account')
  t.equal(decodeMetaplexMetadata(at, metaplexAccount(fields).subarray(0, 100), USDC), null, 'truncated')
})
