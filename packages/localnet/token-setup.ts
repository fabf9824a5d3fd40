// Mint and token-account setup for tests and the demo. Mints at a caller-chosen address (e.g. devnet
// USDC) are written directly, since nobody holds those keys; everything else is a real transaction
// built with the @solana-program clients. The base SPL instructions are identical in both token
// programs, so the Token-2022 client is used for both with the program address passed explicitly.
import { generateKeyPairSigner, none, some, type Address, type Instruction, type TransactionSigner } from '@solana/kit'
import { getCreateAccountInstruction } from '@solana-program/system'
import {
  AccountState,
  AuthorityType,
  extension,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintEncoder,
  getMintSize,
  getMintToCheckedInstruction,
  getPostInitializeInstructionsForMintExtensions,
  getPreInitializeInstructionsForMintExtensions,
  getSetAuthorityInstruction,
  getUpdateTokenMetadataUpdateAuthorityInstruction,
  type ExtensionArgs,
} from '@solana-program/token-2022'
import type { Chain } from './chain.js'
import { readMint, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './encoding/token-layout.js'

export interface MintExtensionsOptions {
  transferFee?: { basisPoints: number; maximumFee: bigint };
  permanentDelegate?: Address;
  /** program id of the hook */
  transferHook?: Address;
  nonTransferable?: true;
  defaultAccountState?: 'frozen' | 'initialized';
  mintCloseAuthority?: Address;
  /** pause authority */
  pausable?: Address;
  metadata?: { name: string; symbol: string; uri: string; updateAuthority: Address | null };
}

export interface CreateMintOptions {
  address?: Address;
  decimals: number;
  program?: 'token' | 'token-2022';
  /** default: the localnet's own authority; null: no mint authority (fixed supply) */
  mintAuthority?: TransactionSigner | Address | null;
  freezeAuthority?: Address | null;
  extensions?: MintExtensionsOptions;
}

/** How token-setup reaches the chain: the payer and an in-process "sign and land it or throw". */
export interface SetupDriver {
  chain: Chain;
  payer: TransactionSigner;
  execute(instructions: Instruction[], signers: TransactionSigner[]): Promise<string>;
}

export class TokenSetup {
  /** mint -> signer able to mint it, for mintTo */
  private readonly mintSigners = new Map<string, TransactionSigner>()

  constructor (private readonly driver: SetupDriver) {}

  async createMint (options: CreateMintOptions): Promise<Address> {
    const programId = (options.program === 'token-2022' ? TOKEN_2022_PROGRAM : TOKEN_PROGRAM) as Address
    if (options.extensions && Object.keys(options.extensions).length > 0 && programId !== TOKEN_2022_PROGRAM) {
      throw new Error('createMint: extensions need program "token-2022" (classic SPL Token mints have none; Metaplex metadata is not supported)')
    }
    const requested = options.mintAuthority === undefined ? this.driver.payer : options.mintAuthority
    // With `null` we still need someone to set the mint up; the authority is revoked at the end.
    const setupAuthority: TransactionSigner | Address = requested === null ? this.driver.payer : requested
    const setupAddress = typeof setupAuthority === 'string' ? setupAuthority : setupAuthority.address

    const mint = options.address
      ? this.writeMintAt(options.address, programId, options, requested === null ? null : setupAddress)
      : await this.createMintByTransaction(programId, options, setupAuthority)

    if (requested !== null && typeof setupAuthority !== 'string') this.mintSigners.set(mint, setupAuthority)
    if (requested === null && !options.address) {
      await this.driver.execute(
        [getSetAuthorityInstruction({ owned: mint, owner: this.driver.payer, authorityType: AuthorityType.MintTokens, newAuthority: none() }, { programAddress: programId })],
        [this.driver.payer]
      )
    }
    return mint
  }

  async createAta (mint: Address, owner: Address): Promise<Address> {
    const tokenProgram = this.mintProgram(mint)
    const [ata] = await findAssociatedTokenPda({ mint, owner, tokenProgram })
    if (this.driver.chain.getAccount(ata)) return ata
    await this.driver.execute(
      [getCreateAssociatedTokenIdempotentInstruction({ payer: this.driver.payer, ata, owner, mint, tokenProgram })],
      [this.driver.payer]
    )
    return ata
  }

  async mintTo (mint: Address, owner: Address, amount: bigint): Promise<Address> {
    const signer = this.mintSigners.get(mint)
    if (!signer) throw new Error(`mintTo: the localnet holds no signer for the mint authority of ${mint}`)
    const programAddress = this.mintProgram(mint)
    const decimals = readMint(this.driver.chain.getAccount(mint)!.data)!.decimals
    const ata = await this.createAta(mint, owner)
    await this.driver.execute([getMintToCheckedInstruction({ mint, token: ata, mintAuthority: signer, amount, decimals }, { programAddress })], [signer])
    return ata
  }

  private mintProgram (mint: Address): Address {
    const account = this.driver.chain.getAccount(mint)
    if (!account || !readMint(account.data)) throw new Error(`${mint} is not a mint on this localnet`)
    return account.owner
  }

  /** Genesis-style write, like a validator started with a cloned account. */
  private writeMintAt (
    address: Address,
    programId: Address,
    options: CreateMintOptions,
    mintAuthority: Address | null
  ): Address {
    const extensions = buildExtensions(options.extensions, mintAuthority ?? this.driver.payer.address, address, 'final')
    const data = Uint8Array.from(
      getMintEncoder().encode({
        mintAuthority: mintAuthority ? some(mintAuthority) : none(),
        supply: 0n,
        decimals: options.decimals,
        isInitialized: true,
        freezeAuthority: options.freezeAuthority ? some(options.freezeAuthority) : none(),
        extensions: programId === TOKEN_2022_PROGRAM && extensions.length > 0 ? some(extensions) : none(),
      })
    )
    const chain = this.driver.chain
    chain.engine.setAccount(address, { lamports: chain.engine.minimumBalanceForRentExemption(data.length), data, owner: programId, executable: false })
    return address
  }

  private async createMintByTransaction (
    programId: Address,
    options: CreateMintOptions,
    authority: TransactionSigner | Address
  ): Promise<Address> {
    const mintSigner = await generateKeyPairSigner()
    const mint = mintSigner.address
    const withMint = buildExtensions(options.extensions, typeof authority === 'string' ? authority : authority.address, mint, 'initial')
    // getMintSize([]) already counts the Token-2022 extension header; a mint without extensions is 82 bytes
    const sizeOf = (list: ExtensionArgs[]) => (list.length > 0 ? getMintSize(list) : getMintSize())
    const initialSpace = sizeOf(withMint.filter((e) => e.__kind !== 'TokenMetadata'))
    const fullSpace = sizeOf(withMint)
    const payer = this.driver.payer
    const create: Instruction[] = [
      getCreateAccountInstruction({
        payer,
        newAccount: mintSigner,
        lamports: this.driver.chain.engine.minimumBalanceForRentExemption(fullSpace),
        space: initialSpace,
        programAddress: programId,
      }),
      ...getPreInitializeInstructionsForMintExtensions(mint, withMint),
      getInitializeMint2Instruction(
        {
          mint,
          decimals: options.decimals,
          mintAuthority: typeof authority === 'string' ? authority : authority.address,
          freezeAuthority: options.freezeAuthority ? some(options.freezeAuthority) : none(),
        },
        { programAddress: programId }
      ),
    ]
    await this.driver.execute(create, [payer, mintSigner])

    const metadata = options.extensions?.metadata
    if (metadata) {
      if (typeof authority === 'string') throw new Error('createMint: token metadata needs the mint authority as a signer')
      const post = getPostInitializeInstructionsForMintExtensions(mint, authority, withMint)
      if (metadata.updateAuthority === null) {
        post.push(getUpdateTokenMetadataUpdateAuthorityInstruction({ metadata: mint, updateAuthority: authority, newUpdateAuthority: none() }))
      }
      await this.driver.execute(post, [payer, authority])
    }
    return mint
  }
}

/**
 * The API's extension options as Token-2022 extension values. 'initial' is what the initialize
 * instructions take (a metadata update authority must exist then; a wanted `null` is revoked after),
 * 'final' is the end state, written as-is for mints at fixed addresses.
 */
function buildExtensions (options: MintExtensionsOptions | undefined, authority: Address, mint: Address, stage: 'initial' | 'final'): ExtensionArgs[] {
  if (!options) return []
  const list: ExtensionArgs[] = []
  if (options.transferFee) {
    const fee = { epoch: 0n, maximumFee: options.transferFee.maximumFee, transferFeeBasisPoints: options.transferFee.basisPoints }
    list.push(
      extension('TransferFeeConfig', {
        transferFeeConfigAuthority: authority,
        withdrawWithheldAuthority: authority,
        withheldAmount: 0n,
        olderTransferFee: fee,
        newerTransferFee: fee,
      })
    )
  }
  if (options.mintCloseAuthority) list.push(extension('MintCloseAuthority', { closeAuthority: options.mintCloseAuthority }))
  if (options.defaultAccountState) {
    list.push(extension('DefaultAccountState', { state: options.defaultAccountState === 'frozen' ? AccountState.Frozen : AccountState.Initialized }))
  }
  if (options.nonTransferable) list.push(extension('NonTransferable', {}))
  if (options.permanentDelegate) list.push(extension('PermanentDelegate', { delegate: options.permanentDelegate }))
  if (options.transferHook) list.push(extension('TransferHook', { authority, programId: options.transferHook }))
  if (options.pausable) list.push(extension('PausableConfig', { authority: some(options.pausable), paused: false }))
  if (options.metadata) {
    const { name, symbol, uri, updateAuthority } = options.metadata
    list.push(extension('MetadataPointer', { authority: some(authority), metadataAddress: some(mint) }))
    const metadataAuthority = updateAuthority ?? (stage === 'initial' ? authority : null)
    list.push(
      extension('TokenMetadata', {
        updateAuthority: metadataAuthority ? some(metadataAuthority) : none(),
        mint,
        name,
        symbol,
        uri,
        additionalMetadata: new Map(),
      })
    )
  }
  return list
}
