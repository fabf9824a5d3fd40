// "base64+zstd" without a zstd library (Node 20 has none): a valid zstd frame made of raw (stored)
// blocks. Any zstd decoder, including kit's, reads it; it is just not smaller.
const MAGIC = [0x28, 0xb5, 0x2f, 0xfd]
const MAX_BLOCK = 128 * 1024 - 1

export function zstdStoredFrame (data: Uint8Array): Uint8Array {
  const parts: number[] = [...MAGIC]
  // Frame header: Single_Segment_flag set, 8-byte Frame_Content_Size (FCS flag = 3) -> descriptor 0xE0.
  parts.push(0xe0)
  const size = BigInt(data.length)
  for (let i = 0n; i < 8n; i++) parts.push(Number((size >> (8n * i)) & 0xffn))
  let offset = 0
  do {
    const length = Math.min(MAX_BLOCK, data.length - offset)
    const last = offset + length >= data.length ? 1 : 0
    const header = (length << 3) | (0 << 1) | last // block type 0 = raw
    parts.push(header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff)
    for (let i = 0; i < length; i++) parts.push(data[offset + i])
    offset += length
  } while (offset < data.length)
  return Uint8Array.from(parts)
}
