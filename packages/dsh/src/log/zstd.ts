/**
 * zstd for session logs. Node 20 has no zlib zstd, so this uses `@bokuweb/zstd-wasm` (a
 * maintained WebAssembly build of the reference library, no install script); where Node's own
 * `zlib.zstdCompressSync` exists it is used instead. The output is a standard zstd frame, so
 * Debian's `zstdcat` reads it.
 */
import * as zlib from 'node:zlib';

/** zstd level of session logs: fast, and text logs shrink well at it. */
export const SESSION_LOG_ZSTD_LEVEL = 3;

type Codec = { compress(data: Uint8Array): Uint8Array; decompress(data: Uint8Array): Uint8Array };

let codec: Promise<Codec> | undefined;

function nativeCodec(): Codec | null {
  const z = zlib as unknown as {
    zstdCompressSync?: (d: Uint8Array, o?: unknown) => Buffer;
    zstdDecompressSync?: (d: Uint8Array) => Buffer;
    constants: Record<string, number>;
  };
  if (typeof z.zstdCompressSync !== 'function' || typeof z.zstdDecompressSync !== 'function') return null;
  const compress = z.zstdCompressSync;
  const decompress = z.zstdDecompressSync;
  const level = z.constants.ZSTD_c_compressionLevel;
  return {
    compress: (d) => compress(d, level === undefined ? {} : { params: { [level]: SESSION_LOG_ZSTD_LEVEL } }),
    decompress: (d) => decompress(d),
  };
}

/** The codec, loaded on first use. */
function load(): Promise<Codec> {
  codec ??= (async () => {
    const native = nativeCodec();
    if (native) return native;
    const wasm = await import('@bokuweb/zstd-wasm');
    await wasm.init();
    return {
      compress: (d) => wasm.compress(d, SESSION_LOG_ZSTD_LEVEL),
      decompress: (d) => wasm.decompress(d),
    };
  })();
  return codec;
}

/** Compresses `data` into one zstd frame. */
export async function zstdCompress(data: Uint8Array): Promise<Uint8Array> {
  return (await load()).compress(data);
}

/** Decompresses a zstd frame. */
export async function zstdDecompress(data: Uint8Array): Promise<Uint8Array> {
  return (await load()).decompress(data);
}
