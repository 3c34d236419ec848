/**
 * The wait for the shell's line editor: it ends when paste mode is switched on, and a shell that
 * did not switch it on since a wait timed out (bash before 4.4, bracketed paste off) is not
 * waited for again until it does.
 */
import { describe, expect, it } from 'vitest';
import { LineEditor } from '../src/line-editor.js';

/** Whether `p` has settled once everything already queued has run. */
async function settled(p: Promise<void>): Promise<boolean> {
  let done = false;
  void p.then(() => {
    done = true;
  });
  await new Promise((r) => setImmediate(r));
  return done;
}

describe('LineEditor', () => {
  it('waits only for a shell that switches paste mode on, and ends the wait when it does', async () => {
    const editor = new LineEditor();
    expect(await settled(editor.whenReading(60_000))).toBe(true); // never switched: no wait
    editor.set(true);
    editor.set(false); // the line was accepted: the next one is not read yet
    const waiting = editor.whenReading(60_000);
    expect(await settled(waiting)).toBe(false);
    editor.set(true);
    expect(await settled(waiting)).toBe(true);
    expect(await settled(editor.whenReading(60_000))).toBe(true); // reading now
  });

  it('after a wait timed out, the next ones do not wait until paste mode is switched on again', async () => {
    const editor = new LineEditor();
    editor.set(true);
    editor.set(false);
    await editor.whenReading(1); // times out
    expect(await settled(editor.whenReading(60_000))).toBe(true);
    editor.set(true);
    editor.set(false);
    const waiting = editor.whenReading(60_000);
    expect(await settled(waiting)).toBe(false);
    editor.wake(); // the session ended
    expect(await settled(waiting)).toBe(true);
  });
});
