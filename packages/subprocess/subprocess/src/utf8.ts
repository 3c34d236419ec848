/**
 * UTF-8 boundary arithmetic for readers that must never split a character.
 */

/** Longest UTF-8 sequence, in bytes. */
const MAX_SEQUENCE_BYTES = 4;

/** True for a continuation byte (10xxxxxx). */
export function isContinuationByte(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/** Length of the sequence a lead byte announces; 1 for ASCII and for invalid lead bytes. */
export function sequenceLength(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf7) return 4;
  if (lead >= 0xe0) return lead <= 0xef ? 3 : 1;
  if (lead >= 0xc0) return 2;
  return 1;
}

/**
 * How many leading bytes of `bytes` are the tail of a character that began before it
 * (at most three continuation bytes). Skipping them starts the text on a boundary.
 */
export function leadingPartialBytes(bytes: Uint8Array): number {
  let n = 0;
  while (n < MAX_SEQUENCE_BYTES - 1 && n < bytes.length && isContinuationByte(bytes[n] as number)) n++;
  return n;
}

/**
 * Length of the longest prefix of `bytes` that does not end inside an unfinished character:
 * a trailing lead byte whose continuation bytes have not arrived yet is left out.
 */
export function completePrefixLength(bytes: Uint8Array): number {
  const end = bytes.length;
  for (let back = 1; back <= Math.min(MAX_SEQUENCE_BYTES, end); back++) {
    const byte = bytes[end - back] as number;
    if (!isContinuationByte(byte)) {
      return sequenceLength(byte) > back ? end - back : end;
    }
  }
  return end;
}
