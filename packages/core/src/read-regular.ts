/**
 * Reading a file that a model or a sub-agent named: opened without blocking and checked before
 * reading, so a FIFO or a device can neither hang the host nor flood it.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

/**
 * The text of the regular file `path`, at most `maxBytes` long.
 * @throws Error saying why ("not a regular file", "larger than N bytes"), or Node's errno errors.
 */
export function readRegularText(path: string, maxBytes: number): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error('not a regular file');
    if (st.size > maxBytes) throw new Error(`larger than ${maxBytes} bytes`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
