// Our responses against real captured ones (fixtures/samples/solana-rpc/), key for key. Extra keys
// are allowed only where named: fields newer nodes add that an older capture lacks.
import t from 'tap'
import { address, type Address } from '@solana/kit'
import { getTransferCheckedInstruction, getTransferInstruction } from '@solana-program/token'
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { startLocalnet } from '../index.js'
import { postRaw, rpcCall } from '../testing/json-rpc.js'
import { compareKeys, loadSample } from '../testing/reference-shapes.js'

const DEVNET_USDC = address('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU')
const NEWER_CONTEXT = ['.context.apiVersion']

t.test('responses match the real samples key for key', async (t) => {
  const net = await startLocalnet()
  t.teardown(() => net.stop())
  const mint = await net.createMint({ address: DEVNET_USDC, decimals: 6, freezeAuthority: net.authority.address })
  const buyer = await net.createWallet()
  const merchant = await net.createWallet()
  const buyerAta = await net.mintTo(mint, buyer.address, 9_000_000n)
  const [merchantAta] = await findAssociatedTokenPda({ mint, owner: merchant.address, tokenProgram: TOKEN_PROGRAM_ADDRESS })

  const call = async (method: string, params: unknown[]) => (await postRaw(net.url, { jsonrpc: '2.0', id: 1, method, params })).body
  const expectKeys = (name: string, ours: unknown, sample: unknown, allowExtra: string[] = []) => {
    const { missing, unexpected } = compareKeys(ours, sample, allowExtra)
    t.same(missing, [], `${name}: no key of the real sample is missing`)
    t.same(unexpected, [], `${name}: no key beyond the real sample (except ${allowExtra.join(', ') || 'none'})`)
  }

  // v0: create the merchant's ATA (inner instructions into Token and System) and pay it.
  const paid = await net.sendInstructions(
    [
      getCreateAssociatedTokenIdempotentInstruction({ payer: buyer, ata: merchantAta, owner: merchant.address, mint }),
      getTransferCheckedInstruction({ source: buyerAta, mint, destination: merchantAta, authority: buyer, amount: 1_000_000n, decimals: 6 }),
    ],
    [buyer]
  )
  const plain = await net.sendInstructions(
    [getTransferCheckedInstruction({ source: buyerAta, mint, destination: merchantAta, authority: buyer, amount: 1_000n, decimals: 6 })],
    [buyer]
  )

  t.test('getTransaction json (v0, inner instructions, token balances)', async () => {
    const ours = await call('getTransaction', [paid, { encoding: 'json', maxSupportedTransactionVersion: 0 }])
    expectKeys('getTransaction json', ours, loadSample('getTransaction.json.mainnet-v0-token2022-balances'), ['.result.transactionIndex'])
  })

  t.test('getTransaction base64 (v0)', async () => {
    const ours = await call('getTransaction', [plain, { encoding: 'base64', maxSupportedTransactionVersion: 0 }])
    expectKeys('getTransaction base64', ours, loadSample('getTransaction.base64.v0-loadedAddresses'), ['.result.transactionIndex', '.result.meta.costUnits'])
  })

  t.test('getTransaction json of a failed transaction', async () => {
    const other = await net.createWallet()
    const [otherAta] = await findAssociatedTokenPda({ mint, owner: other.address, tokenProgram: TOKEN_PROGRAM_ADDRESS })
    const failed = await net.sendInstructions(
      [
        getCreateAssociatedTokenIdempotentInstruction({ payer: buyer, ata: otherAta, owner: other.address, mint }),
        getTransferInstruction({ source: buyerAta, destination: otherAta, authority: buyer, amount: 10n ** 12n }),
      ],
      [buyer],
      { skipPreflight: true, version: 'legacy' }
    )
    const ours = await call('getTransaction', [failed, 'json'])
    t.same(ours.result.meta.err, { InstructionError: [1, { Custom: 1 }] })
    // The 2022 capture predates loadedAddresses, computeUnitsConsumed, costUnits and stackHeight.
    expectKeys('failed getTransaction json', ours, loadSample('getTransaction.json.mainnet-failed-InstructionError-Custom41'), [
      '.result.transactionIndex',
      '.result.meta.costUnits',
      '.result.meta.computeUnitsConsumed',
      '.result.meta.loadedAddresses',
      '.stackHeight',
      '.result.meta.preTokenBalances',
      '.result.meta.postTokenBalances',
    ])
  })

  t.test('getSignaturesForAddress', async () => {
    const ours = await call('getSignaturesForAddress', [merchantAta, { limit: 5 }])
    expectKeys('getSignaturesForAddress', ours.result, loadSample('getSignaturesForAddress.devnet-usdc-mint-memos-transactionIndex'))
    expectKeys('getSignaturesForAddress envelope', ours, loadSample('getSignaturesForAddress.mainnet-memo-transfer-len8'), ['.result[].transactionIndex'])
  })

  t.test('getSignatureStatuses', async () => {
    const ours = await call('getSignatureStatuses', [[paid, '5K4QuDxZjFkAhv8Kfj6pocDf59Cuo8EmxbRcM1d4PVaSWekF6RdC2krJHucF1FhkuSFVHCMcZ4GXnSx7zzygXMdi']])
    t.equal(ours.result.value[1], null)
    expectKeys('getSignatureStatuses', ours, loadSample('getSignatureStatuses.null-and-finalized'), ['.result.context.apiVersion'])
    expectKeys('getSignatureStatuses', ours, loadSample('getSignatureStatuses.finalized-and-confirmed'), ['.result.context.apiVersion'])
  })

  t.test('getAccountInfo', async () => {
    expectKeys('getAccountInfo base64 mint', await call('getAccountInfo', [mint, { encoding: 'base64' }]), loadSample('getAccountInfo.base64.mainnet-usdc-mint-apiVersion-1.16.21'))
    expectKeys('getAccountInfo jsonParsed mint', await call('getAccountInfo', [mint, { encoding: 'jsonParsed' }]), loadSample('getAccountInfo.jsonParsed.mainnet-usdc-mint'))
    expectKeys(
      'getAccountInfo jsonParsed token account',
      await call('getAccountInfo', [merchantAta, { encoding: 'jsonParsed' }]),
      loadSample('getAccountInfo.jsonParsed.devnet-token-account-8-decimals')
    )
    const feeMint = await net.createMint({ decimals: 5, program: 'token-2022', mintAuthority: null, extensions: { transferFee: { basisPoints: 300, maximumFee: 50_000_000_000_000n } } })
    const flux = await call('getAccountInfo', [feeMint, { encoding: 'jsonParsed' }])
    expectKeys('getAccountInfo jsonParsed Token-2022 transfer fee mint', flux, loadSample('getAccountInfo.jsonParsed.mainnet-token2022-mint-transferFeeConfig-FLUX'))
    t.equal(flux.result.value.data.program, 'spl-token-2022')
    t.equal(flux.result.value.data.parsed.info.mintAuthority, null)
    const missing = await call('getAccountInfo', ['FaTGhPTgKeZZzQwLenoxn2VZXPWV1FpjQ1AQe77JUeJw'])
    expectKeys('getAccountInfo null', missing, loadSample('getAccountInfo.value-null'), NEWER_CONTEXT.map((p) => `.result${p}`))
  })

  t.test('token methods', async () => {
    const holders: Address[] = []
    for (let i = 0; i < 22; i++) holders.push((await net.createWallet(0n)).address)
    for (const [i, holder] of holders.entries()) await net.mintTo(mint, holder, BigInt(1000 + i))
    const largest = await call('getTokenLargestAccounts', [mint])
    t.equal(largest.result.value.length, 20, 'top 20')
    t.equal(largest.result.value[0].amount, '7999000', 'the buyer holds the most')
    const amounts = largest.result.value.map((entry: any) => BigInt(entry.amount))
    t.ok(amounts.every((amount: bigint, i: number) => i === 0 || amount <= amounts[i - 1]), 'largest first')
    expectKeys('getTokenLargestAccounts', largest.result, loadSample('getTokenLargestAccounts.mainnet-pump-token-20-web3js'))
    expectKeys('getTokenSupply', await call('getTokenSupply', [mint]), loadSample('getTokenSupply.9-decimals'), ['.result.context.apiVersion'])
    expectKeys('getTokenAccountBalance', await call('getTokenAccountBalance', [merchantAta]), loadSample('getTokenAccountBalance.mainnet-usdc-0.001'))
    expectKeys(
      'getTokenAccountsByOwner base64',
      await call('getTokenAccountsByOwner', [merchant.address, { mint }, { encoding: 'base64' }]),
      loadSample('getTokenAccountsByOwner.mainnet-base64-usdc'),
      ['.account.space']
    )
    const programAccounts = await call('getProgramAccounts', [
      TOKEN_PROGRAM_ADDRESS,
      { encoding: 'base64', dataSlice: { offset: 0, length: 0 }, filters: [{ dataSize: 165 }, { memcmp: { offset: 0, bytes: mint } }] },
    ])
    t.ok(programAccounts.result.length > 20, 'every holder of the mint')
    t.same(programAccounts.result[0].account.data, ['', 'base64'])
    // a node answers each entry as getTokenAccountsByOwner does ({ account, pubkey }), without the envelope
    expectKeys('getProgramAccounts base64', programAccounts.result, loadSample('getTokenAccountsByOwner.mainnet-base64-usdc').result.value, ['.account.space'])
  })

  t.test('getLatestBlockhash', async () => {
    expectKeys('getLatestBlockhash', await call('getLatestBlockhash', []), loadSample('getLatestBlockhash.basic'), ['.result.context.apiVersion'])
  })

  t.test('sendTransaction preflight failure', async () => {
    const { buildSignedTransaction } = await import('../tx-builder.js')
    const { getTransferSolInstruction } = await import('@solana-program/system')
    const { result } = await rpcCall(net.url, 'getLatestBlockhash')
    const bytes = await buildSignedTransaction([getTransferSolInstruction({ source: merchant, destination: buyer.address, amount: 10n ** 15n })], {
      feePayer: merchant,
      lifetime: result.value,
    })
    const ours = await call('sendTransaction', [Buffer.from(bytes).toString('base64'), { encoding: 'base64' }])
    t.equal(ours.error.message, 'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1')
    const newerSimulationFields = ['fee', 'innerInstructions', 'loadedAccountsDataSize', 'loadedAddresses', 'postBalances', 'postTokenBalances', 'preBalances', 'preTokenBalances', 'replacementBlockhash', 'returnData']
    expectKeys('sendTransaction -32002', ours, loadSample('sendTransaction.error-32002-preflight-InstructionError-Custom1'), newerSimulationFields.map((f) => `.error.data.${f}`))
  })
})
