import t from 'tap'
import { address, generateKeyPairSigner } from '@solana/kit'
import { startLocalnet } from '../index.js'
import { rpcCall } from '../testing/json-rpc.js'

t.test('mints with authorities and Token-2022 extensions', async (t) => {
  const net = await startLocalnet()
  t.teardown(() => net.stop())
  const admin = await net.createWallet()
  const parsedMint = async (mint: string) => (await rpcCall(net.url, 'getAccountInfo', [mint, { encoding: 'jsonParsed' }])).result.value

  t.test('a mint at a fixed address (devnet USDC) is a classic 82-byte mint', async (t) => {
    const usdc = await net.createMint({ address: address('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'), decimals: 6 })
    const { result } = await rpcCall(net.url, 'getAccountInfo', [usdc, { encoding: 'base64' }])
    const data = Buffer.from(result.value.data[0], 'base64')
    t.equal(data.length, 82)
    t.equal(data[44], 6, 'decimals byte')
    t.equal(result.value.owner, 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')
    t.equal(result.value.lamports, 1461600, 'rent exempt')
    const supply = await rpcCall(net.url, 'getTokenSupply', [usdc])
    t.same(supply.result.value, { amount: '0', decimals: 6, uiAmount: 0, uiAmountString: '0' })
  })

  t.test('the native mint (wrapped SOL) is there from genesis, as on every cluster', async (t) => {
    const mint = await parsedMint('So11111111111111111111111111111111111111112')
    t.equal(mint.owner, 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')
    t.match(mint.data.parsed, { type: 'mint', info: { decimals: 9, supply: '0', mintAuthority: null, freezeAuthority: null, isInitialized: true } })
  })

  t.test('every supported extension, set up by real transactions', async (t) => {
    const hookProgram = (await generateKeyPairSigner()).address
    const mint = await net.createMint({
      decimals: 9,
      program: 'token-2022',
      freezeAuthority: admin.address,
      extensions: {
        transferFee: { basisPoints: 250, maximumFee: 5_000_000n },
        permanentDelegate: admin.address,
        transferHook: hookProgram,
        defaultAccountState: 'initialized',
        mintCloseAuthority: admin.address,
        pausable: admin.address,
        metadata: { name: 'Local Token', symbol: 'LOC', uri: 'https://example.invalid/loc.json', updateAuthority: admin.address },
      },
    })
    const value = await parsedMint(mint)
    t.equal(value.owner, 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb')
    t.equal(value.data.program, 'spl-token-2022')
    const info = value.data.parsed.info
    t.equal(info.decimals, 9)
    t.equal(info.freezeAuthority, admin.address)
    t.equal(info.mintAuthority, net.authority.address)
    const byName = Object.fromEntries(info.extensions.map((e: any) => [e.extension, e.state]))
    t.same(Object.keys(byName).sort(), [
      'defaultAccountState', 'metadataPointer', 'mintCloseAuthority', 'pausableConfig', 'permanentDelegate', 'tokenMetadata', 'transferFeeConfig', 'transferHook',
    ])
    t.same(byName.transferFeeConfig.newerTransferFee, { epoch: 0, maximumFee: 5_000_000, transferFeeBasisPoints: 250 })
    t.equal(byName.permanentDelegate.delegate, admin.address)
    t.same(byName.transferHook, { authority: net.authority.address, programId: hookProgram })
    t.same(byName.defaultAccountState, { accountState: 'initialized' })
    t.same(byName.mintCloseAuthority, { closeAuthority: admin.address })
    t.same(byName.pausableConfig, { authority: admin.address, paused: false })
    t.same(byName.metadataPointer, { authority: net.authority.address, metadataAddress: mint })
    t.same(byName.tokenMetadata, { additionalMetadata: [], mint, name: 'Local Token', symbol: 'LOC', updateAuthority: admin.address, uri: 'https://example.invalid/loc.json' })
    const history = await rpcCall(net.url, 'getSignaturesForAddress', [mint])
    t.ok(history.result.length >= 2, 'created by transactions on the ledger')
  })

  t.test('non-transferable, default-frozen, revoked authorities', async (t) => {
    const mint = await net.createMint({
      decimals: 0,
      program: 'token-2022',
      mintAuthority: null,
      freezeAuthority: admin.address,
      extensions: { nonTransferable: true, defaultAccountState: 'frozen', metadata: { name: 'Soulbound', symbol: 'SB', uri: '', updateAuthority: null } },
    })
    const info = (await parsedMint(mint)).data.parsed.info
    t.equal(info.mintAuthority, null)
    const byName = Object.fromEntries(info.extensions.map((e: any) => [e.extension, e]))
    t.same(byName.nonTransferable, { extension: 'nonTransferable' }, 'unit extension has no state')
    t.same(byName.defaultAccountState.state, { accountState: 'frozen' })
    t.equal(byName.tokenMetadata.state.updateAuthority, null)
    const ata = await net.createAta(mint, admin.address)
    const account = (await rpcCall(net.url, 'getAccountInfo', [ata, { encoding: 'jsonParsed' }])).result.value.data.parsed
    t.equal(account.type, 'account')
    t.equal(account.info.state, 'frozen')
    t.ok(account.info.extensions.some((e: any) => e.extension === 'nonTransferableAccount'))
    await t.rejects(net.mintTo(mint, admin.address, 1n), /no signer/)
  })

  t.test('fixed-address Token-2022 mint with extensions is written directly', async (t) => {
    const fixed = (await generateKeyPairSigner()).address
    await net.createMint({ address: fixed, decimals: 2, program: 'token-2022', extensions: { permanentDelegate: admin.address, metadata: { name: 'F', symbol: 'F', uri: 'u', updateAuthority: null } } })
    const info = (await parsedMint(fixed)).data.parsed.info
    t.same(info.extensions.map((e: any) => e.extension), ['permanentDelegate', 'metadataPointer', 'tokenMetadata'])
    t.equal(info.extensions[2].state.updateAuthority, null)
    const holder = await net.createWallet(0n)
    await net.mintTo(fixed, holder.address, 250n)
    const accounts = await rpcCall(net.url, 'getTokenAccountsByOwner', [holder.address, { programId: 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb' }, { encoding: 'jsonParsed' }])
    t.equal(accounts.result.value[0].account.data.parsed.info.tokenAmount.uiAmountString, '2.5')
  })

  t.test('classic mints take no extensions', async (t) => {
    await t.rejects(net.createMint({ decimals: 6, extensions: { permanentDelegate: admin.address } }), /token-2022/)
  })
})
