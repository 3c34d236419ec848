/**
 * What the session hears from the parser: prompt markers (OSC 133), the shell starting to read a
 * line (bracketed paste on) and accepting it (off), where the cursor is; the scrollback about to be erased; and the
 * answers a real terminal gives that xterm does not (colour queries). A full reset (ESC c) is
 * done as its effect on modes and screen, so positions keep their buffers.
 */
import { answerColourQueries } from './colour-queries.js';
import type { Mark, ScreenHooks } from './screen.js';
import type { XtermTerminal } from './xterm-loader.js';

/** The parts of the screen the hooks use. */
interface HookedScreen {
  mark(): Mark;
  beforeScrollbackErase(): void;
}

/** Registers the parser hooks of one screen. */
export function installParserHooks(term: XtermTerminal, screen: HookedScreen, hooks: ScreenHooks): void {
  const parser = term.parser;
  parser.registerOscHandler(133, (payload) => {
    hooks.marker(`133;${payload}`, screen.mark());
    return true;
  });
  parser.registerCsiHandler({ prefix: '?', final: 'l' }, (params) => {
    if (params.includes(2004)) hooks.accept(screen.mark());
    return false; // xterm still applies the mode change
  });
  parser.registerCsiHandler({ prefix: '?', final: 'h' }, (params) => {
    if (params.includes(2004)) hooks.ready(screen.mark());
    return false;
  });
  parser.registerCsiHandler({ final: 'J' }, (params) => {
    if (params[0] === 3) screen.beforeScrollbackErase();
    return false; // xterm still erases
  });
  // A full reset would replace the buffers under every position: soft reset, leave the
  // alternate screen, clear — what it does to modes and screen.
  parser.registerEscHandler({ final: 'c' }, () => {
    term.write('\x1b[!p\x1b[?1049l\x1b[H\x1b[2J');
    return true;
  });
  answerColourQueries(parser, hooks.reply);
}
